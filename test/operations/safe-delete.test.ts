// A replay delete is safe by default: it reads every object first and deletes only what its field
// manager applied, with the UID it read as a precondition; another's object, or one replaced since
// the read, is left alone, typed and said so. Every field asserted is typed, never a message.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { call } from '../simulator/client.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const SECRETS = '/api/v1/namespaces/workers/secrets';
const CONFIGMAPS = '/api/v1/namespaces/workers/configmaps';

/** A ConfigMap stored as though `manager` had created it with a POST (an Update entry). */
function seedConfigMap(name: string, data: Record<string, string>, manager: string): void {
  h.sim.seed(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'workers' }, data },
    manager,
  );
}

function uidOf(apiVersion: string, kind: string, name: string): string | undefined {
  return (h.sim.getObject(apiVersion, kind, 'workers', name)?.metadata as { uid?: string } | undefined)?.uid;
}

function collect(): { warnings: ocp.ServerWarning[]; onWarning: ocp.WarningHandler } {
  const warnings: ocp.ServerWarning[] = [];
  return { warnings, onWarning: (w) => warnings.push(w) };
}

describe('another owner', () => {
  test('a Secret another made survives the replay of a job whose create conflicted with it', async () => {
    // Made between the pre-flight and the writes (the window the dry runs cannot see), as
    // `kubectl create secret` stores it: the job's create gets part-way, its ConfigMap written.
    h.sim.addFault({
      method: 'PATCH',
      path: `${SECRETS}/job-31-credentials`,
      nth: 2,
      action: {
        type: 'change-first',
        change: () => {
          h.sim.seed(
            {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: 'job-31-credentials', namespace: 'workers' },
              data: { 'api-key': 'dGhlaXJz' },
            },
            'kubectl-create',
          );
        },
      },
    });
    const params = { VM_NAME: 'job-31' };
    const failed = instance(
      await rejection(ocp.create('worker-template', params, { ...WORKER, api })),
      ocp.OperationError,
    );
    h.sim.clearFaults();
    expect([failed.operation, failed.resources.map((r) => r.name)]).toEqual(['Apply', ['job-31-config']]);
    expect(instance(failed.failures[0]?.error, ocp.RequestError).statusCode).toBe(409);
    const foreignUid = uidOf('v1', 'Secret', 'job-31-credentials');
    expect(foreignUid).toBeDefined();
    h.sim.clearLog();

    // The scheduler's recovery: a fresh replay of the job's inputs, no saved refs.
    const { warnings, onWarning } = collect();
    const results = await ocp.delete('worker-template', params, { ...WORKER, onWarning });
    expect(results).toEqual([
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        namespace: 'workers',
        name: 'job-31',
        deletion: 'already-gone',
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: 'workers',
        name: 'job-31-credentials',
        uid: foreignUid,
        deletion: 'left-alone',
        reason: 'not-owned',
        managers: [{ manager: 'kubectl-create', operation: 'Update' }],
      },
      expect.objectContaining({ kind: 'ConfigMap', name: 'job-31-config', deletion: 'deleted' }),
    ]);
    expect(uidOf('v1', 'Secret', 'job-31-credentials')).toBe(foreignUid);
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'job-31-credentials')?.data).toEqual({
      'api-key': 'dGhlaXJz',
    });
    // Every target read first; a DELETE only for the ConfigMap this job applied.
    const deletes = h.sim.log.filter((e) => e.method === 'DELETE');
    expect(deletes.map((e) => e.path)).toEqual([`${CONFIGMAPS}/job-31-config`]);
    const reads = h.sim.log.filter(
      (e) => e.method === 'GET' && /\/(secrets|configmaps|virtualmachines)\//.test(e.path),
    );
    expect(reads.map((e) => e.status).sort()).toEqual([200, 200, 404]);
    expect(Math.max(...reads.map((e) => e.seq))).toBeLessThan(deletes[0]?.seq ?? 0);
    // Said so, about that object, naming its manager.
    expect(warnings.map((w) => [w.code, w.operation, w.target?.kind, w.target?.name])).toEqual([
      ['OTC_NOT_OWNED', 'delete', 'Secret', 'job-31-credentials'],
    ]);
    expect(warnings[0]?.text).toContain('"kubectl-create"');

    // ownership: 'any' is the delete by name of before: it removes the foreign Secret too.
    const byName = await ocp.delete('worker-template', params, { ...WORKER, api, ownership: 'any' });
    expect(byName.map((r) => r.deletion)).toEqual(['already-gone', 'deleted', 'already-gone']);
    expect(uidOf('v1', 'Secret', 'job-31-credentials')).toBeUndefined();
  });

  test('a replay under a forgotten fieldManager is refused, deleting nothing; a subresource entry never owns', async () => {
    const params = { VM_NAME: 'job-32' };
    await ocp.create('worker-template', params, { ...WORKER, api, fieldManager: 'nightly' });
    // The default manager wrote only the VM's status: that is no claim on the object.
    const status = await call(
      h.sim,
      'PATCH',
      '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines/job-32/status?fieldManager=mini-scheduler',
      {
        body: { status: { ready: true } },
        contentType: 'application/merge-patch+json',
      },
    );
    expect(status.status).toBe(200);
    h.sim.clearLog();
    for (const dryRun of [false, true]) {
      const error = instance(
        await rejection(ocp.delete('worker-template', params, { ...WORKER, api, dryRun })),
        ocp.OperationError,
      );
      expect([error.operation, error.code, error.outcome, error.resources]).toEqual([
        'Delete',
        'OTC_WRONG_FIELD_MANAGER',
        'not-sent',
        [],
      ]);
      expect(error.failures.map((f) => [f.resource.kind, f.error.code, f.error.outcome])).toEqual([
        ['VirtualMachine', 'OTC_WRONG_FIELD_MANAGER', 'not-sent'],
        ['Secret', 'OTC_WRONG_FIELD_MANAGER', 'not-sent'],
        ['ConfigMap', 'OTC_WRONG_FIELD_MANAGER', 'not-sent'],
      ]);
      expect(error.failures[0]?.error.message).toContain('field manager "nightly"');
    }
    expect(h.sim.log.filter((e) => e.method === 'PATCH' || e.method === 'DELETE')).toEqual([]);
    const deleted = await ocp.delete('worker-template', params, { ...WORKER, api, fieldManager: 'nightly' });
    expect(deleted.map((r) => r.deletion)).toEqual(['deleted', 'deleted', 'deleted']);
    // The co-owner of the status is reported, never a reason to keep the object.
    expect(deleted[0]?.managers).toEqual([
      { manager: 'nightly', operation: 'Apply' },
      { manager: 'mini-scheduler', operation: 'Update', subresource: 'status' },
    ]);
  });
});

