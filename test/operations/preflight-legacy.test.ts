// Issue #42 item 7: the legacy authorization.openshift.io proxies pass dryRun on (since
// openshift-apiserver's release-4.5), so the POST that will create an absent legacy RoleBinding is
// dry-run in the wave in place of the apply that answered 404: what only that POST finds (a subject
// the proxy cannot convert) refuses the create before anything is written, as `'refused'`.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.sim.seedTemplate(
    'fancy-subject',
    [],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' }, data: { a: 'b' } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } },
      {
        apiVersion: 'authorization.openshift.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'fancy' },
        roleRef: { name: 'view' },
        // openshift-apiserver's rbacconversion knows User, Group, ServiceAccount and the System kinds.
        subjects: [{ kind: 'FancyUser', name: 'someone' }],
      },
    ],
  );
});
afterAll(async () => {
  await h.close();
});

test('a legacy RoleBinding whose subject the proxy cannot convert: refused in the wave, nothing written', async () => {
  h.sim.clearLog();
  const error = instance(await rejection(ocp.create('fancy-subject', {}, WORKER)), ocp.OperationError);
  expect([error.operation, error.code, error.outcome, error.resources]).toEqual([
    'Preflight',
    'OTC_PREFLIGHT_REFUSED',
    'refused',
    [],
  ]);
  expect(error.failures.map((f) => f.resource.name)).toEqual(['fancy']);
  const failure = instance(error.failures[0]?.error, ocp.RequestError);
  // A 500 the proxy's conversion answers; on a dry run nothing was stored, whatever the answer.
  expect([failure.step, failure.statusCode, failure.outcome]).toEqual(['Apply', 500, 'refused']);
  expect(failure.message).toContain('invalid kind for origin subject: "FancyUser"');
  // The processing POST, the three dry runs and the POST's dry run in the binding's place: no write.
  const mutations = h.sim.mutations().filter((e) => !e.path.endsWith('/processedtemplates'));
  expect(mutations.every((e) => e.query.dryRun === 'All')).toBe(true);
  expect(mutations.filter((e) => e.method === 'POST').map((e) => e.path)).toEqual([
    '/apis/authorization.openshift.io/v1/namespaces/workers/rolebindings',
  ]);
  expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'first')).toBeUndefined();
  expect(h.sim.getObject('v1', 'ServiceAccount', 'workers', 'runner')).toBeUndefined();
});
