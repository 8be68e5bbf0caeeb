// The KUBECONFIG list read as client-go's loading rules read it: missing files skipped, the first
// file to name a cluster, user or context winning.
import { readFileSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { RequestError } from '../errors.ts';
import { type Redactor } from '../util/redact.ts';

type ClientNode = typeof import('@kubernetes/client-node');

/** A kubeconfig or ServiceAccount that cannot be used: nothing was sent. */
export const UNLOADABLE = { code: 'OTC_KUBECONFIG', outcome: 'not-sent' } as const;

/** A load failure that keeps the file-system code and path but never a line of the file. */
export function loadError(what: string, error: unknown, redact: Redactor = (t) => t): RequestError {
  // YAML errors quote the offending line, which may hold a token: keep only the parser's reason.
  const parsed = error as { name?: unknown; reason?: unknown; mark?: { line?: unknown } };
  if (parsed.name === 'YAMLException') {
    const safe = new Error(
      `invalid YAML: ${String(parsed.reason)} (line ${Number(parsed.mark?.line ?? -1) + 1})`,
    );
    return new RequestError('Connect', what, safe.message, { cause: safe, ...UNLOADABLE });
  }
  const text = error instanceof Error ? error.message : String(error);
  // A file-system error (ENOENT, EACCES) keeps its code and path; only text that quotes a secret is copied.
  const cause = redact(text) === text ? error : Object.assign(new Error(redact(text)), codeOf(error));
  return new RequestError('Connect', what, redact(text), { cause, ...UNLOADABLE });
}

function codeOf(error: unknown): { code?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { code } : {};
}

/** The paths KUBECONFIG lists, in order, without empty entries and repeats. */
export function kubeconfigPaths(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(delimiter).filter((path) => path !== ''))];
}

/** One file of the list, its relative paths resolved against its folder; undefined when missing. */
function loadListed(k8s: ClientNode, path: string): KubeConfig | undefined {
  const kc = new k8s.KubeConfig();
  try {
    const text = readFileSync(path, 'utf8');
    // client-go reads an empty file as an empty config; client-node would refuse it.
    if (text.length === 0) return kc;
    kc.loadFromString(text);
  } catch (error) {
    if (codeOf(error).code === 'ENOENT') return undefined;
    throw loadError(`kubeconfig "${path}" (listed in KUBECONFIG)`, error);
  }
  kc.makePathsAbsolute(dirname(path));
  return kc;
}

/** Keeps the first entry of each name, as client-go's merge keeps the first file's map keys. */
function firstOfEachName<T extends { name: string }>(lists: T[][]): T[] {
  const byName = new Map<string, T>();
  for (const item of lists.flat()) if (!byName.has(item.name)) byName.set(item.name, item);
  return [...byName.values()];
}

/**
 * The files KUBECONFIG lists, merged as client-go does (the first whole entry of each name wins);
 * undefined when every file is missing. A file that cannot be read or parsed is an error naming it.
 */
export function loadKubeconfigList(k8s: ClientNode, paths: readonly string[]): KubeConfig | undefined {
  const loaded = paths.map((path) => loadListed(k8s, path)).filter((kc) => kc !== undefined);
  if (loaded.length === 0) return undefined;
  const merged = new k8s.KubeConfig();
  merged.loadFromOptions({
    clusters: firstOfEachName(loaded.map((kc) => kc.clusters)),
    users: firstOfEachName(loaded.map((kc) => kc.users)),
    contexts: firstOfEachName(loaded.map((kc) => kc.contexts)),
    currentContext: loaded.map((kc) => kc.currentContext).find((name) => Boolean(name)) ?? '',
  });
  return merged;
}
