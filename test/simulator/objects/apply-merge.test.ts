// Server-side apply merged by the schema's list and map types, as structured-merge-diff v6 merges
// on kube-apiserver 1.34: keyed lists item by item (containers by name, ports by containerPort
// and protocol, the protocol defaulted from the schema, env by name), sets by value, atomic
// structs (a LabelSelector, a RoleRef) owned whole. Every expected managedFields and message here
// is what the real tier (npm run cluster) answered to the same requests.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { apply, call } from '../client.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const DEPLOY = '/apis/apps/v1/namespaces/workers/deployments';
type Body = Record<string, unknown>;

function deployment(
  name: string,
  containers: Body[],
  extra: { selector?: Body; finalizers?: string[] } = {},
): Body {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
    spec: {
      selector: { matchLabels: extra.selector ?? { app: 'm' } },
      template: { metadata: { labels: { app: 'm' } }, spec: { containers } },
    },
  };
}

interface Entry {
  manager: string;
  fieldsV1: Body;
}
const owned = (json: Body): Record<string, Body> =>
  Object.fromEntries(
    (json.metadata as { managedFields: Entry[] }).managedFields.map((e) => [e.manager, e.fieldsV1]),
  );
const containersOf = (json: Body): Body[] =>
  ((json.spec as Body).template as { spec: { containers: Body[] } }).spec.containers;

/** The fields a manager owns in a Deployment whose selector and pod labels it applied. */
function deploymentFields(containers: Body, metadata?: Body): Body {
  return {
    ...(metadata ? { 'f:metadata': metadata } : {}),
    'f:spec': {
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': containers },
      },
    },
  };
}

const MAIN_BY_A = {
  '.': {},
  'f:name': {},
  'f:image': {},
  'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
  'f:env': { 'k:{"name":"X"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
};

test('two managers applying different items of keyed lists each keep theirs, keyed with the defaulted protocol', async () => {
  const name = 'merge-items';
  const first = await apply(
    sim,
    `${DEPLOY}/${name}`,
    deployment(name, [
      { name: 'main', image: 'i:1', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }] },
    ]),
    'a',
  );
  expect(first.status).toBe(201);
  expect(owned(first.json).a).toEqual(deploymentFields({ 'k:{"name":"main"}': MAIN_BY_A }));

  const second = await apply(
    sim,
    `${DEPLOY}/${name}`,
    deployment(name, [
      { name: 'side', image: 's:1' },
      {
        name: 'main',
        image: 'i:1',
        ports: [{ containerPort: 80, protocol: 'UDP' }],
        env: [{ name: 'Y', value: '2' }],
      },
    ]),
    'b',
  );
  expect(second.status).toBe(200);
  expect(containersOf(second.json)).toEqual([
    { name: 'side', image: 's:1' },
    {
      name: 'main',
      image: 'i:1',
      ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }],
      env: [
        { name: 'X', value: '1' },
        { name: 'Y', value: '2' },
      ],
    },
  ]);
  expect(owned(second.json)).toEqual({
    a: deploymentFields({ 'k:{"name":"main"}': MAIN_BY_A }),
    b: deploymentFields({
      'k:{"name":"side"}': { '.': {}, 'f:name': {}, 'f:image': {} },
      'k:{"name":"main"}': {
        '.': {},
        'f:name': {},
        'f:image': {},
        'f:ports': {
          'k:{"containerPort":80,"protocol":"UDP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
        },
        'f:env': { 'k:{"name":"Y"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
      },
    }),
  });
});

