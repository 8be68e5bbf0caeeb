// Apply and delete as the server sees them: bodies, conflicts, partial failures, Secrets, KubeVirt.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearLog();
  h.sim.clearFaults();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

describe('apply bodies', () => {
  test('the rendered object is sent as is: recent fields and int-or-string values unchanged', async () => {
    // Every field is one kube-apiserver 1.34 declares, so the library's typing (Strict, the default)
    // passes it and the body carries it unchanged; `hostnameOverride` and `resizePolicy` are among
    // the newest. No `fieldValidation` in the query: the library types, not the server.
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', annotations: { note: 'kept' } },
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        template: {
          spec: {
            hostnameOverride: 'web-host',
            containers: [
              {
                name: 'c',
                image: 'img',
                ports: [{ containerPort: 8080 }],
                resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
              },
            ],
          },
        },
      },
    };
    h.sim.seedTemplate('faithful', [], [deployment]);
    const [ref] = await ocp.create('faithful', {}, { ...WORKER, api });
    // The pre-flight's dry run and the write: the very same request but dryRun.
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    expect(patches.map((e) => e.query)).toEqual([
      { fieldManager: 'mini-scheduler', dryRun: 'All' },
      { fieldManager: 'mini-scheduler' },
    ]);
    for (const patch of patches) {
      expect(patch.contentType).toBe('application/apply-patch+yaml');
      // The rendered object plus the owner label that marks it as this field manager's.
      expect(JSON.parse(patch.body)).toEqual({
        ...deployment,
        metadata: {
          ...deployment.metadata,
          namespace: 'workers',
          labels: { 'openshift-template-client/field-manager': 'mini-scheduler' },
        },
      });
    }
    const stored = h.sim.getObject('apps/v1', 'Deployment', 'workers', 'web');
    expect(stored?.spec).toEqual(deployment.spec);
    expect(ref?.uid).toBe((stored?.metadata as { uid: string }).uid);
  });

  test('a field manager with spaces, slashes, + and & arrives as given (form-encoded in the query)', async () => {
    // The query is built by hand for plain values; anything else must be escaped as
    // URLSearchParams escapes it, or the server would read another manager or a second parameter.
    const fieldManager = 'team a/ci:job+1&dryRun=None%';
    await ocp.create('worker-template', { VM_NAME: 'escaped' }, { ...WORKER, api, fieldManager });
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    expect(patches).toHaveLength(6);
    expect(patches.map((e) => e.query)).toEqual([
      ...Array<unknown>(3).fill({ fieldManager, dryRun: 'All' }),
      ...Array<unknown>(3).fill({ fieldManager }),
    ]);
    // No valid label value: the owner label carries its digest, and a replay under it finds its own.
    const labels = h.sim.getObject('v1', 'ConfigMap', 'workers', 'escaped-config')?.metadata as {
      labels?: Record<string, string>;
    };
    expect(labels.labels?.['openshift-template-client/field-manager']).toMatch(/^sha256-[0-9a-f]{40}$/);
    const deleted = await ocp.delete(
      'worker-template',
      { VM_NAME: 'escaped' },
      { ...WORKER, api, fieldManager },
    );
    expect(deleted.map((r) => r.deletion)).toEqual(['deleted', 'deleted', 'deleted']);
  });

  test('a custom field manager and dryRun=All: validated by the server, nothing persisted', async () => {
    const refs = await ocp.create(
      'worker-template',
      { VM_NAME: 'dry' },
      { ...WORKER, api, dryRun: true, fieldManager: 'ci-check' },
    );
    expect(refs).toHaveLength(3);
    expect(refs.every((r) => typeof r.uid === 'string')).toBe(true);
    expect(h.sim.log.filter((e) => e.method === 'PATCH').map((e) => e.query)).toEqual(
      Array(3).fill({ fieldManager: 'ci-check', dryRun: 'All' }),
    );
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'dry-config')).toBeUndefined();
    await ocp.create('worker-template', { VM_NAME: 'dry' }, { ...WORKER, api });
    await ocp.delete(
      'worker-template',
      { VM_NAME: 'dry' },
      { ...WORKER, api, dryRun: true, propagationPolicy: 'Foreground' },
    );
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'dry-config')).toBeDefined();
    const sent = JSON.parse(h.sim.log.filter((e) => e.method === 'DELETE').at(-1)?.body ?? '{}') as unknown;
    expect(sent).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
      // The replay read the object first and deletes only that one, as it read it.
      preconditions: {
        uid: (h.sim.getObject('v1', 'ConfigMap', 'workers', 'dry-config')?.metadata as { uid: string }).uid,
        resourceVersion: (
          h.sim.getObject('v1', 'ConfigMap', 'workers', 'dry-config')?.metadata as { resourceVersion: string }
        ).resourceVersion,
      },
    });
    await ocp.delete('worker-template', { VM_NAME: 'dry' }, { ...WORKER, api });
  });
});

