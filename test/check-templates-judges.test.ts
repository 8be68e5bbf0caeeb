// `npm run check-templates`: its first line says what the run judges, so that an "ok" on the
// embedded simulator is not read as kube-apiserver's: the simulator types and names, it does not
// validate as kube-apiserver does (a ConfigMap key "bad key!" is ok here, 422 there; the real tier's
// side is test/cluster/check-templates-real-tier.test.ts). `--real-tier` judges on the real servers,
// and where it cannot start them it refuses in one line naming what is missing: never the simulator
// in their place.
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';

const run = promisify(execFile);
let dir: string;

// A ConfigMap key kube-apiserver refuses (422) and the simulator lets pass: a listed gap.
const BAD_KEY_TEMPLATE = readFileSync(new URL('./fixtures/bad-key.yaml', import.meta.url), 'utf8');

const SIMULATOR_JUDGES =
  "judges: the embedded simulator: types and names, by the library's engine and the simulator's rules, " +
  'not kube-apiserver\'s validation (a known gap: a ConfigMap key "bad key!" is ok here, 422 on ' +
  'kube-apiserver); --real-tier judges on the real servers';

const NO_SOURCE =
  'no openshift-apiserver source: pass --openshift-apiserver-source PATH or set OPENSHIFT_APISERVER_SOURCE ' +
  '(its source directory or tarball; docs/real-tier.md)';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ots-judges-'));
  await writeFile(join(dir, 'bad-key.yaml'), BAD_KEY_TEMPLATE);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The script with `env` over this process's, OPENSHIFT_APISERVER_SOURCE left out unless given. */
async function check(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { OPENSHIFT_APISERVER_SOURCE: _source, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-templates.ts', ...args], {
      env: { ...inherited, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

test('the simulator says first what it judges: the ConfigMap key kube-apiserver refuses is ok here', async () => {
  const { code, stdout } = await check({}, join(dir, 'bad-key.yaml'));
  expect(stdout.split('\n').slice(0, 3)).toEqual([
    SIMULATOR_JUDGES,
    'field validation: Strict',
    'server: the embedded simulator',
  ]);
  // The gap the line names: a real server answers 422 (the real tier's test shows it).
  expect(stdout).toContain('| bad-key | 1 | ok | 0 | 0 |  |');
  expect(code).toBe(0);
});

test('--real-tier without Go and without a source: one line naming both, exit 2, nothing run', async () => {
  // An empty PATH: no go on it, whatever this machine has.
  const { code, stdout, stderr } = await check({ PATH: '' }, join(dir, 'bad-key.yaml'), '--real-tier');
  expect(code).toBe(2);
  expect(stdout).toBe('');
  expect(stderr).toMatch(
    /^check-templates: --real-tier cannot start the real tier: no go on PATH: install Go \S+ or newer \(the real control plane is built from Go modules\); /,
  );
  expect(stderr).toContain(`; ${NO_SOURCE}\n`);
  expect(stderr.split('\n')).toHaveLength(2);
});

test('--real-tier names a source that is not there, from the flag or OPENSHIFT_APISERVER_SOURCE', async () => {
  const missing = join(dir, 'no-such-source.tar.gz');
  const runs = [
    await check(
      { PATH: '' },
      join(dir, 'bad-key.yaml'),
      '--real-tier',
      '--openshift-apiserver-source',
      missing,
    ),
    await check({ PATH: '', OPENSHIFT_APISERVER_SOURCE: missing }, join(dir, 'bad-key.yaml'), '--real-tier'),
  ];
  for (const { code, stdout, stderr } of runs) {
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^check-templates: --real-tier cannot start the real tier: no go on PATH: /);
    expect(stderr).toContain(`; openshift-apiserver source ${missing} does not exist\n`);
    expect(stderr.split('\n')).toHaveLength(2);
  }
});

test('--real-tier with --kubeconfig, or a source without --real-tier, is a usage error', async () => {
  const both = await check({}, dir, '--real-tier', '--kubeconfig', join(dir, 'kc.json'));
  expect(both.code).toBe(2);
  expect(both.stderr.split('\n')[0]).toBe(
    'check-templates: --real-tier starts a server of its own: leave out --kubeconfig',
  );
  const alone = await check({}, dir, '--openshift-apiserver-source', dir);
  expect(alone.code).toBe(2);
  expect(alone.stderr.split('\n')[0]).toBe(
    'check-templates: --openshift-apiserver-source is read with --real-tier only',
  );
  expect(`${both.stdout}${alone.stdout}`).toBe('');
});
