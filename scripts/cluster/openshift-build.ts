// openshift-apiserver's binary, built from a source the user supplies (a directory or the tarball
// of test/cluster/data/openshift-apiserver.json's commit), never from anything in this repository:
// the tree vendors its every dependency, so it builds offline with -mod=vendor. A tarball is
// unpacked into the cache once, under the hash of its bytes; the binary is kept under the hash of
// the source and the version stamp, as kube-apiserver's is (build.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { CACHE_DIR, ClusterError, goBuild } from './build.ts';

interface Pin {
  repository: string;
  commit: string;
  version: string;
  tarball: { name: string; sha256: string };
}

/** The pinned commit and version (test/cluster/data/openshift-apiserver.json). */
export const OPENSHIFT_PIN = JSON.parse(
  readFileSync(new URL('../../test/cluster/data/openshift-apiserver.json', import.meta.url), 'utf8'),
) as Pin;

const MODULE = 'github.com/openshift/openshift-apiserver';

/**
 * The version stamp, derived from the pin. Its own `pkg/version` as build-machinery-go's
 * `make/lib/golang.mk` stamps it (without it the server panics at start: `could not parse
 * "unknown" as version`), and k8s.io/component-base's, which its /version serves `gitVersion`,
 * commit and date from (else `v0.0.0-master+$Format:%H$`, as kube-apiserver's said unstamped).
 *
 * @example
 * ```ts
 * spawn('go', ['build', '-ldflags', openshiftLdflags().join(' '), './cmd/openshift-apiserver']);
 * ```
 */
