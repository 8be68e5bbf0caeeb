// `npm run check-templates`: a user's own Template files, checked on the embedded simulator.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';

const run = promisify(execFile);
let dir: string;

const YAML_TEMPLATE = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: yaml-worker
parameters:
  - name: NAME
    generate: expression
    from: 'w-[a-z0-9]{6}'
  - name: OWNER
    required: true
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: \${NAME}
    data:
      owner: \${OWNER}
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata:
      name: \${NAME}_edit
    roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit }
  - apiVersion: v1
    kind: DeploymentConfig
    metadata:
      name: \${NAME}
    spec: { replicas: 0 }
`;

const JSON_TEMPLATE = {
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'json-random' },
  objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'random-' } }],
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ots-check-'));
  await writeFile(join(dir, 'worker.yaml'), YAML_TEMPLATE);
  await writeFile(join(dir, 'random.json'), JSON.stringify(JSON_TEMPLATE));
  await writeFile(
    join(dir, 'expect.json'),
    JSON.stringify({ 'json-random': { result: 'refused', message: 'uses metadata.generateName' } }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-templates.ts', ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

test('YAML and JSON files: generated values filled, a refusal reported with its exact error', async () => {
  const { code, stdout } = await check(dir, '--param', 'OWNER=ops');
  expect(code).toBe(1);
  expect(stdout).toContain('Template yaml-worker (worker.yaml)');
  // An OpenShift 3-style v1 DeploymentConfig renders into apps.openshift.io, which warns.
  expect(stdout).toContain('  kinds    ConfigMap, RoleBinding, DeploymentConfig');
  const deprecation =
    'apps.openshift.io/v1 DeploymentConfig is deprecated in v4.14+, unavailable in v4.10000+';
  for (const operation of ['create', 'get', 'delete'])
    expect(stdout).toContain(`  warning  ${operation} DeploymentConfig/w-abcdef: ${deprecation}`);
  expect(stdout).toContain('| yaml-worker | 3 | ok | 3 |  |');
  expect(stdout).toContain('  result   ok: process, create, get, delete by replay');
  expect(stdout).toContain('  note     NAME generated → test value');
  expect(stdout).toContain('  result   refused at create');
  expect(stdout).toContain('uses metadata.generateName, which cannot be replayed');
  expect(stdout).toContain('| json-random | 1 | refused | 0 | expected ok, got refused |');
  expect(stdout).toContain('1 as expected, 1 unexpected');
});

test('--expect turns a documented refusal into an expected result', async () => {
  const { code, stdout } = await check(dir, '--param', 'OWNER=ops', '--expect', join(dir, 'expect.json'));
  expect(stdout).toContain('2 as expected, 0 unexpected');
  expect(code).toBe(0);
});

test('a required parameter without a value is reported, not guessed', async () => {
  const { code, stdout } = await check(join(dir, 'worker.yaml'));
  expect(code).toBe(1);
  // Named by the library before anything is processed (the server would say it with a 422).
  expect(stdout).toContain('  result   refused at process');
  expect(stdout).toContain('parameter OWNER is required by the Template and has no value: give it one');
});

test('a path that does not exist is one line and the usage, exit 2, not a stack', async () => {
  const { code, stdout, stderr } = await check(join(dir, 'no-such-folder'));
  expect(code).toBe(2);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^check-templates: no such file or folder: .*no-such-folder\n\nusage: /);
  expect(stderr).not.toMatch(/ENOENT|\n\s+at /);
});
