// metadata.managedFields as kube-apiserver writes them: one entry per manager, operation,
// apiVersion and subresource, status writes recorded against the status subresource, entries in
// the server's order (k8s.io/apimachinery pkg/util/managedfields/internal).
import { afterAll, beforeAll, expect, test } from 'vitest';
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
const MERGE = 'application/merge-patch+json';

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: unknown;
}
const entries = (json: Record<string, unknown>): Entry[] =>
  (json.metadata as { managedFields: Entry[] }).managedFields;
const summary = (json: Record<string, unknown>): unknown[] =>
  entries(json).map((e) => [e.manager, e.operation, e.subresource ?? null, e.fieldsV1]);

test('a status write is an Update entry of the status subresource; the main entries keep theirs', async () => {
  const vm = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: 'status-owner' },
    spec: { runStrategy: 'Halted', template: { spec: {} } },
  };
  expect((await call(sim, 'POST', `${VM}?fieldManager=creator`, { body: vm })).status).toBe(201);
  const patched = await call(sim, 'PATCH', `${VM}/status-owner/status?fieldManager=virt-controller`, {
    body: { status: { ready: true } },
    contentType: MERGE,
  });
  expect(patched.status).toBe(200);
  const [main, status] = entries(patched.json);
  expect(main).toMatchObject({ manager: 'creator', operation: 'Update' });
  expect(main).not.toHaveProperty('subresource');
  expect(status).toMatchObject({
    manager: 'virt-controller',
    operation: 'Update',
    subresource: 'status',
    fieldsV1: { 'f:status': { 'f:ready': {} } },
  });
});

test('merge patches by one manager keep one entry, owning the union of what they touched', async () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one-entry' }, data: { a: '1' } };
  expect((await call(sim, 'POST', `${CM}?fieldManager=creator`, { body: cm })).status).toBe(201);
  for (const data of [{ b: '2' }, { c: '3' }]) {
    const answer = await call(sim, 'PATCH', `${CM}/one-entry?fieldManager=patcher`, {
      body: { data },
      contentType: MERGE,
    });
    expect(answer.status).toBe(200);
  }
  const stored = sim.getObject('v1', 'ConfigMap', 'workers', 'one-entry') ?? {};
  expect(summary(stored)).toEqual([
    // kube-apiserver 1.34 (the real tier): the create added the map itself, so it is a member too.
    ['creator', 'Update', null, { 'f:data': { '.': {}, 'f:a': {} } }],
    ['patcher', 'Update', null, { 'f:data': { 'f:b': {}, 'f:c': {} } }],
  ]);
});

test('entries are in the server order: Apply before Update, whatever came first', async () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ordered' }, data: { a: '1' } };
  expect((await call(sim, 'POST', `${CM}?fieldManager=kubectl-create`, { body: cm })).status).toBe(201);
  const applied = await call(sim, 'PATCH', `${CM}/ordered?fieldManager=mini-scheduler`, {
    body: { ...cm, data: { b: '2' } },
    contentType: 'application/apply-patch+yaml',
  });
  expect(applied.status).toBe(200);
  expect(entries(applied.json).map((e) => [e.manager, e.operation])).toEqual([
    ['mini-scheduler', 'Apply'],
    ['kubectl-create', 'Update'],
  ]);
});

test("a create adds every map of a custom resource, but not a built-in kind's structs", async () => {
  const vm = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: 'added-maps', labels: { x: 'y' } },
    spec: {
      runStrategy: 'Halted',
      template: { metadata: { labels: { a: 'b' } }, spec: { domain: { devices: {} } } },
    },
  };
  const created = await call(sim, 'POST', `${VM}?fieldManager=creator`, { body: vm });
  expect(created.status).toBe(201);
  // As kube-apiserver 1.34 records it (the real tier): a custom resource is a plain map there.
  expect(summary(created.json)).toEqual([
    [
      'creator',
      'Update',
      null,
      {
        'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } },
        'f:spec': {
          '.': {},
          'f:runStrategy': {},
          'f:template': {
            '.': {},
            'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:a': {} } },
            'f:spec': { '.': {}, 'f:domain': { '.': {}, 'f:devices': {} } },
          },
        },
      },
    ],
  ]);
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'added-maps' },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'main', image: 'x' }] } },
    },
  };
  const path = '/apis/apps/v1/namespaces/workers/deployments?fieldManager=creator';
  const built = await call(sim, 'POST', path, { body: deployment });
  expect(built.status).toBe(201);
  expect(summary(built.json)).toEqual([
    [
      'creator',
      'Update',
      null,
      {
        'f:spec': {
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
            'f:spec': {
              'f:containers': {
                '.': {},
                'k:{"name":"main"}': { '.': {}, 'f:name': {}, 'f:image': {} },
              },
            },
          },
        },
      },
    ],
  ]);
});