describe('KubeVirt', () => {
  test('a VirtualMachine round trip: create, get with status, delete', async () => {
    const params = { VM_NAME: 'kv-1', MEMORY: '2Gi' };
    const refs = await ocp.create('worker-template', params, { ...WORKER, api });
    expect(refs[2]).toMatchObject({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      name: 'kv-1',
      namespace: 'workers',
    });
    const [vm] = await ocp.get({ namespace: 'workers', resources: refs.slice(2, 3), api });
    expect(vm?.spec).toMatchObject({ template: { spec: { domain: { memory: { guest: '2Gi' } } } } });
    expect(vm?.status).toEqual({ printableStatus: 'Stopped', ready: false });
    expect(h.sim.log.filter((e) => e.path === '/apis/kubevirt.io/v1')).toHaveLength(0);
    const deleted = await ocp.delete({ namespace: 'workers', resources: refs, api });
    // The delete names the object as the ref does; whether create() created it is create's to say.
    const { deletion, ...named } = deleted[0] ?? { deletion: undefined };
    expect(deletion).toBe('deleted');
    expect(refs[2]).toMatchObject(named);
    expect(deleted[0]?.uid).toBe(refs[2]?.uid);
    expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'kv-1')).toBeUndefined();
  });
});

describe('Secrets', () => {
  test('normalization matters: a key removed from stringData really disappears', async () => {
    h.sim.seedTemplate(
      'secret-keys',
      [{ name: 'A', value: 'ä-unicode' }],
      [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'app-secret' },
          data: { base: 'YmFzZQ==', both: 'b2xk' },
          stringData: { a: '${A}', b: 'bee', both: 'new' },
        },
      ],
    );
    await ocp.create('secret-keys', {}, { ...WORKER, api });
    const sent = JSON.parse(h.sim.log.find((e) => e.method === 'PATCH')?.body ?? '{}') as Record<
      string,
      unknown
    >;
    expect(sent.stringData).toBeUndefined();
    expect(sent.data).toEqual({
      base: 'YmFzZQ==',
      both: Buffer.from('new').toString('base64'),
      a: Buffer.from('ä-unicode', 'utf8').toString('base64'),
      b: Buffer.from('bee').toString('base64'),
    });
    // The Template changes: key "b" is no longer rendered.
    h.sim.seedTemplate(
      'secret-keys',
      [{ name: 'A', value: 'ä-unicode' }],
      [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app-secret' }, stringData: { a: '${A}' } }],
    );
    await ocp.create('secret-keys', {}, { ...WORKER, api });
    expect(Object.keys(h.sim.getObject('v1', 'Secret', 'workers', 'app-secret')?.data as object)).toEqual([
      'a',
    ]);
    // process() output is untouched: normalization happens on a copy, at apply time.
    const [rendered] = await ocp.process('secret-keys', {}, { ...WORKER, api });
    expect(rendered?.stringData).toEqual({ a: 'ä-unicode' });
  });
});