describe('between the read and the DELETE', () => {
  test('an object replaced after its read is left alone: the UID precondition answers 409', async () => {
    const params = { VM_NAME: 'job-33' };
    await ocp.create('worker-template', params, { ...WORKER, api });
    // The VM now belongs to another: deleted and made again by kubectl.
    await ocp.delete({
      namespace: 'workers',
      resources: [
        { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', namespace: 'workers', name: 'job-33' },
      ],
      api,
    });
    h.sim.seed(
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'job-33', namespace: 'workers' },
        spec: { runStrategy: 'Halted', template: { spec: {} } },
      },
      'kubectl-create',
    );
    const readUid = uidOf('v1', 'ConfigMap', 'job-33-config');
    let replacementUid: string | undefined;
    // Told about the VM (deleted first), the ConfigMap is replaced before its own DELETE is sent.
    const codes: [ocp.WarningCode, string | undefined][] = [];
    const onWarning = (w: ocp.ServerWarning): void => {
      codes.push([w.code, w.target?.kind]);
      if (codes.length > 1) return;
      seedConfigMap('job-33-config', { a: 'b' }, 'someone-else');
      replacementUid = uidOf('v1', 'ConfigMap', 'job-33-config');
    };
    h.sim.clearLog();
    const results = await ocp.delete('worker-template', params, { ...WORKER, api, onWarning });
    expect(results.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['VirtualMachine', 'left-alone', 'not-owned'],
      ['Secret', 'deleted', undefined],
      ['ConfigMap', 'left-alone', 'replaced'],
    ]);
    expect(results[2]?.managers).toEqual([{ manager: 'mini-scheduler', operation: 'Apply' }]);
    expect(codes).toEqual([
      ['OTC_NOT_OWNED', 'VirtualMachine'],
      ['OTC_REPLACED', 'ConfigMap'],
    ]);
    expect(replacementUid).not.toBe(readUid);
    expect(uidOf('v1', 'ConfigMap', 'job-33-config')).toBe(replacementUid);
    const last = h.sim.log.filter((e) => e.method === 'DELETE').at(-1);
    expect([last?.status, JSON.parse(last?.body ?? '{}')]).toEqual([
      409,
      expect.objectContaining({
        preconditions: { uid: readUid, resourceVersion: expect.any(String) as unknown },
      }),
    ]);
    await ocp.delete('worker-template', params, { ...WORKER, api, ownership: 'any' });
  });

  test('a 403 on a read is a failure: that object gets no DELETE, every other target is attempted', async () => {
    const params = { VM_NAME: 'job-34' };
    await ocp.create('worker-template', params, { ...WORKER, api });
    h.sim.addFault({
      method: 'GET',
      path: `${SECRETS}/job-34-credentials`,
      action: { type: 'status', code: 403, reason: 'Forbidden' },
    });
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.delete('worker-template', params, { ...WORKER, api })),
      ocp.OperationError,
    );
    h.sim.clearFaults();
    expect(error.operation).toBe('Delete');
    expect(
      error.failures.map((f) => [f.resource.name, instance(f.error, ocp.RequestError).statusCode]),
    ).toEqual([['job-34-credentials', 403]]);
    expect(error.resources.map((r) => [r.name, (r as ocp.DeleteResult).deletion])).toEqual([
      ['job-34', 'deleted'],
      ['job-34-config', 'deleted'],
    ]);
    expect(h.sim.log.filter((e) => e.method === 'DELETE' && e.path.includes('secrets'))).toEqual([]);
    expect(uidOf('v1', 'Secret', 'job-34-credentials')).toBeDefined();
    await ocp.delete('worker-template', params, { ...WORKER, api });
  });
});

