// OpenShift 3.x-era Templates: OpenShift's own kinds written with a group-less `apiVersion: v1`.
// The server renders them into their groups (library-go pkg/template/templateprocessing/template.go,
// legacygroupification.OAPIToGroupifiedGVK), and the library applies what the server rendered: the
// whole life cycle works, replay included, while a `v1` kind nobody serves is still refused.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.sim.seedTemplate(
    'legacy-app',
    [
      { name: 'NAME', required: true },
      { name: 'BUILD_KIND', value: 'BuildConfig' },
    ],
    [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: '${NAME}' }, spec: { ports: [{ port: 8080 }] } },
      {
        apiVersion: 'v1',
        kind: 'Route',
        metadata: { name: '${NAME}' },
        spec: { to: { kind: 'Service', name: '${NAME}' } },
      },
      // One field besides the name: an object applied with its name only has no managedFields
      // entry (kube-apiserver drops empty ones), and a replay delete leaves it alone.
      {
        apiVersion: 'v1',
        kind: 'ImageStream',
        metadata: { name: '${NAME}' },
        spec: { lookupPolicy: { local: false } },
      },
      {
        apiVersion: 'v1',
        kind: '${BUILD_KIND}',
        metadata: { name: '${NAME}' },
        spec: { strategy: { type: 'Source' } },
      },
      {
        apiVersion: 'v1',
        kind: 'DeploymentConfig',
        metadata: { name: '${NAME}' },
        spec: { replicas: 1, selector: { app: '${NAME}' } },
      },
      {
        apiVersion: 'v1',
        kind: 'RoleBinding',
        metadata: { name: '${NAME}_view' },
        roleRef: { name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'default' }],
      },
    ],
  );
  h.sim.seedTemplate(
    'legacy-unknown',
    [],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine' } },
      { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'nobody-serves-me' } },
    ],
  );
});
afterAll(async () => {
  await h.close();
});

const EXPECTED = [
  'v1 Service',
  'route.openshift.io/v1 Route',
  'image.openshift.io/v1 ImageStream',
  'build.openshift.io/v1 BuildConfig',
  'apps.openshift.io/v1 DeploymentConfig',
  'authorization.openshift.io/v1 RoleBinding',
];

test('process, create, get, reference delete and replay delete of a 3.x Template', async () => {
  const params = { NAME: 'legacy' };
  {
    await using api = await h.connect();
    const rendered = await ocp.process('legacy-app', params, { ...WORKER, api });
    expect(rendered.map((o) => `${o.apiVersion ?? ''} ${o.kind ?? ''}`)).toEqual(EXPECTED);
    const refs = await ocp.create('legacy-app', params, { ...WORKER, api });
    expect(refs.map((r) => `${r.apiVersion} ${r.kind}`)).toEqual(EXPECTED);
    const live = await ocp.get('legacy-app', params, { ...WORKER, api });
    expect(live.map((o) => o.metadata?.uid)).toEqual(refs.map((r) => r.uid));
    expect(h.sim.getObject('apps.openshift.io/v1', 'DeploymentConfig', 'workers', 'legacy')).toBeDefined();
    // Reference mode: the saved refs, UIDs as preconditions.
    const deleted = await ocp.delete({ namespace: 'workers', resources: refs, api });
    expect(deleted).toHaveLength(EXPECTED.length);
    expect(h.sim.getObject('apps.openshift.io/v1', 'DeploymentConfig', 'workers', 'legacy')).toBeUndefined();
  }
  // Replay from a new Connection: create again, then delete by re-rendering the same inputs.
  {
    await using api = await h.connect();
    await ocp.create('legacy-app', params, { ...WORKER, api });
  }
  await using fresh = await h.connect();
  const replayed = await ocp.delete('legacy-app', params, { ...WORKER, api: fresh });
  expect(replayed.map((r) => `${r.apiVersion} ${r.kind}`)).toEqual([...EXPECTED].reverse());
  for (const expected of EXPECTED) {
    const [apiVersion = '', kind = ''] = expected.split(' ');
    const name = kind === 'RoleBinding' ? 'legacy_view' : 'legacy';
    expect(h.sim.getObject(apiVersion, kind, 'workers', name)).toBeUndefined();
  }
});

test('a v1 kind that no one serves is still refused by name before any mutation', async () => {
  await using api = await h.connect();
  h.sim.clearLog();
  const error = instance(
    await rejection(ocp.create('legacy-unknown', {}, { ...WORKER, api })),
    ocp.ValidationError,
  );
  expect(error.message).toContain('kind Widget in v1 is not served by the cluster');
  // Processing stores nothing; no apply was sent.
  expect(h.sim.mutations().map((e) => e.method)).toEqual(['POST']);
});
