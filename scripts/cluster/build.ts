// The control plane binary: built from test/cluster with the Go on PATH on first use, into a
// gitignored cache folder named by the hash of what the build reads (go.mod, go.sum, every .go
// file, the version stamp), and reused by every later start.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubernetesVersion } from '../../simulator/discovery/version.ts';

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
 * kube-apiserver's version stamp, as Kubernetes' own build sets it (`hack/lib/version.sh`,
 * `kube::version::ldflags`: the same variables in `k8s.io/client-go/pkg/version` and
 * `k8s.io/component-base/version`), from the `k8s.io/kubernetes` version go.mod requires. Without
 * it /version says `v0.0.0-master+$Format:%H$`, which kubectl cannot parse. No commit: a module
 * build does not know one, and version.sh too leaves it out then. The build date is the build's.
 *
 * @example
 * ```ts
 * spawn('go', ['build', '-ldflags', kubeLdflags().join(' '), '.']);
 * ```
 */
export function kubeLdflags(buildDate = new Date().toISOString().replace(/\.\d+Z$/, 'Z')): string[] {
  const { gitVersion, major, minor } = kubernetesVersion();
  const values: [string, string][] = [
    ['gitVersion', gitVersion],
    ['gitMajor', major],
    ['gitMinor', minor],
    ['buildDate', buildDate],
  ];
  return ['k8s.io/client-go/pkg/version', 'k8s.io/component-base/version'].flatMap((pkg) =>
    values.map(([key, value]) => `-X ${pkg}.${key}=${value}`),
  );
}

/** The stamp without its date: what of it decides the binary, for the cache key. */
const stampKey = (flags: string[]): string => flags.filter((flag) => !flag.includes('.buildDate=')).join(' ');

/**
 * Where the binary built from `moduleDir` is kept. Its folder is named by a hash of every source
 * (each path and length before its bytes, so no two trees hash alike) and of the version stamp: a
 * changed main.go builds a new binary instead of reusing one built from the old code, as hashing
 * go.sum alone did, and so does a binary built before it was stamped.
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
  hash.update(`ldflags\0${stampKey(kubeLdflags())}`);
  return join(cacheDir, `bin-${hash.digest('hex').slice(0, 16)}`, 'test-cluster');
}

export interface GoBuild {
  /** What is built, as the progress lines name it. */
  what: string;
  /** How long a cold build takes here, for the first line. */
  expect: string;
  cwd: string;
  /** Flags before `-o`; the package last. */
  flags: string[];
  pkg: string;
  env: NodeJS.ProcessEnv;
  target: string;
}

/**
 * Runs one `go build` into `target`. A progress line every 30 s while Go works; an interrupted or
 * failed build leaves no partial binary behind (it is renamed into place only when done).
 *
 * @example
 * ```ts
 * await goBuild({ what: 'x', expect: '1 min', cwd, flags: [], pkg: '.', env: {}, target }, say, signal);
 * ```
 */
export async function goBuild(
  build: GoBuild,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const go = findGo();
  if (!go.ok) throw new ClusterError(go.why);
  mkdirSync(join(build.target, '..'), { recursive: true });
  const partial = `${build.target}.partial-${process.pid}`;
  say(`cluster: building ${build.what} with go ${go.version} (first start only; ${build.expect})`);
  const started = Date.now();
  const child = spawn('go', ['build', ...build.flags, '-o', partial, build.pkg], {
    cwd: build.cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...build.env },
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-4000);
  });
  const progress = setInterval(() => {
    say(`cluster: still building ${build.what} (${Math.round((Date.now() - started) / 1000)} s)`);
  }, 30_000);
  const stop = (): void => {
    child.kill('SIGTERM');
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (signal.aborted)
      throw new ClusterError(`cluster: build of ${build.what} interrupted; nothing was kept`);
    if (code !== 0)
      throw new ClusterError(`cluster: go build of ${build.what} failed (exit ${code}):\n${errors.trim()}`);
    renameSync(partial, build.target);
    say(`cluster: built ${build.what} in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    clearInterval(progress);
    signal.removeEventListener('abort', stop);
    rmSync(partial, { force: true });
  }
}

/**
 * Builds kube-apiserver and etcd unless the cache has them, stamped with their version.
 *
 * @example
 * ```ts
 * const binary = await ensureBinary(console.error, new AbortController().signal);
 * ```
 */
export async function ensureBinary(say: (line: string) => void, signal: AbortSignal): Promise<string> {
  const target = binaryPath();
  if (existsSync(target)) return target;
  await goBuild(
    {
      what: 'kube-apiserver and etcd',
      expect: '5–10 min on 2 cores with a cold Go cache',
      cwd: MODULE_DIR,
      flags: ['-mod=readonly', '-trimpath', '-ldflags', kubeLdflags().join(' ')],
      pkg: '.',
      env: { GOFLAGS: '-mod=readonly' },
      target,
    },
    say,
    signal,
  );
  return target;
}