test('a conflict is per item: another env item applies, the owned one conflicts; an atomic struct conflicts whole', async () => {
  const name = 'merge-conflicts';
  const path = `${DEPLOY}/${name}`;
  const main = (env: Body[], image = 'i:1'): Body => ({ name: 'main', image, env });
  expect((await apply(sim, path, deployment(name, [main([{ name: 'X', value: '1' }])]), 'a')).status).toBe(
    201,
  );
  expect((await apply(sim, path, deployment(name, [main([{ name: 'Y', value: '2' }])]), 'b')).status).toBe(
    200,
  );

  const onItem = await apply(sim, path, deployment(name, [main([{ name: 'X', value: '2' }])]), 'b');
  expect(onItem.status).toBe(409);
  expect(onItem.json.message).toBe(
    'Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="main"].env[name="X"].value',
  );

  const whole = await apply(
    sim,
    path,
    deployment(name, [main([], 'i:2')], { selector: { app: 'm', x: 'y' } }),
    'c',
  );
  expect(whole.status).toBe(409);
  expect(whole.json.message).toBe(
    'Apply failed with 4 conflicts: conflicts with "a":\n- .spec.selector\n- .spec.template.spec.containers[name="main"].image\n' +
      'conflicts with "b":\n- .spec.selector\n- .spec.template.spec.containers[name="main"].image',
  );
});

test('an apply that drops an item it owned removes it; items another manager owns stay; sets merge by value', async () => {
  const name = 'merge-drops';
  const path = `${DEPLOY}/${name}`;
  const firstApply = deployment(name, [{ name: 'main', image: 'i:1', ports: [{ containerPort: 80 }] }], {
    finalizers: ['example.com/a'],
  });
  expect((await apply(sim, path, firstApply, 'a')).status).toBe(201);
  const both = deployment(name, [{ name: 'main', image: 'i:1', env: [{ name: 'Y', value: '2' }] }], {
    finalizers: ['example.com/b'],
  });
  const merged = await apply(sim, path, both, 'b');
  expect((merged.json.metadata as Body).finalizers).toEqual(['example.com/a', 'example.com/b']);
  expect(owned(merged.json).b?.['f:metadata']).toEqual({ 'f:finalizers': { 'v:"example.com/b"': {} } });

  const dropped = await apply(sim, path, deployment(name, [{ name: 'main', image: 'i:1' }]), 'b');
  expect(dropped.status).toBe(200);
  expect((dropped.json.metadata as Body).finalizers).toEqual(['example.com/a']);
  expect(containersOf(dropped.json)).toEqual([
    { name: 'main', image: 'i:1', ports: [{ containerPort: 80 }] },
  ]);
  expect(owned(dropped.json).b).toEqual(
    deploymentFields({ 'k:{"name":"main"}': { '.': {}, 'f:name': {}, 'f:image': {} } }),
  );

  // The last owner of an item drops it: the item goes.
  const alone = deployment(name, [{ name: 'main', image: 'i:1' }]);
  const gone = await apply(sim, path, alone, 'a');
  expect(containersOf(gone.json)).toEqual([{ name: 'main', image: 'i:1' }]);
  expect(gone.json.metadata as Body).not.toHaveProperty('finalizers');
});

test("a RoleBinding's roleRef is one field; its subjects list is atomic", async () => {
  const path = '/apis/rbac.authorization.k8s.io/v1/namespaces/workers/rolebindings/merge-binding';
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'merge-binding' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'view-things' },
    subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'workers' }],
  };
  const answer = await call(sim, 'PATCH', `${path}?fieldManager=a`, {
    body: binding,
    contentType: 'application/apply-patch+yaml',
  });
  expect(answer.status).toBe(201);
  expect(owned(answer.json).a).toEqual({ 'f:roleRef': {}, 'f:subjects': {} });
});

test('a null in an applied configuration is owned, as on a cluster, and not stored', async () => {
  const path = '/api/v1/namespaces/workers/configmaps/merge-nulls';
  const config = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'merge-nulls', creationTimestamp: null, labels: null },
    data: { a: null, b: 'x' },
  };
  const answer = await apply(sim, path, config, 'a');
  expect(answer.status).toBe(201);
  expect(owned(answer.json).a).toEqual({
    'f:data': { 'f:a': {}, 'f:b': {} },
    'f:metadata': { 'f:labels': {} },
  });
  expect(answer.json.data).toEqual({ b: 'x' });
});