describe('failures', () => {
  test('a field conflict owned by another manager is surfaced with its causes, never forced', async () => {
    await ocp.create('worker-template', { VM_NAME: 'cf' }, { ...WORKER, api });
    h.sim.seed(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cf-config', namespace: 'workers' },
        data: { 'image-tag': 'pinned' },
      },
      'operator',
    );
    h.sim.clearLog();
    const error = await rejection(
      ocp.create('worker-template', { VM_NAME: 'cf', IMAGE_TAG: '9.9' }, { ...WORKER, api }),
    );
    expect(error).toBeInstanceOf(ocp.OperationError);
    const failure = instance(error, ocp.OperationError);
    // The pre-flight's dry run meets the conflict (an apply is never forced): nothing is written.
    expect(failure.operation).toBe('Preflight');
    expect(failure.resources).toEqual([]);
    expect(failure.failures.map((f) => f.resource.name)).toEqual(['cf-config']);
    const cause = instance(failure.failures[0]?.error, ocp.RequestError);
    expect(cause.statusCode).toBe(409);
    expect(cause.reason).toBe('Conflict');
    expect(cause.status?.details?.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "operator" using v1',
        field: '.data.image-tag',
      },
    ]);
    expect(cause.message).toBe(
      'Apply ConfigMap "cf-config" in namespace "workers": 409 Conflict: Apply failed with 1 conflict: conflict with "operator" using v1: .data.image-tag',
    );
    expect(failure.cause).toBe(cause);
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    expect(patches.map((e) => [e.query.force, e.query.dryRun])).toEqual(Array(3).fill([undefined, 'All']));
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'cf-config')?.data).toMatchObject({
      'image-tag': 'pinned',
    });
    await ocp.delete('worker-template', { VM_NAME: 'cf' }, { ...WORKER, api });
  });

  test('apply stops at the failing object and reports exactly the ones before it', async () => {
    // The Secret's write (its second PATCH): its dry run passed, so the write is what fails.
    h.sim.addFault({
      method: 'PATCH',
      path: /\/secrets\//,
      nth: 2,
      action: {
        type: 'status',
        code: 403,
        reason: 'Forbidden',
        message:
          'secrets "pf-credentials" is forbidden: User "dev" cannot patch resource "secrets" in API group "" in the namespace "workers"',
      },
    });
    const error = await rejection(ocp.create('worker-template', { VM_NAME: 'pf' }, { ...WORKER, api }));
    const failure = instance(error, ocp.OperationError);
    expect(failure.resources.map((r) => r.name)).toEqual(['pf-config']);
    expect(failure.resources[0]?.uid).toBe(
      (h.sim.getObject('v1', 'ConfigMap', 'workers', 'pf-config')?.metadata as { uid: string }).uid,
    );
    expect(failure.failures.map((f) => f.resource.name)).toEqual(['pf-credentials']);
    expect(instance(failure.failures[0]?.error, ocp.RequestError).statusCode).toBe(403);
    expect(failure.message).toContain('Apply failed for 1 object (1 succeeded)');
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    expect(patches.map((e) => e.query.dryRun ?? 'write')).toEqual(['All', 'All', 'All', 'write', 'write']);
    expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'pf')).toBeUndefined();
  });

  test('delete attempts every object and reports each failure', async () => {
    await ocp.create('worker-template', { VM_NAME: 'df' }, { ...WORKER, api });
    h.sim.addFault({
      method: 'DELETE',
      path: /virtualmachines/,
      action: {
        type: 'status',
        code: 500,
        reason: 'InternalError',
        message: 'Internal error occurred: etcd down',
      },
    });
    h.sim.addFault({
      method: 'DELETE',
      path: /configmaps/,
      action: { type: 'status', code: 403, reason: 'Forbidden', message: 'no' },
    });
    const error = await rejection(ocp.delete('worker-template', { VM_NAME: 'df' }, { ...WORKER, api }));
    const failure = instance(error, ocp.OperationError);
    expect(failure.operation).toBe('Delete');
    expect(failure.resources.map((r) => r.name)).toEqual(['df-credentials']);
    expect(
      failure.failures.map((f) => [f.resource.name, instance(f.error, ocp.RequestError).statusCode]),
    ).toEqual([
      ['df', 500],
      ['df-config', 403],
    ]);
    expect(failure.cause).toBeInstanceOf(AggregateError);
    expect(h.sim.log.filter((e) => e.method === 'DELETE')).toHaveLength(3);
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'df-credentials')).toBeUndefined();
    h.sim.clearFaults();
    await ocp.delete('worker-template', { VM_NAME: 'df' }, { ...WORKER, api });
  });

  test('a 403 on the Template GET names the step, the identity and the server message', async () => {
    h.sim.addToken('limited-token', { user: 'limited', rules: [] });
    const kubeconfig = h.sim.kubeconfig;
    const limited = kubeconfig.contexts.find((c) => c.context.user === 'limited');
    expect(limited).toBeDefined();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(h.kubeconfig, JSON.stringify(kubeconfig));
    await using limitedApi = await ocp.connect({ kubeconfig: h.kubeconfig, context: 'limited' });
    const error = await rejection(
      ocp.create('worker-template', { VM_NAME: 'x' }, { ...WORKER, api: limitedApi }),
    );
    expect(error).toBeInstanceOf(ocp.RequestError);
    expect(error.message).toBe(
      'Get Template "worker-template" in namespace "infra": 403 Forbidden: templates.template.openshift.io "worker-template" is forbidden: User "limited" cannot get resource "templates" in API group "template.openshift.io" in the namespace "infra"',
    );
    expect(instance(error, ocp.RequestError).reason).toBe('Forbidden');
  });
});
