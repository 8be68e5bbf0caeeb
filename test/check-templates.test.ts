// `npm run check-templates`: a user's own Template files, checked on the embedded simulator, under
// each of create()'s fieldValidation modes, against per-mode expectations; and with --kubeconfig on
// a server it must not change, with a simulator of the test's own as that server, whose request log
// says what reached it.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { closedAfterAll, harness } from './helpers.ts';

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

// Two fields apps/v1 does not declare (one Deployment, two maps), after an object that would be
// applied first: Strict refuses both fields before anything is written, Warn and Ignore drop them.
const UNDECLARED_TEMPLATE = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: undeclared
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: undeclared-settings }
    data: { mode: fast }
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: undeclared }
    spec:
      triggers: [{ type: ConfigChange }]
      selector: { matchLabels: { app: undeclared } }
      template:
        metadata: { labels: { app: undeclared } }
        spec:
          containers:
            - name: web
              image: registry.example/web:1
              capabilities: {}
`;

// A wrong type: refused in every mode (nothing sensible can be dropped).
const WRONG_TYPE_TEMPLATE = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: wrong-type
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: wrong-type }
    spec:
      replicas: two
      selector: { matchLabels: { app: wrong-type } }
      template:
        metadata: { labels: { app: wrong-type } }
        spec: { containers: [{ name: web, image: registry.example/web:1 }] }
`;

const UNDECLARED_ISSUES = [
  'Deployment "undeclared" in namespace "workers": .spec.triggers: field not declared in schema',
  'Deployment "undeclared" in namespace "workers": .spec.template.spec.containers[name="web"].capabilities: field not declared in schema',
];
const WRONG_TYPE_ISSUES = [
  'Deployment "wrong-type" in namespace "workers": .spec.replicas: expected numeric (int or float), got string',
];
const wrongType = { result: 'refused', step: 'create', issues: WRONG_TYPE_ISSUES };
const PER_MODE = {
  Strict: {
    undeclared: { result: 'refused', step: 'create', issues: UNDECLARED_ISSUES },
    'wrong-type': wrongType,
  },
  Warn: { 'wrong-type': wrongType },
  Ignore: { 'wrong-type': wrongType },
};
let typed: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ots-check-'));
  await writeFile(join(dir, 'worker.yaml'), YAML_TEMPLATE);
  await writeFile(join(dir, 'random.json'), JSON.stringify(JSON_TEMPLATE));
  const randomIssues = [
    'object 1 (ConfigMap (no name)) has no metadata.name (a stable name is required)',
    'object 1 (ConfigMap (no name)) uses metadata.generateName, which cannot be replayed',
  ];
  await writeFile(
    join(dir, 'expect.json'),
    JSON.stringify({ Strict: { 'json-random': { result: 'refused', issues: randomIssues } } }),
  );
  typed = join(dir, 'typed');
  await mkdir(typed);
  await writeFile(join(typed, 'undeclared.yaml'), UNDECLARED_TEMPLATE);
  await writeFile(join(typed, 'wrong-type.yaml'), WRONG_TYPE_TEMPLATE);
  await writeFile(join(dir, 'per-mode.json'), JSON.stringify(PER_MODE));
  // Strict's list without one of the two undeclared fields: a substring of the message would match.
  const short = {
    ...PER_MODE.Strict,
    undeclared: { result: 'refused', issues: UNDECLARED_ISSUES.slice(0, 1) },
  };
  await writeFile(join(dir, 'short.json'), JSON.stringify({ ...PER_MODE, Strict: short }));
  await writeFile(join(dir, 'flat.json'), JSON.stringify(PER_MODE.Strict));
  await writeFile(join(dir, 'no-warn.json'), JSON.stringify({ Strict: PER_MODE.Strict }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return checkWith({}, ...args);
}

async function checkWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-templates.ts', ...args], {
      env: { ...process.env, ...env },
    });
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
  expect(stdout).toContain('| yaml-worker | 3 | ok | 0 | 3 |  |');
  expect(stdout).toContain('  result   ok: process, create, get, delete by replay');
  expect(stdout).toContain('  note     NAME generated → test value');
  expect(stdout).toContain('  result   refused at create');
  expect(stdout).toContain('uses metadata.generateName, which cannot be replayed');
  expect(stdout).toContain('| json-random | 1 | refused | 2 | 0 | expected ok, got refused |');
  expect(stdout).toContain('1 as expected, 1 unexpected (field validation Strict)');
});

