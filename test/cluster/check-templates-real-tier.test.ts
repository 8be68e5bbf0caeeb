// #43 item 6: `check-templates --real-tier` starts the real tier for its run, judges there, and
// stops it. The ConfigMap key "bad key!" the embedded simulator lets pass (its first line says it
// does not judge kube-apiserver's validation; test/check-templates-judges.test.ts) is kube-apiserver's
// 422 here, with nothing written; Ctrl-C while the tier starts leaves no server and no data behind.
// The tier of OTS_CLUSTER_KUBECONFIG holds the clone's cache lock (one control plane per cache
// folder), so each run here gets a cache folder of its own with the built binaries linked in.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { binaryPath, CACHE_DIR } from '../../scripts/cluster/build.ts';
import { clusterKubeconfig } from './audit.ts';

const source = process.env.OPENSHIFT_APISERVER_SOURCE ?? '';
const scratch = mkdtempSync(join(tmpdir(), 'otc-check-real-tier-'));

// A ConfigMap key kube-apiserver refuses (422) and the simulator lets pass: a listed gap.
const BAD_KEY_TEMPLATE = readFileSync(new URL('../fixtures/bad-key.yaml', import.meta.url), 'utf8');
const GOOD_KEY_TEMPLATE = BAD_KEY_TEMPLATE.replaceAll('bad-key', 'good-key').replace(
  /["']bad key!['"]/,
  'mode',
);

/** A cache folder of its own: the kube-apiserver build and openshift-apiserver's linked in. */
function ownCache(name: string): string {
  const cache = join(scratch, name);
  mkdirSync(cache);
  const built = dirname(binaryPath());
  symlinkSync(built, join(cache, basename(built)));
  for (const entry of readdirSync(CACHE_DIR).filter((e) => e.startsWith('openshift-apiserver-')))
    symlinkSync(join(CACHE_DIR, entry), join(cache, entry));
  return cache;
}

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function checkTemplates(cache: string, args: string[]): Run {
  const child = spawn(process.execPath, ['scripts/check-templates.ts', ...args, '--real-tier'], {
    env: { ...process.env, OTS_CLUSTER_CACHE_DIR: cache, OPENSHIFT_APISERVER_SOURCE: source },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

const runDirs = (cache: string): string[] => readdirSync(cache).filter((e) => e.startsWith('run-'));
/** Every process started for a run under `cache`: the control plane, openshift-apiserver. */
const servers = (cache: string): string[] =>
  spawnSync('pgrep', ['-f', '--', `${cache}/run-`], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);

async function until(check: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(clusterKubeconfig === '' || source === '')('#43 item 6: check-templates --real-tier', () => {
  test('judged by the real servers: "bad key!" is a 422 before anything is written; the tier is stopped after', async () => {
    const cache = ownCache('judged');
    const templates = join(scratch, 'templates');
    mkdirSync(templates);
    writeFileSync(join(templates, 'bad-key.yaml'), BAD_KEY_TEMPLATE);
    writeFileSync(join(templates, 'good-key.yaml'), GOOD_KEY_TEMPLATE);
    const run = checkTemplates(cache, [templates]);
    expect(await run.exited).toBe(1);
    const out = run.stdout();
    expect(out.split('\n')[0]).toMatch(
      /^judges: the real tier, started for this run: kube-apiserver v1\.34\.\d+ and openshift-apiserver \S+ \(from .+\): their own validation, by a round trip$/,
    );
    expect(out).toMatch(
      /\nserver: the real tier at https:\/\/127\.0\.0\.1:\d+, started for this run and stopped after it\n/,
    );
    const bad = out.slice(out.indexOf('Template bad-key'), out.indexOf('Template good-key'));
    expect(bad).toContain('  result   failed at create\n');
    // kube-apiserver's ConfigMap validation, which the simulator does not have: its pre-flight
    // dry run is answered 422, so nothing is applied.
    expect(bad).toMatch(/\n {2}error {4}.*bad key!/);
    expect(bad).toContain('  dry run  PATCH /api/v1/namespaces/workers/configmaps/bad-key-settings 422\n');
    expect(bad).not.toContain('  wrote ');
    expect(out).toContain('| good-key | 1 | ok | 0 | 0 |  |');
    expect(out).toContain('1 as expected, 1 unexpected (field validation Strict)');
    expect(runDirs(cache)).toEqual([]);
    expect(servers(cache)).toEqual([]);
  });

  test('Ctrl-C while the tier starts: exit 130, no server and no data left', async () => {
    const cache = ownCache('interrupted');
    const file = join(scratch, 'one.yaml');
    writeFileSync(file, GOOD_KEY_TEMPLATE);
    const run = checkTemplates(cache, [file]);
    await until(() => servers(cache).length > 0, 'the control plane to start', 120_000);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stdout()).toBe('');
    expect(existsSync(cache) && runDirs(cache)).toEqual([]);
    await until(() => servers(cache).length === 0, 'the servers to exit', 30_000);
  });
});
