// Issue #42 item 11: a dry run the server refuses as untyped (rule 22: a 500 "failed to create
// typed patch object", the body typed with a schema older than the server's) is typed once more
// against the server's current document and sent once more, never more than once, so the very
// create that met a stricter schema drops the field with a warning under Warn, or refuses naming
// it under Strict, instead of failing and leaving it to the next create. The merged root lags a
// minute here (an aggregated server's schedule): the document comes by its own path.
import { expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject, LogEntry } from '../../simulator/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { objectMutations } from './typing-helpers.ts';

const keep = closedAfterAll();
const GROUP = 'retype.example.com';
const GADGET = { group: GROUP, version: 'v1', kind: 'Gadget' };
const gadgetSchema = (spec: JsonObject): JsonObject => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: spec } },
});
const SIZE = { size: { type: 'integer' } };
const dropped = `unknown field ".spec.extra" removed from Gadget "g" in namespace "workers": the server's ${GROUP}/v1 schema does not declare it`;
const patches = (h: Harness, name: string): string[] =>
  objectMutations(h)
    .filter((e: LogEntry) => e.path.endsWith(`/${name}`))
    .map((e) => `${e.query.dryRun === undefined ? 'write' : 'dry run'} ${String(e.status)}`);

/**
 * A Connection that typed and created a Gadget whose spec sets `extra`, a ConfigMap before it in
 * the Template, and then the CRD update that drops `extra`: the Connection's root still lists the
 * document that declares it.
 */
async function stricterSchema(said: string[]): Promise<{ h: Harness; api: ocp.Connection }> {
  const h = keep(await harness({ openapiRootLagMs: 60_000 }));
  h.sim.addResource({
    ...GADGET,
    plural: 'gadgets',
    schema: gadgetSchema({ ...SIZE, extra: { type: 'string' } }),
  });
  h.sim.seedTemplate(
    'gadget',
    [],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' }, data: { a: 'b' } },
      { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1, extra: 'x' } },
    ],
  );
  const api = keep(await h.connect({ onWarning: (w) => said.push(w.text) }));
  await ocp.create('gadget', {}, { ...WORKER, api, fieldValidation: 'Warn' });
  await ocp.delete('gadget', {}, { ...WORKER, api });
  h.sim.changeResourceSchema({ ...GADGET, schema: gadgetSchema(SIZE) });
  h.sim.clearLog();
  said.length = 0;
  return { h, api };
}

test('Warn: the create the server refused as untyped types again, drops the field with a warning, and is written', async () => {
  const said: string[] = [];
  const { h, api } = await stricterSchema(said);
  const refs = await ocp.create('gadget', {}, { ...WORKER, api, fieldValidation: 'Warn' });
  expect(refs.map((r) => [r.name, r.created])).toEqual([
    ['before', true],
    ['g', true],
  ]);
  expect(said).toEqual([dropped]);
  // The refused dry run, the one sent again after typing, then the write; the document by its path.
  expect(patches(h, 'g')).toEqual(['dry run 500', 'dry run 201', 'write 201']);
  expect(h.sim.log.filter((e) => e.path === `/openapi/v3/apis/${GROUP}/v1` && !e.query.hash)).toHaveLength(1);
  const stored = h.sim.getObject(`${GROUP}/v1`, 'Gadget', 'workers', 'g');
  expect(stored?.spec).toEqual({ size: 1 });
});

test('Strict: the same create refuses naming the field, before anything is written', async () => {
  const { h, api } = await stricterSchema([]);
  const error = instance(await rejection(ocp.create('gadget', {}, { ...WORKER, api })), ocp.ValidationError);
  expect(error.issues).toEqual([
    'Gadget "g" in namespace "workers": .spec.extra: field not declared in schema',
  ]);
  expect(patches(h, 'g')).toEqual(['dry run 500']);
  expect(objectMutations(h).filter((e) => e.query.dryRun === undefined)).toEqual([]);
});

test('typed and sent once more, never twice: a server that keeps refusing refuses the pre-flight', async () => {
  const { h, api } = await stricterSchema([]);
  h.sim.addFault({
    method: 'PATCH',
    path: /\/gadgets\/g$/,
    action: {
      type: 'status',
      code: 500,
      reason: '',
      message: `failed to create typed patch object (workers/g; ${GROUP}/v1, Kind=Gadget): .spec.size: expected numeric, got string`,
    },
  });
  try {
    const error = instance(
      await rejection(ocp.create('gadget', {}, { ...WORKER, api, fieldValidation: 'Warn' })),
      ocp.OperationError,
    );
    expect([error.operation, error.outcome, error.resources]).toEqual(['Preflight', 'refused', []]);
    expect(error.failures.map((f) => [f.resource.name, f.error.statusCode])).toEqual([['g', 500]]);
    expect(patches(h, 'g')).toEqual(['dry run 500', 'dry run 500']);
    expect(objectMutations(h).filter((e) => e.query.dryRun === undefined)).toEqual([]);
  } finally {
    h.sim.clearFaults();
  }
});

test('a deferred dry run refused as untyped right before its write is typed and sent once more too', async () => {
  // Everything in workers but RBAC's bind and escalate: the RoleBinding waits for its Role.
  const all = ['get', 'list', 'create', 'update', 'patch', 'delete'];
  const rules = [
    { verbs: ['get'], apiGroups: ['template.openshift.io'], resources: ['templates'], namespaces: ['infra'] },
    { verbs: all, apiGroups: ['*'], resources: ['*'], namespaces: ['workers'] },
  ];
  const h = keep(await harness({ tokens: { 'namespace-admin-token': { user: 'namespace-admin', rules } } }));
  const api = keep(await h.connect({ context: 'namespace-admin' }));
  const rbac = 'rbac.authorization.k8s.io/v1';
  h.sim.seedTemplate(
    'rbac',
    [],
    [
      {
        apiVersion: rbac,
        kind: 'Role',
        metadata: { name: 'reader' },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
      },
      {
        apiVersion: rbac,
        kind: 'RoleBinding',
        metadata: { name: 'read' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'default' }],
      },
    ],
  );
  // The binding's second dry run, the deferred one after the Role is written, meets the refusal.
  h.sim.addFault({
    method: 'PATCH',
    path: /\/rolebindings\/read$/,
    nth: 2,
    action: {
      type: 'status',
      code: 500,
      reason: '',
      message:
        'failed to create typed patch object (workers/read; rbac.authorization.k8s.io/v1, Kind=RoleBinding): .x: field not declared in schema',
    },
  });
  h.sim.clearLog();
  const refs = await ocp.create('rbac', {}, { ...WORKER, api });
  expect(refs.map((r) => [r.name, r.created])).toEqual([
    ['reader', true],
    ['read', true],
  ]);
  expect(patches(h, 'read')).toEqual(['dry run 404', 'dry run 500', 'dry run 201', 'write 201']);
});
