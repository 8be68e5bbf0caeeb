// A job whose Template holds RBAC objects (Role and RoleBinding of rbac.authorization.k8s.io/v1,
// of OpenShift's authorization.openshift.io/v1, and in its 3.x spelling `v1`) round-trips through what the wire and the
// schema root can do to a long-lived Connection: a GOAWAY with an error code in the middle of the
// create, and a schema that changed under it. Create, a replayed create that keeps every UID, get,
// and delete from a new Connection.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.sim.seedTemplate('rbac-job', [{ name: 'JOB', required: true }], rbacObjects());
});
afterAll(async () => {
  await h.close();
});

function rbacObjects(): JsonObject[] {
  const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];
  const subjects = [{ kind: 'ServiceAccount', name: 'default', namespace: 'workers' }];
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${JOB}-config' }, data: { job: '${JOB}' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: '${JOB}-reader' }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: '${JOB}-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: '${JOB}-reader' },
      subjects,
    },
    { apiVersion: 'authorization.openshift.io/v1', kind: 'Role', metadata: { name: '${JOB}-legacy' }, rules },
    {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'RoleBinding',
      metadata: { name: '${JOB}-legacy' },
      roleRef: { name: '${JOB}-legacy', namespace: 'workers' },
      subjects,
    },
    // OpenShift 3.x spellings, which the server's processing puts into authorization.openshift.io.
    { apiVersion: 'v1', kind: 'Role', metadata: { name: '${JOB}-old' }, rules },
    {
      apiVersion: 'v1',
      kind: 'RoleBinding',
      metadata: { name: '${JOB}-view' },
      roleRef: { name: 'view' },
      subjects,
    },
  ];
}

const ENHANCE_YOUR_CALM = 0xb;
const OVER_H2 = globalThis.process.env.OTS_SIMULATOR_PROTOCOL !== 'http1';
const REFUSAL =
  'failed to create typed patch object (workers/stale-config; /v1, Kind=ConfigMap): .x: field not declared in schema';

/**
 * Create (after `disturb` on the same Connection), a replayed create that keeps every UID, get,
 * then delete and get from a new Connection.
 */
async function roundTrip(job: string, disturb: (api: ocp.Connection) => Promise<void> | void): Promise<void> {
  const params = { JOB: job };
  const refs = await (async () => {
    await using api = await h.connect({ onWarning: () => undefined });
    await disturb(api);
    const created = await ocp.create('rbac-job', params, { ...WORKER, api });
    h.sim.clearFaults();
    const again = await ocp.create('rbac-job', params, { ...WORKER, api });
    expect(again.map((r) => [r.name, r.uid, r.created])).toEqual(created.map((r) => [r.name, r.uid, false]));
    const read = await ocp.get('rbac-job', params, { ...WORKER, api });
    expect(read.map((o) => o.metadata?.uid)).toEqual(created.map((r) => r.uid));
    return created;
  })();
  expect(refs.every((r) => r.created && typeof r.uid === 'string')).toBe(true);
  await using fresh = await h.connect({ onWarning: () => undefined });
  const target = { namespace: WORKER.namespace, api: fresh };
  const deleted = await ocp.delete({ resources: refs, ...target });
  expect(deleted.map((r) => r.uid)).toEqual([...refs].reverse().map((r) => r.uid));
  expect(await ocp.get({ resources: refs, ...target, missing: 'null' })).toEqual(refs.map(() => null));
}

const unanswered = (): number => h.sim.log.filter((e) => e.method === 'PATCH' && e.status === 0).length;

test('through a GOAWAY with ENHANCE_YOUR_CALM on an apply (sent again over HTTP/2; HTTP/1.1 has no GOAWAY)', async () => {
  await roundTrip('calm', () => {
    h.sim.clearLog();
    if (OVER_H2)
      h.sim.addFault({ method: 'PATCH', nth: 3, action: { type: 'goaway', errorCode: ENHANCE_YOUR_CALM } });
  });
  expect(unanswered()).toBe(OVER_H2 ? 1 : 0);
});

test('after the server refused an apply as untyped: the root is read again, and the job round-trips', async () => {
  await roundTrip('stale', async (api) => {
    await ocp.create('rbac-job', { JOB: 'stale' }, { ...WORKER, api, dryRun: true });
    h.sim.addFault({
      method: 'PATCH',
      nth: 1,
      action: { type: 'status', code: 500, reason: '', message: REFUSAL },
    });
    // The schema-only path: the pre-flight would type the refused object again in the same create.
    const schemaOnly = { ...WORKER, api, dryRun: true, preflight: 'schema' } as const;
    const refused = instance(
      await rejection(ocp.create('rbac-job', { JOB: 'stale' }, schemaOnly)),
      ocp.OperationError,
    );
    expect(instance(refused.failures[0]?.error, ocp.RequestError).outcome).toBe('refused');
    h.sim.clearFaults();
    h.sim.clearLog();
  });
  const roots = h.sim.log.filter((e) => e.method === 'GET' && e.path === '/openapi/v3');
  // Read again once, by the create after the refusal; the replayed create types with that root.
  expect(roots).toHaveLength(1);
});
