// The control plane binary: built from test/cluster with the Go on PATH on first use, into a
// gitignored cache folder named by the hash of the module's sources (go.mod, go.sum, every .go
// file), and reused by every later start.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
export const MODULE_DIR = join(REPOSITORY, 'test', 'cluster');
/** Builds, the lock and run data; OTS_CLUSTER_CACHE_DIR moves them (the tier's fault tests do). */
export const CACHE_DIR = process.env.OTS_CLUSTER_CACHE_DIR ?? join(REPOSITORY, '.cache', 'cluster');

/** A problem the user fixes outside the script: said in one line, no stack. */
export class ClusterError extends Error {
  override name = 'ClusterError';
}

/** The Go version go.mod asks for (its `go` line). */
export function requiredGo(): string {
  const match = /^go (\d+\.\d+(?:\.\d+)?)$/m.exec(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'));
  if (!match?.[1]) throw new ClusterError('test/cluster/go.mod has no go line');
  return match[1];
}

function versionParts(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

function atLeast(have: string, want: string): boolean {
  const [a, b] = [versionParts(have), versionParts(want)];
  for (let i = 0; i < 3; i += 1) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/** The Go on PATH, if it is new enough; else undefined and why. */
export function findGo(): { ok: true; version: string } | { ok: false; why: string } {
  const want = requiredGo();
  let text: string;
  try {
    text = execFileSync('go', ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return {
      ok: false,
      why: `no go on PATH: install Go ${want} or newer (the real control plane is built from Go modules)`,
    };
  }
  const version = /go(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? '0';
  if (!atLeast(version, want))
    return { ok: false, why: `go ${version} is on PATH; test/cluster needs Go ${want} or newer` };
  return { ok: true, version };
}

/** The files a build reads: go.mod, go.sum and every .go file under `moduleDir`, sorted by path. */
export function moduleSources(moduleDir: string): string[] {
  const goFiles = readdirSync(moduleDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.go'))
    .map((entry) => relative(moduleDir, join(entry.parentPath, entry.name)).split(sep).join('/'));
  return ['go.mod', 'go.sum', ...goFiles.sort()];
}

/**
 * Where the binary built from `moduleDir` is kept. Its folder is named by a hash of every source
 * (each path and length before its bytes, so no two trees hash alike): a changed main.go builds
 * a new binary instead of reusing one built from the old code, as hashing go.sum alone did.
 *
 * @example
 * ```ts
 * if (!existsSync(binaryPath())) console.error('the first start builds it');
 * ```
 */
export function binaryPath(moduleDir = MODULE_DIR, cacheDir = CACHE_DIR): string {
  const hash = createHash('sha256');
  for (const path of moduleSources(moduleDir)) {
    const bytes = readFileSync(join(moduleDir, path));
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return join(cacheDir, `bin-${hash.digest('hex').slice(0, 16)}`, 'test-cluster');
}

/**
 * Builds the binary unless the cache has it. A progress line every 30 s while Go works; an
 * interrupted build leaves no partial binary behind (it is renamed into place only when done).
 */
export async function ensureBinary(say: (line: string) => void, signal: AbortSignal): Promise<string> {
  const target = binaryPath();
  if (existsSync(target)) return target;
  const go = findGo();
  if (!go.ok) throw new ClusterError(go.why);
  mkdirSync(join(target, '..'), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  say(
    `cluster: building kube-apiserver and etcd with go ${go.version} (first start only; 5–10 min on 2 cores with a cold Go cache)`,
  );
  const started = Date.now();
  const child = spawn('go', ['build', '-mod=readonly', '-trimpath', '-o', partial, '.'], {
    cwd: MODULE_DIR,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, GOFLAGS: '-mod=readonly' },
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-4000);
  });
  const progress = setInterval(() => {
    say(`cluster: still building (${Math.round((Date.now() - started) / 1000)} s)`);
  }, 30_000);
  const stop = (): void => {
    child.kill('SIGTERM');
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (signal.aborted) throw new ClusterError('cluster: build interrupted; nothing was kept');
    if (code !== 0) throw new ClusterError(`cluster: go build failed (exit ${code}):\n${errors.trim()}`);
    renameSync(partial, target);
    say(`cluster: built in ${Math.round((Date.now() - started) / 1000)} s`);
    return target;
  } finally {
    clearInterval(progress);
    signal.removeEventListener('abort', stop);
    rmSync(partial, { force: true });
  }
}
