// What the proxy tests share: proxies that can reach a name nobody else resolves, a kubeconfig
// pointing there through one of them, and the checks that no proxy credential is ever shown.
import { inspect } from 'node:util';
import { expect } from 'vitest';
import { type Harness, settles } from './helpers.ts';
import { type ProxyKind, startProxy, type TestProxy } from './proxies.ts';

// Under the sentinel run (test/reliability/sentinels.test.ts) the proxy password is a sentinel.
export const PASSWORD = process.env.OTS_SENTINEL_PROXY_PASSWORD ?? 'proxy-pa:ss@word';
export const USER = 'scheduler';
/** A name only the proxies can resolve: a direct connection to it fails. */
export const HIDDEN = 'api.cluster.test';
export const PARAMS = { VM_NAME: 'px', API_KEY: 'proxy-test-key' };
export const KINDS: ProxyKind[] = ['http', 'https', 'socks5'];

const proxies: TestProxy[] = [];

/** A proxy of `kind` that reaches HIDDEN, with USER and PASSWORD or the given credentials. */
export async function proxy(
  kind: ProxyKind,
  credentials: { username: string; password: string } | false = { username: USER, password: PASSWORD },
): Promise<TestProxy> {
  const started = await startProxy(kind, {
    hosts: { [HIDDEN]: '127.0.0.1' },
    ...(credentials ? { credentials } : {}),
  });
  proxies.push(started);
  return started;
}

/** Closes every proxy a test started (for afterEach). */
export async function closeProxies(): Promise<void> {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
}

/**
 * The harness's kubeconfig with the server at `host` (its certificate checked as `localhost`) and
 * `proxyUrl` as the cluster's proxy-url, or none (under `npm run test:proxy` every harness
 * kubeconfig has one: these tests set their own). `trusted`: an https proxy whose CA the cluster's
 * bundle carries.
 */
export function kubeconfigAt(
  h: Harness,
  host: string,
  proxyUrl?: string,
  trusted?: TestProxy,
): Promise<string> {
  return h.kubeconfigWith((config) => {
    const cluster = config.clusters[0]?.cluster as Record<string, unknown>;
    cluster.server = `https://${host}:${new URL(h.sim.url).port}`;
    cluster['tls-server-name'] = 'localhost';
    if (proxyUrl) cluster['proxy-url'] = proxyUrl;
    else delete cluster['proxy-url'];
    if (trusted?.kind === 'https')
      cluster['certificate-authority-data'] = Buffer.from(h.sim.caCert + trusted.caCert).toString('base64');
  });
}

/** Cuts every tunnel and gives the client a moment to see its connections close. */
export async function cut(p: TestProxy): Promise<void> {
  p.cutAll();
  await settles(() => p.open(), 0);
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Everything an error shows: message, stack, causes, and its inspected form. */
export function shown(error: unknown): string {
  if (process.env.OTS_PRINT_ERRORS) console.log(inspect(error, { depth: 8 }));
  return `${inspect(error, { depth: 8 })} ${JSON.stringify(error)}`;
}

export function expectNoSecret(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(encodeURIComponent(PASSWORD));
  expect(text).not.toContain(Buffer.from(`${USER}:${PASSWORD}`).toString('base64'));
}
