// What the library loads at run time: @kubernetes/client-node and undici, on first use and only on
// a Node.js that can run them.
import { ValidationError } from '../errors.ts';

export type ClientNode = typeof import('@kubernetes/client-node');
export type Undici = Pick<typeof import('undici'), 'Pool'>;

/** The oldest Node.js that client-node 2.x and its undici 8 load on. */
const MINIMUM_NODE = [22, 19] as const;

let loaded: Promise<{ k8s: ClientNode; undici: Undici }> | undefined;

/** Refuses an older Node.js by name before loading anything that would crash the process on it. */
function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return (
    `Node.js ${version} is running, but openshift-template-client needs Node.js >= ${needMajor}.${needMinor} ` +
    '(its HTTP client, undici 8, and @kubernetes/client-node 2 do not load on older versions)'
  );
}

/**
 * Loads client-node and undici on first use, so importing this package costs nothing and an
 * unsupported Node.js gets a clear error instead of a crash at load. Both are declared
 * dependencies imported by name, so npm, pnpm, Yarn PnP and bundlers all resolve them.
 */
export function loadClientNode(): Promise<{ k8s: ClientNode; undici: Undici }> {
  const refused = unsupportedNode(globalThis.process.versions.node);
  if (refused !== undefined)
    return Promise.reject(new ValidationError('connect', [refused], 'OTC_NODE_VERSION'));
  loaded ??= (async () => {
    const [k8s, undici] = await Promise.all([import('@kubernetes/client-node'), import('undici')]);
    return { k8s, undici };
  })();
  return loaded;
}
