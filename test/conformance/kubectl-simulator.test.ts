// The simulator as a tool users run kubectl against: loading and replacing their own Template,
// kubectl's typed commands (which send protobuf), and `auth can-i` against the simulator's RBAC.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import { limitedRules } from '../../simulator/seed.ts';
import { type KubectlBench, type KubectlResult, startKubectlBench } from './kubectl.ts';

let bench: KubectlBench;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  // The same second user `npm run simulator` adds, so its kubeconfig has the context "limited".
  bench = await startKubectlBench('kubectl-simulator-', {
    tokens: { 'limited-token': { user: 'limited', rules: limitedRules() } },
  });
  ({ sim, dir } = bench);
}, 120_000);
afterAll(() => bench.close());

function kube(...args: string[]): Promise<KubectlResult> {
  return bench.kube(...args);
}

const template = (message: string, resourceVersion?: string): string => `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: my-template
${resourceVersion === undefined ? '' : `  resourceVersion: "${resourceVersion}"\n`}message: ${message}
parameters:
  - name: NAME
    required: true
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: \${NAME}-config
    data:
      greeting: ${message}
`;

interface Meta {
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  generation: number;
}
const storedTemplate = (): { message?: unknown; metadata: Meta } | undefined =>
  sim.getObject('template.openshift.io/v1', 'Template', 'infra', 'my-template') as
    { message?: unknown; metadata: Meta } | undefined;

describe('your own Template', () => {
  test('kubectl create -f loads it, kubectl replace -f updates it in place with a PUT', async () => {
    const file = join(dir, 'template.yaml');
    await writeFile(file, template('hello'));
    const created = await kube('create', '-f', file, '-n', 'infra');
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('template.template.openshift.io/my-template created');
    const before = storedTemplate()?.metadata;

    await writeFile(file, template('goodbye'));
    sim.clearLog();
    const replaced = await kube('replace', '-f', file, '-n', 'infra');
    expect(replaced.stderr).toBe('');
    expect(replaced.stdout.trim()).toBe('template.template.openshift.io/my-template replaced');
    const after = storedTemplate();
    expect(after?.message).toBe('goodbye');
    expect(after?.metadata).toMatchObject({
      uid: before?.uid,
      creationTimestamp: before?.creationTimestamp,
      generation: before?.generation,
    });
    expect(Number(after?.metadata.resourceVersion)).toBeGreaterThan(Number(before?.resourceVersion));
    // kubectl reads the live resourceVersion first, then sends it as the precondition of its PUT.
    const puts = sim.mutations().filter((e) => e.method === 'PUT');
    expect(puts.map((e) => [e.path, e.status])).toEqual([
      ['/apis/template.openshift.io/v1/namespaces/infra/templates/my-template', 200],
    ]);
    expect(JSON.parse(puts[0]?.body ?? '{}')).toMatchObject({
      metadata: { resourceVersion: before?.resourceVersion },
    });
  });

  test('a replace from a stale copy is refused with 409 Conflict and changes nothing', async () => {
    const stale = String(Number(storedTemplate()?.metadata.resourceVersion) - 1);
    const file = join(dir, 'stale.yaml');
    await writeFile(file, template('stale', stale));
    const replaced = await kube('replace', '-f', file, '-n', 'infra');
    expect(replaced.code).not.toBe(0);
    expect(replaced.stderr).toContain(
      'Error from server (Conflict): error when replacing "' +
        file +
        '": Operation cannot be fulfilled on templates.template.openshift.io "my-template": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(storedTemplate()?.message).toBe('goodbye');
  });
});

describe("kubectl's typed commands, which send protobuf", () => {
  test('create configmap --from-literal', async () => {
    sim.clearLog();
    const created = await kube('create', 'configmap', 'literal', '-n', 'workers', '--from-literal=a=b');
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('configmap/literal created');
    expect(sim.mutations().map((e) => [e.contentType, e.status])).toEqual([
      ['application/vnd.kubernetes.protobuf', 201],
    ]);
    const stored = sim.getObject('v1', 'ConfigMap', 'workers', 'literal');
    expect(stored?.data).toEqual({ a: 'b' });
    expect(stored?.metadata).toMatchObject({
      managedFields: [
        { manager: 'kubectl-create', operation: 'Update', fieldsV1: { 'f:data': { 'f:a': {} } } },
      ],
    });
  });

  test('create secret generic --from-literal', async () => {
    const created = await kube(
      'create',
      'secret',
      'generic',
      'literal',
      '-n',
      'workers',
      '--from-literal=token=s3cr3t',
    );
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('secret/literal created');
    const stored = sim.getObject('v1', 'Secret', 'workers', 'literal');
    expect(stored?.data).toEqual({ token: Buffer.from('s3cr3t').toString('base64') });
    expect(stored?.type).toBe('Opaque');
  });
});

test('create namespace and create serviceaccount, also sent as protobuf', async () => {
  const namespace = await kube('create', 'namespace', 'team-a');
  expect([namespace.stderr, namespace.stdout.trim()]).toEqual(['', 'namespace/team-a created']);
  const account = await kube('create', 'serviceaccount', 'builder', '-n', 'team-a');
  expect([account.stderr, account.stdout.trim()]).toEqual(['', 'serviceaccount/builder created']);
  expect(sim.getObject('v1', 'ServiceAccount', 'team-a', 'builder')?.metadata).toMatchObject({
    name: 'builder',
    namespace: 'team-a',
  });
});

describe('auth can-i answers from the same rules the requests meet', () => {
  test.each([
    ['simulator', ['delete', 'configmaps', '-n', 'workers'], 'yes'],
    ['simulator', ['create', 'namespaces'], 'yes'],
    ['limited', ['delete', 'configmaps', '-n', 'workers'], 'no'],
    ['limited', ['create', 'virtualmachines.kubevirt.io', '-n', 'other'], 'yes'],
    ['limited', ['get', 'templates.template.openshift.io', '-n', 'infra'], 'yes'],
    ['limited', ['delete', 'templates.template.openshift.io', '-n', 'infra'], 'no'],
    ['limited', ['list', 'secrets', '-n', 'workers'], 'no'],
  ])('as %s: can-i %j is %s', async (context, args, answer) => {
    const asked = await kube('--context', context, 'auth', 'can-i', ...args);
    expect(asked.stdout.trim()).toBe(answer);
    expect(asked.code).toBe(answer === 'yes' ? 0 : 1);
  });

  test('what can-i says no to, the request is refused; what it says yes to goes through', async () => {
    const refused = await kube('--context', 'limited', 'delete', 'configmap', 'literal', '-n', 'workers');
    expect(refused.stderr).toContain('Error from server (Forbidden)');
    const fetched = await kube(
      '--context',
      'limited',
      'get',
      'configmap',
      'literal',
      '-n',
      'workers',
      '-o',
      'name',
    );
    expect(fetched.stdout.trim()).toBe('configmap/literal');
  });
});
