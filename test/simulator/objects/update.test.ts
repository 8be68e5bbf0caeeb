// PUT (update) as kube-apiserver answers it: the body names the URL's object, resourceVersion is an
// optimistic lock (required for custom resources), identity and timestamps stay, generation moves
// only with the desired state, status goes through its subresource only.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { call } from '../client.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const CM = '/api/v1/namespaces/workers/configmaps';
const VM = '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines';
const DEPLOY = '/apis/apps/v1/namespaces/workers/deployments';

interface Meta {
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  generation: number;
  managedFields: { manager: string; operation: string; fieldsV1: unknown }[];
}
const metaOf = (json: Record<string, unknown>): Meta => json.metadata as Meta;

async function created(path: string, object: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await call(sim, 'POST', `${path}?fieldManager=creator`, { body: object });
  expect(answer.status).toBe(201);
  return answer.json;
}

describe('PUT', () => {
  test('replaces the object, keeps uid and creationTimestamp, bumps resourceVersion, records the manager', async () => {
    const live = await created(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'put1' },
      data: { a: '1', b: '2' },
    });
    const sent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'put1',
        resourceVersion: metaOf(live).resourceVersion,
        creationTimestamp: '2000-01-01T00:00:00Z',
      },
      data: { a: '1', c: '3' },
    };
    const updated = await call(sim, 'PUT', `${CM}/put1?fieldManager=updater`, { body: sent });
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ a: '1', c: '3' });
    const meta = metaOf(updated.json);
    expect(meta).toMatchObject({
      uid: metaOf(live).uid,
      creationTimestamp: metaOf(live).creationTimestamp,
      generation: 1,
    });
    expect(Number(meta.resourceVersion)).toBeGreaterThan(Number(metaOf(live).resourceVersion));
    expect(meta.managedFields.map((m) => [m.manager, m.fieldsV1])).toEqual([
      // As kube-apiserver 1.34 records it (the real tier): the create added the map, a member too.
      ['creator', { 'f:data': { '.': {}, 'f:a': {} } }],
      ['updater', { 'f:data': { 'f:c': {} } }],
    ]);
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'put1')).toEqual(updated.json);
  });

  test('without a resourceVersion a built-in kind is updated unconditionally; a stale one is 409', async () => {
    const live = await created(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'put2' },
      data: { a: '1' },
    });
    const body = (data: Record<string, string>, resourceVersion?: string): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'put2', ...(resourceVersion ? { resourceVersion } : {}) },
      data,
    });
    expect((await call(sim, 'PUT', `${CM}/put2`, { body: body({ a: '2' }) })).status).toBe(200);
    const stale = await call(sim, 'PUT', `${CM}/put2`, {
      body: body({ a: '3' }, metaOf(live).resourceVersion),
    });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "put2": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'put2', kind: 'configmaps' },
    });
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'put2')?.data).toEqual({ a: '2' });
  });

  test('a custom resource needs its resourceVersion (422); its status stays; a spec change bumps generation', async () => {
    const vm = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'put3' },
      spec: { runStrategy: 'Halted' },
    };
    const live = await created(VM, vm);
    const missing = await call(sim, 'PUT', `${VM}/put3`, { body: vm });
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe(
      'virtualmachines.kubevirt.io "put3" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    const changed = {
      ...vm,
      metadata: { name: 'put3', resourceVersion: metaOf(live).resourceVersion },
      spec: { runStrategy: 'Always' },
      status: { printableStatus: 'Running' },
    };
    const updated = await call(sim, 'PUT', `${VM}/put3`, { body: changed });
    expect(updated.status).toBe(200);
    expect(metaOf(updated.json).generation).toBe(2);
    expect(updated.json.status).toEqual(live.status);
  });

  test("an OpenShift kind needs its resourceVersion too, and a Template's generation never moves", async () => {
    const path = '/apis/template.openshift.io/v1/namespaces/infra/templates';
    const body = (message: string, resourceVersion?: string): Record<string, unknown> => ({
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'put7', ...(resourceVersion ? { resourceVersion } : {}) },
      message,
      objects: [],
    });
    const live = await created(path, body('one'));
    const missing = await call(sim, 'PUT', `${path}/put7`, { body: body('two') });
    expect([missing.status, missing.json.message]).toEqual([
      422,
      'templates.template.openshift.io "put7" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    ]);
    const updated = await call(sim, 'PUT', `${path}/put7`, {
      body: body('two', metaOf(live).resourceVersion),
    });
    expect([updated.status, updated.json.message, metaOf(updated.json).generation]).toEqual([200, 'two', 1]);
  });

  test('a built-in kind counts generation by spec only', async () => {
    const deployment = (
      replicas: number,
      labels: Record<string, string>,
      resourceVersion?: string,
    ): Record<string, unknown> => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'put4', labels, ...(resourceVersion ? { resourceVersion } : {}) },
      spec: { replicas },
    });
    await created(DEPLOY, deployment(1, {}));
    const relabelled = await call(sim, 'PUT', `${DEPLOY}/put4`, { body: deployment(1, { a: 'b' }) });
    expect(metaOf(relabelled.json).generation).toBe(1);
    const scaled = await call(sim, 'PUT', `${DEPLOY}/put4`, { body: deployment(2, { a: 'b' }) });
    expect(metaOf(scaled.json).generation).toBe(2);
  });

  test('the body must name the URL object; a missing object is 404; uid cannot change', async () => {
    const cm = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, ...extra },
    });
    const live = await created(CM, cm('put5'));
    const wrongName = await call(sim, 'PUT', `${CM}/put5`, { body: cm('other') });
    expect([wrongName.status, wrongName.json.message]).toEqual([
      400,
      'the name of the object (other) does not match the name on the URL (put5)',
    ]);
    const noName = await call(sim, 'PUT', `${CM}/put5`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
    });
    expect(noName.json.message).toBe('the name of the object () does not match the name on the URL (put5)');
    const wrongNamespace = await call(sim, 'PUT', `${CM}/put5`, { body: cm('put5', { namespace: 'other' }) });
    expect([wrongNamespace.status, wrongNamespace.json.message]).toEqual([
      400,
      'the namespace of the object (other) does not match the namespace on the request (workers)',
    ]);
    const absent = await call(sim, 'PUT', `${CM}/absent`, { body: cm('absent') });
    expect([absent.status, absent.json.message]).toEqual([404, 'configmaps "absent" not found']);
    const uid = await call(sim, 'PUT', `${CM}/put5`, {
      body: cm('put5', { uid: '00000000-0000-0000-0000-000000000000' }),
    });
    expect([uid.status, uid.json.message]).toEqual([
      422,
      'ConfigMap "put5" is invalid: metadata.uid: Invalid value: "00000000-0000-0000-0000-000000000000": field is immutable',
    ]);
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'put5')).toEqual(
      sim.getObject('v1', 'ConfigMap', 'workers', 'put5'),
    );
    expect(metaOf(sim.getObject('v1', 'ConfigMap', 'workers', 'put5') ?? {}).resourceVersion).toBe(
      metaOf(live).resourceVersion,
    );
  });

  test('an update that changes nothing is not written; dryRun=All changes nothing', async () => {
    const live = await created(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'put6' },
      data: { a: '1' },
    });
    const same = await call(sim, 'PUT', `${CM}/put6?fieldManager=creator`, { body: live });
    expect(metaOf(same.json).resourceVersion).toBe(metaOf(live).resourceVersion);
    const dry = await call(sim, 'PUT', `${CM}/put6?dryRun=All`, { body: { ...live, data: { a: '2' } } });
    expect([dry.status, dry.json.data]).toEqual([200, { a: '2' }]);
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'put6')?.data).toEqual({ a: '1' });
  });
});
