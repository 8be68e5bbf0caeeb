// What the simulator warns about, in kube-apiserver's words and header form: deprecated APIs, and
// server-side apply's checks of the applied object (k8s.io/apiserver pkg/endpoints/handlers/patch.go).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apply, call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const CONFIGMAPS = '/api/v1/namespaces/workers/configmaps';

test('every DeploymentConfig request carries the OpenShift 4.14 deprecation warning', async () => {
  const path = '/apis/apps.openshift.io/v1/namespaces/workers/deploymentconfigs/dc';
  const created = await apply(sim, path, {
    apiVersion: 'apps.openshift.io/v1',
    kind: 'DeploymentConfig',
    metadata: { name: 'dc' },
    spec: { replicas: 1 },
  });
  expect(created.status).toBe(201);
  const warning =
    '299 - "apps.openshift.io/v1 DeploymentConfig is deprecated in v4.14+, unavailable in v4.10000+"';
  expect(created.warnings).toEqual([warning]);
  expect((await call(sim, 'GET', path)).warnings).toEqual([warning]);
  expect((await call(sim, 'GET', CONFIGMAPS)).warnings).toEqual([]);
});

test('every v1 Endpoints request carries the Kubernetes 1.33 deprecation warning, a 404 too', async () => {
  // KEP-4974 (kubernetes/enhancements keps/sig-network/4974-deprecate-endpoints): kube-apiserver
  // 1.33+ warns on every read and write of v1 Endpoints; the real tier answers exactly this.
  const endpoints = '/api/v1/namespaces/workers/endpoints';
  const warning = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
  const created = await apply(sim, `${endpoints}/ep`, {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'ep' },
  });
  expect([created.status, created.warnings]).toEqual([201, [warning]]);
  for (const [path, status] of [
    [`${endpoints}/ep`, 200],
    [endpoints, 200],
    [`${endpoints}/absent`, 404],
  ] as const) {
    const read = await call(sim, 'GET', path);
    expect([read.status, read.warnings]).toEqual([status, [warning]]);
  }
});

describe('server-side apply', () => {
  const duplicated =
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1","a":"2"}}';

  test('a field given twice is a warning by default and under Warn, nothing under Ignore', async () => {
    const expected = ['299 - "line 1: key \\"a\\" already set in map"'];
    expect((await apply(sim, `${CONFIGMAPS}/dup`, duplicated)).warnings).toEqual(expected);
    expect(
      (await apply(sim, `${CONFIGMAPS}/dup`, duplicated, 'tester', '&fieldValidation=Warn')).warnings,
    ).toEqual(expected);
    const ignored = await apply(sim, `${CONFIGMAPS}/dup`, duplicated, 'tester', '&fieldValidation=Ignore');
    expect([ignored.status, ignored.warnings]).toEqual([200, []]);
  });

  test('a field given twice is a 400 under Strict, in the YAML decoder words', async () => {
    const res = await apply(
      sim,
      `${CONFIGMAPS}/dup2`,
      duplicated.replace('"dup"', '"dup2"'),
      'tester',
      '&fieldValidation=Strict',
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      reason: 'BadRequest',
      message:
        'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "a" already set in map',
    });
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'dup2')).toBeUndefined();
  });

  test('a field the kind does not declare fails whatever fieldValidation says', async () => {
    for (const [extra, field] of [
      ['', '.dataa'],
      ['&fieldValidation=Ignore', '.dataa'],
    ] as const) {
      const res = await apply(
        sim,
        `${CONFIGMAPS}/typo`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typo' }, dataa: { a: '1' } },
        'tester',
        extra,
      );
      expect(res.status).toBe(500);
      // Not a Status error upstream: code 500 and no reason. The namespace and name are the
      // patch's own (apimachinery structuredmerge.go objectGVKNN): this body names no namespace.
      expect(res.json.reason).toBeUndefined();
      expect(res.json.message).toBe(
        `failed to create typed patch object (/typo; /v1, Kind=ConfigMap): ${field}: field not declared in schema`,
      );
    }
    const meta = await apply(sim, `${CONFIGMAPS}/typo`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'typo', labelz: { a: 'b' } },
    });
    expect(meta.json.message).toContain('.metadata.labelz: field not declared in schema');
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'typo')).toBeUndefined();
  });
});

test('an injected warn fault adds its header fields as given', async () => {
  sim.addFault({
    method: 'GET',
    path: CONFIGMAPS,
    action: { type: 'warn', headers: ['299 - "a", 299 - "b"', '199 x "c"'] },
  });
  expect((await call(sim, 'GET', CONFIGMAPS)).warnings).toEqual(['299 - "a", 299 - "b"', '199 x "c"']);
  sim.clearFaults();
});
