// Stateless replay: the same inputs name the same objects, from a brand-new connection.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import { call } from '../simulator/client.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

const params = { VM_NAME: 'replay-1', IMAGE_TAG: '2.0' };

test('delete after a restart: a brand-new connection and no create result', async () => {
  {
    await using api = await h.connect();
    await ocp.create('worker-template', params, { ...WORKER, api });
  }
  expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'replay-1')).toBeDefined();
  h.sim.clearLog();

  // Nothing from the first connection survives: new process, new connection, same inputs.
  const deleted = await ocp.delete('worker-template', params, { ...WORKER, requestTimeout: 5_000 });
  expect(deleted.map((r) => `${r.kind}/${r.name}`)).toEqual([
    'VirtualMachine/replay-1',
    'Secret/replay-1-credentials',
    'ConfigMap/replay-1-config',
  ]);
  for (const [apiVersion, kind, name] of [
    ['v1', 'ConfigMap', 'replay-1-config'],
    ['v1', 'Secret', 'replay-1-credentials'],
    ['kubevirt.io/v1', 'VirtualMachine', 'replay-1'],
  ] as const) {
    expect(h.sim.getObject(apiVersion, kind, 'workers', name)).toBeUndefined();
  }
  const deletes = h.sim.log.filter((e) => e.method === 'DELETE');
  expect(deletes.map((e) => e.path)).toEqual([
    '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines/replay-1',
    '/api/v1/namespaces/workers/secrets/replay-1-credentials',
    '/api/v1/namespaces/workers/configmaps/replay-1-config',
  ]);
  // Each object was read first, and deleted with the UID and resourceVersion read as preconditions.
  const gets = h.sim.log.filter((e) => e.method === 'GET' && deletes.some((d) => d.path === e.path));
  expect(gets).toHaveLength(3);
  expect(Math.max(...gets.map((e) => e.seq))).toBeLessThan(Math.min(...deletes.map((e) => e.seq)));
  expect(deletes.map((e) => (JSON.parse(e.body) as { preconditions?: unknown }).preconditions)).toEqual(
    deleted.map((r) => ({ uid: r.uid, resourceVersion: expect.stringMatching(/^\d+$/) as unknown })),
  );
  expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
});

test('repeated deletion succeeds: 404 means already absent, and only a deletion now carries a uid', async () => {
  const created = await ocp.create('worker-template', params, WORKER);
  const first = await ocp.delete('worker-template', params, WORKER);
  // Deleted now: each ref carries the UID of the object the server deleted (README, delete()).
  expect(first.map((r) => r.uid)).toEqual(created.map((r) => r.uid).reverse());
  expect(first.map((r) => r.deletion)).toEqual(['deleted', 'deleted', 'deleted']);
  h.sim.clearLog();
  const second = await ocp.delete('worker-template', params, WORKER);
  expect(second.map((r) => r.name)).toEqual(first.map((r) => r.name));
  expect(second.every((r) => r.uid === undefined && r.deletion === 'already-gone')).toBe(true);
  // The replay's reads answered 404: nothing is left to delete, so no DELETE is sent.
  expect(h.sim.log.filter((e) => e.method === 'DELETE')).toEqual([]);
  const byName = await ocp.delete('worker-template', params, { ...WORKER, ownership: 'any' });
  expect(byName.map((r) => r.deletion)).toEqual(['already-gone', 'already-gone', 'already-gone']);
  expect(h.sim.log.filter((e) => e.method === 'DELETE').map((e) => e.status)).toEqual([404, 404, 404]);
  // Reference mode keeps the uid it was given, deleted now or already gone.
  const again = await ocp.delete({ namespace: 'workers', resources: created });
  expect(again.map((r) => r.uid)).toEqual(created.map((r) => r.uid).reverse());
});

test('reference mode: a saved UID protects a replacement object of the same name', async () => {
  await using api = await h.connect();
  const refs = await ocp.create('worker-template', params, { ...WORKER, api });
  expect(refs.every((r) => typeof r.uid === 'string')).toBe(true);
  // Someone deletes and re-creates the ConfigMap: same name, new UID.
  await ocp.delete({ namespace: 'workers', resources: refs.slice(0, 1), api });
  await ocp.create('worker-template', params, { ...WORKER, api });
  const replacementUid = (
    h.sim.getObject('v1', 'ConfigMap', 'workers', 'replay-1-config')?.metadata as { uid: string }
  ).uid;
  expect(replacementUid).not.toBe(refs[0]?.uid);

  const error = await rejection(ocp.delete({ namespace: 'workers', resources: refs, api }));
  expect(error).toBeInstanceOf(ocp.OperationError);
  const failure = instance(error, ocp.OperationError);
  expect(failure.operation).toBe('Delete');
  // The old VM and Secret were replaced too (create re-applied them, same UIDs kept by apply).
  expect(failure.failures.map((f) => f.resource.name)).toEqual(['replay-1-config']);
  const cause = instance(failure.failures[0]?.error, ocp.RequestError);
  expect(cause.statusCode).toBe(409);
  expect(cause.reason).toBe('Conflict');
  expect(cause.message).toContain(`the UID in the precondition (${refs[0]?.uid ?? ''}) does not match`);
  expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'replay-1-config')).toBeDefined();
  const sent = h.sim.log.filter((e) => e.method === 'DELETE').at(-1);
  expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({ preconditions: { uid: refs[0]?.uid } });
  await ocp.delete('worker-template', params, { ...WORKER, api });
});