test('--expect turns a documented refusal, with its every issue, into an expected result', async () => {
  const { code, stdout } = await check(dir, '--param', 'OWNER=ops', '--expect', join(dir, 'expect.json'));
  expect(stdout).toContain('2 as expected, 0 unexpected (field validation Strict)');
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

test('--field-validation takes Strict, Warn or Ignore: anything else is one line and the usage, exit 2', async () => {
  for (const args of [['--field-validation', 'strict'], ['--field-validation']]) {
    const { code, stdout, stderr } = await check(typed, ...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^check-templates: .*--field-validation.*\n\nusage: /);
    expect(stderr).toContain('--field-validation  ');
    expect(stderr).not.toMatch(/\n\s+at /);
  }
  const { stderr } = await check(typed, '--field-validation', 'strict');
  expect(stderr.split('\n')[0]).toBe(
    'check-templates: --field-validation must be Strict, Warn or Ignore, not "strict"',
  );
});

test('Strict, the default: a refused Template prints every problem on its own line and wrote nothing', async () => {
  const { code, stdout } = await check(typed);
  expect(code).toBe(1);
  expect(stdout).toMatch(/^judges: the embedded simulator: .*\nfield validation: Strict\n/);
  const undeclared = stdout.slice(
    stdout.indexOf('Template undeclared'),
    stdout.indexOf('Template wrong-type'),
  );
  expect(undeclared).toContain('  result   refused at create\n  error    OTC_UNSAFE_OBJECT: 2 problems\n');
  expect(undeclared.split('\n').filter((l) => l.startsWith('  issue '))).toEqual(
    UNDECLARED_ISSUES.map((issue) => `  issue    ${issue}`),
  );
  // Checked in the simulator's request log: no apply reached it, the ConfigMap's neither.
  expect(stdout).not.toContain('  wrote ');
  expect(stdout).toContain(`  issue    ${WRONG_TYPE_ISSUES[0] ?? ''}`);
  expect(stdout).toContain('| undeclared | 2 | refused | 2 | 0 | expected ok, got refused |');
  expect(stdout).toContain('| wrong-type | 1 | refused | 1 | 0 | expected ok, got refused |');
  expect(stdout).toContain('0 as expected, 2 unexpected (field validation Strict)');
});

test.each(['Strict', 'Warn', 'Ignore'])('--expect reads the section of the mode run: %s', async (mode) => {
  const { code, stdout } = await check(
    typed,
    '--field-validation',
    mode,
    '--expect',
    join(dir, 'per-mode.json'),
  );
  expect(stdout).toContain(`2 as expected, 0 unexpected (field validation ${mode})`);
  expect(code).toBe(0);
  const removals = stdout.split('\n').filter((l) => l.includes('unknown field "'));
  if (mode === 'Warn') {
    expect(stdout).toContain('| undeclared | 2 | ok | 0 | 2 |  |');
    expect(removals).toHaveLength(2);
    expect(removals[0]).toMatch(
      /^ {2}warning {2}create Deployment\/undeclared: .*unknown field "\.spec\.triggers"/,
    );
    // The path in SSA's syntax, its quotes escaped or not.
    expect(removals[1]).toMatch(
      /^ {2}warning {2}create Deployment\/undeclared: .*unknown field "\.spec\.template\.spec\.containers\[name=\\?"web\\?"\]\.capabilities"/,
    );
  } else expect(removals).toEqual([]);
  // A wrong type is refused whatever the mode.
  expect(stdout).toContain('| wrong-type | 1 | refused | 1 | 0 |  |');
});

test('--expect compares the whole issue list, not a part of the message', async () => {
  const { code, stdout } = await check(typed, '--expect', join(dir, 'short.json'));
  expect(code).toBe(1);
  expect(stdout).toContain('| undeclared | 2 | refused | 2 | 0 | 1 line(s) differ |');
  expect(stdout).toContain(`  undeclared: extra issue: ${UNDECLARED_ISSUES[1] ?? ''}`);
  expect(stdout).toContain('1 as expected, 1 unexpected (field validation Strict)');
});

test('an expectations file without sections per mode, or without the mode run, is a usage error', async () => {
  const flat = await check(typed, '--expect', join(dir, 'flat.json'));
  expect(flat.code).toBe(2);
  expect(flat.stderr.split('\n')[0]).toBe(
    `check-templates: --expect ${join(dir, 'flat.json')}: "undeclared" is not a mode: the sections are Strict, Warn and Ignore`,
  );
  const noWarn = await check(typed, '--field-validation', 'Warn', '--expect', join(dir, 'no-warn.json'));
  expect(noWarn.code).toBe(2);
  expect(noWarn.stderr.split('\n')[0]).toBe(
    `check-templates: --expect ${join(dir, 'no-warn.json')}: no "Warn" section for --field-validation Warn`,
  );
  expect(`${flat.stdout}${noWarn.stdout}`).toBe('');
});

test('Warn without --expect: exit 0 when every Template round-trips with its fields dropped', async () => {
  const { code, stdout } = await check(join(typed, 'undeclared.yaml'), '--field-validation', 'Warn');
  expect(stdout).toContain('  result   ok: process, create, get, delete by replay');
  expect(stdout).toContain('1 as expected, 0 unexpected (field validation Warn)');
  expect(code).toBe(0);
});

// A Pod whose ServiceAccount does not exist: its pre-flight dry run is refused (403), after the
// ConfigMap's dry run passed; nothing is written.
const NO_ACCOUNT_TEMPLATE = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: no-account
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: no-account-settings }
    data: { mode: fast }
  - apiVersion: v1
    kind: Pod
    metadata: { name: no-account }
    spec:
      serviceAccountName: missing
      containers: [{ name: web, image: registry.example/web:1 }]
`;

test('a create refused in its pre-flight lists its dry runs as dry runs, not as writes', async () => {
  const file = join(dir, 'no-account.yaml');
  await writeFile(file, NO_ACCOUNT_TEMPLATE);
  const { code, stdout } = await check(file);
  expect(code).toBe(1);
  expect(stdout).toContain(
    '  result   failed at create\n  error    Preflight failed for 1 object (nothing was written)',
  );
  expect(stdout).toContain(
    '  dry run  PATCH /api/v1/namespaces/workers/configmaps/no-account-settings 201\n',
  );
  expect(stdout).toContain('  dry run  PATCH /api/v1/namespaces/workers/pods/no-account 403\n');
  expect(stdout).not.toContain('  wrote ');
});

// The issue's case: the file's Template has the name of a stored Template of the server's.
const STORED = {
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'worker-template', namespace: 'infra' },
  objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stored-settings' } }],
};
const SAME_NAME_TEMPLATE = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: worker-template
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: file-settings }
    data: { mode: fast }
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: file-web }
    spec:
      selector: { matchLabels: { app: file-web } }
      template:
        metadata: { labels: { app: file-web } }
        spec: { containers: [{ name: web, image: registry.example/web:1 }] }
`;

const opened = closedAfterAll();

test('--kubeconfig sends dry runs only: no write, stored Templates untouched, dry runs called so', async () => {
  const h = opened(await harness({ seedExamples: false }));
  h.sim.seed(STORED);
  const before = h.sim.getObject('template.openshift.io/v1', 'Template', 'infra', 'worker-template');
  const file = join(dir, 'same-name.yaml');
  await writeFile(file, SAME_NAME_TEMPLATE);
  h.sim.clearLog();
  const { code, stdout, stderr } = await checkWith(
    { NODE_DEBUG: 'openshift-templates' },
    file,
    '--kubeconfig',
    h.kubeconfig,
  );
  expect(stdout).toMatch(/^judges: the server of .*: its own validation, by dry runs \(nothing written\)\n/);
  expect(stdout).toContain('check: process, create as a dry run, in namespace workers: nothing is written');
  expect(stdout).toContain('  result   ok: process, create as a dry run\n');
  expect(code).toBe(0);
  // The request log: the Template went as an object (processed for the report, then by create()),
  // every apply was a dry run, nothing else wrote.
  const mutating = h.sim.log.filter((e) => e.method !== 'GET');
  expect(mutating.filter((e) => e.path.includes('/templates'))).toEqual([]);
  expect(mutating.map((e) => `${e.method} ${e.path} ${[e.query.dryRun].flat().join()}`)).toEqual([
    'POST /apis/template.openshift.io/v1/namespaces/workers/processedtemplates ',
    'POST /apis/template.openshift.io/v1/namespaces/workers/processedtemplates ',
    'PATCH /api/v1/namespaces/workers/configmaps/file-settings All',
    'PATCH /apis/apps/v1/namespaces/workers/deployments/file-web All',
  ]);
  expect(h.sim.getObject('template.openshift.io/v1', 'Template', 'infra', 'worker-template')).toEqual(before);
  expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'file-settings')).toBeUndefined();
  // NODE_DEBUG says which apply was a dry run: here each one.
  const applies = stderr.split('\n').filter((l) => /^OPENSHIFT-TEMPLATES \d+: PATCH /.test(l));
  expect(applies).toHaveLength(2);
  for (const line of applies) expect(line).toMatch(/ 201 \d+ms Apply .* in namespace "workers" \(dry run\)$/);
});

test('--round-trip on a server that names no audit log is refused in one line, before any request', async () => {
  const h = opened(await harness({ seedExamples: false }));
  h.sim.clearLog();
  const { code, stdout, stderr } = await check(typed, '--kubeconfig', h.kubeconfig, '--round-trip');
  expect(code).toBe(2);
  expect(stdout).toBe('');
  expect(stderr.split('\n')[0]).toBe(
    `check-templates: ${h.kubeconfig} names no audit log (the openshift-template-client.test/audit-log cluster extension npm run cluster writes): without it a round trip cannot show what it wrote; leave out --round-trip for dry runs only`,
  );
  expect(h.sim.log).toEqual([]);
});