export function openshiftLdflags(buildDate = new Date().toISOString().replace(/\.\d+Z$/, 'Z')): string[] {
  const [major, minor] = OPENSHIFT_PIN.version.replace(/^v/, '').split('.');
  const commit = OPENSHIFT_PIN.commit.slice(0, 9);
  const own: [string, string][] = [
    ['versionFromGit', OPENSHIFT_PIN.version],
    ['commitFromGit', commit],
    ['gitTreeState', 'clean'],
    ['majorFromGit', major ?? ''],
    ['minorFromGit', minor ?? ''],
    ['buildDate', buildDate],
  ];
  const componentBase: [string, string][] = [
    ['gitVersion', OPENSHIFT_PIN.version],
    ['gitCommit', commit],
    ['gitTreeState', 'clean'],
    ['buildDate', buildDate],
  ];
  return [
    ...own.map(([key, value]) => `-X ${MODULE}/pkg/version.${key}=${value}`),
    ...componentBase.map(([key, value]) => `-X k8s.io/component-base/version.${key}=${value}`),
  ];
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A hash of a source tree's files (paths, lengths, bytes), `.git` left out. */
function hashTree(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.startsWith('.git/'))
    .sort();
  for (const path of files) {
    const bytes = readFileSync(join(dir, path));
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

function checkTree(dir: string, from: string): void {
  const goMod = join(dir, 'go.mod');
  if (!existsSync(goMod) || !readFileSync(goMod, 'utf8').includes(`module ${MODULE}\n`))
    throw new ClusterError(
      `cluster: ${from} is not openshift-apiserver's source (its go.mod is not ${MODULE}'s)`,
    );
  if (!existsSync(join(dir, 'vendor', 'modules.txt')))
    throw new ClusterError(
      `cluster: ${from} has no vendor/ tree; openshift-apiserver builds offline from it`,
    );
}

/** Unpacks a tarball into the cache once, keyed by its hash; returns the tree and that hash. */
function unpack(tarball: string, say: (line: string) => void): { dir: string; hash: string } {
  const hash = sha256File(tarball);
  if (hash !== OPENSHIFT_PIN.tarball.sha256)
    say(
      `cluster: ${tarball} is not the pinned tarball (sha256 ${hash.slice(0, 16)}…); building it all the same`,
    );
  const into = join(CACHE_DIR, `openshift-apiserver-src-${hash.slice(0, 16)}`);
  if (!existsSync(into)) {
    const partial = `${into}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    try {
      execFileSync('tar', ['-xzf', tarball, '-C', partial], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new ClusterError(
        `cluster: could not unpack ${tarball}: ${(error as Error).message.split('\n')[0] ?? ''}`,
        {
          cause: error,
        },
      );
    }
    renameSync(partial, into);
  }
  // The tarball holds one folder (openshift-apiserver-<commit>/); a flat one is taken as it is.
  const entries = readdirSync(into);
  const only = entries.length === 1 && entries[0] !== undefined ? join(into, entries[0]) : into;
  return { dir: statSync(only).isDirectory() ? only : into, hash };
}

/** The source a run builds from, and the hash that names its build. */
export function resolveSource(path: string, say: (line: string) => void): { dir: string; hash: string } {
  const full = resolve(path);
  if (!existsSync(full)) throw new ClusterError(`cluster: openshift-apiserver source ${path} does not exist`);
  const source = statSync(full).isDirectory() ? { dir: full, hash: hashTree(full) } : unpack(full, say);
  checkTree(source.dir, path);
  return source;
}

const stampKey = (flags: string[]): string => flags.filter((flag) => !flag.includes('.buildDate=')).join(' ');

/**
 * openshift-apiserver's binary for `sourcePath`, built on first use (about 10 minutes on 2 cores
 * with a cold Go cache) and kept in the cache.
 *
 * @example
 * ```ts
 * const binary = await ensureOpenshiftBinary('openshift-apiserver-56aa2d96e.tar.gz', console.error, signal);
 * ```
 */
export async function ensureOpenshiftBinary(
  sourcePath: string,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<string> {
  const source = resolveSource(sourcePath, say);
  const key = createHash('sha256')
    .update(`${source.hash}\0${stampKey(openshiftLdflags())}`)
    .digest('hex');
  const target = join(CACHE_DIR, `openshift-apiserver-bin-${key.slice(0, 16)}`, 'openshift-apiserver');
  if (existsSync(target)) return target;
  await goBuild(
    {
      what: 'openshift-apiserver',
      expect: 'about 10 min on 2 cores with a cold Go cache',
      cwd: source.dir,
      // -trimpath: the Go cache then keys nothing by the folder the source was unpacked into.
      flags: ['-mod=vendor', '-trimpath', '-ldflags', openshiftLdflags().join(' ')],
      pkg: './cmd/openshift-apiserver',
      env: { GOFLAGS: '-mod=vendor', GOWORK: 'off' },
      target,
    },
    say,
    signal,
  );
  return target;
}

/** The kubeconfig extension that says which backend serves the OpenShift groups, and as whom. */
export const BACKEND_EXTENSION = 'openshift-template-client.test/openshift-apiserver';

/**
 * Which openshift-apiserver the aggregator forwards the OpenShift groups to: the real one, built
 * from `source` (a directory or the tarball of its pinned commit), or the simulator, which a test
 * about the simulator's own seams asks for by name.
 */
export type OpenshiftBackend = { kind: 'openshift-apiserver'; source: string } | { kind: 'simulator' };

/**
 * The backend a command line asks for: `--openshift simulator` by name, else the real server from
 * `--openshift-apiserver-source` or OPENSHIFT_APISERVER_SOURCE. Never the simulator by default:
 * without a source this refuses in one line.
 *
 * @example
 * ```ts
 * const backend = chooseBackend(values.openshift, values['openshift-apiserver-source']);
 * ```
 */
export function chooseBackend(openshift: string | undefined, source: string | undefined): OpenshiftBackend {
  if (openshift === 'simulator') return { kind: 'simulator' };
  if (openshift !== undefined && openshift !== 'openshift-apiserver')
    throw new ClusterError(`cluster: --openshift is openshift-apiserver or simulator, not "${openshift}"`);
  const path = source ?? process.env.OPENSHIFT_APISERVER_SOURCE;
  if (!path)
    throw new ClusterError(
      'cluster: no openshift-apiserver source: pass --openshift-apiserver-source PATH or set OPENSHIFT_APISERVER_SOURCE (its source directory or tarball; docs/real-tier.md), or --openshift=simulator to run the simulator in its place',
    );
  return { kind: 'openshift-apiserver', source: resolve(path) };
}