test('reference mode without UIDs deletes by name; an empty list sends nothing', async () => {
  const refs = await ocp.create('worker-template', params, WORKER);
  const withoutUids = refs.map(({ uid: _uid, ...rest }) => rest);
  h.sim.clearLog();
  expect(await ocp.delete({ namespace: 'workers', resources: [] })).toEqual([]);
  expect(await ocp.get({ namespace: 'workers', resources: [] })).toEqual([]);
  expect(h.sim.log).toHaveLength(0);
  const deleted = await ocp.delete({ namespace: 'workers', resources: withoutUids });
  expect(deleted.map((r) => r.kind)).toEqual(['VirtualMachine', 'Secret', 'ConfigMap']);
  for (const entry of h.sim.log.filter((e) => e.method === 'DELETE'))
    expect(JSON.parse(entry.body)).not.toHaveProperty('preconditions');
});

test('get reads live objects in order, status included, in both modes', async () => {
  await using api = await h.connect();
  const refs = await ocp.create('worker-template', params, { ...WORKER, api });
  h.sim.setStatus('kubevirt.io/v1', 'VirtualMachine', 'workers', 'replay-1', {
    printableStatus: 'Running',
    ready: true,
  });
  const live = await ocp.get('worker-template', params, { ...WORKER, api });
  expect(live.map((o) => o.kind)).toEqual(['ConfigMap', 'Secret', 'VirtualMachine']);
  expect(live[2]?.status).toEqual({ printableStatus: 'Running', ready: true });
  expect(live[0]?.metadata?.uid).toBe(refs[0]?.uid);
  const byRef = await ocp.get({ namespace: 'workers', resources: refs, api });
  expect(byRef).toEqual(live);
  await ocp.delete('worker-template', params, { ...WORKER, api });
  const missing = await rejection(ocp.get({ namespace: 'workers', resources: refs, api }));
  expect(missing).toBeInstanceOf(ocp.RequestError);
  expect(instance(missing, ocp.RequestError).statusCode).toBe(404);
  expect(missing.message).toBe(
    'Get ConfigMap "replay-1-config" in namespace "workers": 404 NotFound: configmaps "replay-1-config" not found',
  );
});

test('template-mode delete into a namespace that no longer exists: every object is already absent', async () => {
  await using api = await h.connect();
  await ocp.create(
    'worker-template',
    { VM_NAME: 'gone-1' },
    { namespace: 'other', templateNamespace: 'infra', api },
  );
  const removed = await call(h.sim, 'DELETE', '/api/v1/namespaces/other');
  expect(removed.status).toBe(200);
  h.sim.clearLog();
  const deleted = await ocp.delete(
    'worker-template',
    { VM_NAME: 'gone-1' },
    { namespace: 'other', templateNamespace: 'infra', api },
  );
  expect(deleted).toEqual([]);
  // The processing answered 404 for the namespace; no DELETE was sent.
  expect(h.sim.log.map((e) => `${e.method} ${e.status}`)).toEqual(['GET 200', 'POST 404']);
});

test('template-mode delete without the Template says that replay needs it', async () => {
  const error = instance(
    await rejection(ocp.delete('retired-template', { VM_NAME: 'x' }, WORKER)),
    ocp.RequestError,
  );
  expect(error.statusCode).toBe(404);
  expect(error.message).toBe(
    'Get Template "retired-template" in namespace "infra": 404 NotFound: templates.template.openshift.io "retired-template" not found; delete replays the Template to name its objects, so it needs that Template (the revision that created them) back; or delete from saved references',
  );
  expect(error.cause).toBeInstanceOf(ocp.RequestError);
});

test('the same delete without templateNamespace keeps where the Template was looked for in its cause', async () => {
  const error = instance(
    await rejection(ocp.delete('retired-template', { VM_NAME: 'x' }, { namespace: 'workers' })),
    ocp.RequestError,
  );
  expect(error.message).toMatch(/; delete replays the Template to name its objects, /);
  const cause = instance(error.cause, ocp.RequestError);
  expect(cause.message).toMatch(
    /; templateNamespace was not given, so the Template was looked up in the target namespace "workers"$/,
  );
});
