// npm run cluster's own faults: a second start, a port in use, Ctrl-C during the build, the
// script killed. Each says one line, and leaves no process and no data directory behind. They run
// with the simulator as openshift-apiserver, by name, except the kill, which runs the real one
// when test:cluster names its source (OPENSHIFT_APISERVER_SOURCE): it too must die with its parent.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { binaryPath, CACHE_DIR } from '../../scripts/cluster/build.ts';

const openshiftSource = process.env.OPENSHIFT_APISERVER_SOURCE;
const SIMULATOR = ['--openshift=simulator'];

const clusterRunning = process.env.OTS_CLUSTER_KUBECONFIG !== undefined;
const scratch = mkdtempSync(join(tmpdir(), 'otc-cluster-faults-'));

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** scripts/cluster.ts with its own cache folder (`withBinary`: the built binary copied in). */
function startScript(cache: string, args: string[] = []): Run {
  const child = spawn(
    process.execPath,
    [
      'scripts/cluster.ts',
      '--kubeconfig-out',
      join(scratch, `kc-${String(Date.now())}-${Math.random().toString(36).slice(2)}.json`),
      ...args,
    ],
    {
      env: { ...process.env, OTS_CLUSTER_CACHE_DIR: cache },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
    }),
  );
  return { child, output: () => text, exited };
}

function cacheWithBinary(name: string): string {
  const cache = join(scratch, name);
  const target = binaryPath().replace(CACHE_DIR, cache);
  mkdirSync(join(target, '..'), { recursive: true });
  cpSync(binaryPath(), target);
  // openshift-apiserver's unpacked source and binary, linked rather than copied (hundreds of MB).
  for (const entry of readdirSync(CACHE_DIR).filter((e) => e.startsWith('openshift-apiserver-')))
    symlinkSync(join(CACHE_DIR, entry), join(cache, entry));
  return cache;
}

async function until(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const runDirs = (cache: string): string[] =>
  existsSync(cache) ? readdirSync(cache).filter((entry) => entry.startsWith('run-')) : [];

/** Processes of the control plane binary whose etcd data lies under `cache`. */
function controlPlanes(cache: string): string[] {
  const found = spawnSync('pgrep', ['-f', '--', `--etcd-data-dir=${cache}/`], { encoding: 'utf8' });
  return found.stdout.split('\n').filter(Boolean);
}

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!clusterRunning)('npm run cluster: faults', () => {
  test('a second start while one runs is refused in one line', async () => {
    // The tier of OTS_CLUSTER_KUBECONFIG holds the clone's lock; were it gone, this start would
    // succeed, so it is stopped whatever happens.
    const run = startScript(CACHE_DIR, SIMULATOR);
    try {
      expect(
        await Promise.race([run.exited, until(() => run.output().includes('ready in'), 'a refusal', 60_000)]),
      ).toBe(1);
      expect(run.output().trim()).toMatch(
        /^cluster: another npm run cluster is running \(pid \d+\); stop it first \(Ctrl-C\)$/,
      );
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  });

  test('a port in use is refused in one line, with no process and no data left', async () => {
    const cache = cacheWithBinary('port');
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = startScript(cache, ['--port', String(port), ...SIMULATOR]);
      expect(await run.exited).toBe(1);
      expect(run.output().trim()).toBe(`cluster: port ${port} is in use on 127.0.0.1`);
      expect(runDirs(cache)).toEqual([]);
      expect(controlPlanes(cache)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  test('a start that misses its deadline names the first condition not met, and leaves nothing', async () => {
    const cache = cacheWithBinary('deadline');
    const run = startScript(cache, ['--start-timeout-ms', '1', ...SIMULATOR]);
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toMatch(/^cluster: not ready in time: \/readyz \(.+\)$/);
    expect(runDirs(cache)).toEqual([]);
    await until(() => controlPlanes(cache).length === 0, 'the control plane to exit', 30_000);
  });

  test('SIGKILL: the control plane and openshift-apiserver exit with their parent, and the next start removes the dead run', async () => {
    const cache = cacheWithBinary('killed');
    const backend = openshiftSource ? ['--openshift-apiserver-source', openshiftSource] : SIMULATOR;
    const everything = (): string[] =>
      spawnSync('pgrep', ['-f', '--', `${cache}/run-`], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean);
    const first = startScript(cache, backend);
    await until(() => first.output().includes('ready in'), 'the first start');
    expect(controlPlanes(cache)).toHaveLength(1);
    const dead = runDirs(cache);
    expect(dead).toEqual([`run-${first.child.pid ?? ''}`]);
    first.child.kill('SIGKILL');
    await first.exited;
    await until(() => everything().length === 0, 'the orphaned servers to exit', 30_000);
    const second = startScript(cache, backend);
    await until(() => second.output().includes('ready in'), 'the second start');
    expect(runDirs(cache)).toEqual([`run-${second.child.pid ?? ''}`]);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(runDirs(cache)).toEqual([]);
    expect(everything()).toEqual([]);
  });

  test('Ctrl-C during the build: one line, no partial binary, no go process', async () => {
    const cache = join(scratch, 'build');
    const run = startScript(cache, SIMULATOR);
    await until(() => run.output().includes('cluster: building'), 'the build to start', 30_000);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(1);
    expect(run.output().trim().split('\n').at(-1)).toBe(
      'cluster: build of kube-apiserver and etcd interrupted; nothing was kept',
    );
    const built = binaryPath().replace(CACHE_DIR, cache);
    expect(existsSync(built)).toBe(false);
    expect(readdirSync(join(built, '..'))).toEqual([]);
    expect(runDirs(cache)).toEqual([]);
    // go and the compiler and linker it started: all gone soon after (they get its SIGTERM).
    const builders = (): string =>
      spawnSync('pgrep', ['-f', '--', cache], { encoding: 'utf8' }).stdout.trim();
    await until(() => builders() === '', 'the go build processes to exit', 30_000);
  });
});