describe('an object applied with its name only', () => {
  test('carries the owner label, so a replay from a new process deletes it', async () => {
    const template: ocp.TemplateObject = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'bare' },
      objects: [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bare-account' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bare-config' }, data: { a: 'b' } },
      ],
    };
    await ocp.create(template, {}, { namespace: 'workers', api });
    const account = h.sim.getObject('v1', 'ServiceAccount', 'workers', 'bare-account');
    expect((account?.metadata as { labels?: unknown }).labels).toEqual({
      'openshift-template-client/field-manager': 'mini-scheduler',
    });
    // A new Connection, no saved refs: what a restarted scheduler has.
    const { warnings, onWarning } = collect();
    const replay = await ocp.delete(template, {}, { namespace: 'workers', onWarning });
    expect(replay.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['ConfigMap', 'deleted', undefined],
      ['ServiceAccount', 'deleted', undefined],
    ]);
    expect(warnings).toEqual([]);
    expect(h.sim.getObject('v1', 'ServiceAccount', 'workers', 'bare-account')).toBeUndefined();
  });
});

describe('legacy authorization.openshift.io', () => {
  const template = (apiVersion: string): ocp.TemplateObject => ({
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: 'roles' },
    objects: [
      { apiVersion, kind: 'Role', metadata: { name: 'reader' }, rules: [] },
      {
        apiVersion,
        kind: 'RoleBinding',
        metadata: { name: 'reader' },
        roleRef: { name: 'reader' },
        subjects: [],
      },
    ],
  });

  test('an Update entry of the manager owns a legacy Role and RoleBinding (create() POSTs them), not an RBAC one', async () => {
    // create() makes them with a POST carrying its field manager: the apply of one answers 404.
    const created = await ocp.create(
      template('authorization.openshift.io/v1'),
      {},
      {
        namespace: 'workers',
        api,
        onWarning: () => undefined,
      },
    );
    expect(created.map((r) => r.created)).toEqual([true, true]);
    const legacy = await ocp.delete(
      template('authorization.openshift.io/v1'),
      {},
      { namespace: 'workers', api },
    );
    expect(legacy.map((r) => [r.kind, r.deletion])).toEqual([
      ['RoleBinding', 'deleted'],
      ['Role', 'deleted'],
    ]);
    expect(legacy[0]?.managers).toEqual([{ manager: 'mini-scheduler', operation: 'Update' }]);

    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/workers/roles';
    const body = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader' },
      rules: [],
    };
    expect((await call(h.sim, 'POST', `${rbac}?fieldManager=mini-scheduler`, { body })).status).toBe(201);
    const kept = await ocp.delete(
      template('rbac.authorization.k8s.io/v1'),
      {},
      { namespace: 'workers', api, onWarning: () => undefined },
    );
    expect(kept.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['RoleBinding', 'already-gone', undefined],
      ['Role', 'left-alone', 'not-owned'],
    ]);
  });
});

describe('the options', () => {
  test.each([
    [{ ownership: 'mine' }, 'ownership must be "manager" or "any", got string'],
    [{ fieldManager: '' }, 'fieldManager must be a non-empty string of at most 128 characters'],
    [
      { fieldManager: 'x', ownership: 'any' },
      'fieldManager cannot be combined with ownership "any", which deletes by name',
    ],
    [{ ownership: 'any', resources: undefined }, undefined],
  ])('%j', async (extra, issue) => {
    h.sim.clearLog();
    const attempt = ocp.delete(
      'worker-template',
      { VM_NAME: 'opts' },
      { ...WORKER, api, ...(extra as ocp.DeleteOptions) },
    );
    if (issue === undefined) {
      expect(await attempt).toHaveLength(3);
      return;
    }
    const error = instance(await rejection(attempt), ocp.ValidationError);
    expect([error.code, error.issues]).toEqual(['OTC_INVALID_ARGUMENT', [issue]]);
    expect(h.sim.log).toEqual([]);
  });
});
