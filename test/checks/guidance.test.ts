// Errors and warnings that tell a newcomer what to do: a delete that found nothing says why, a
// required parameter is named before anything is processed, a misspelled one gets the likely name.
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const MISSING_NAMESPACE =
  'namespace "worker" does not exist, so no object of Template "worker-template" can exist there; nothing was deleted';

test('a delete into a namespace that does not exist returns [] and says so through onWarning', async () => {
  const seen: ocp.ServerWarning[] = [];
  const deleted = await ocp.delete(
    'worker-template',
    { VM_NAME: 'w1' },
    { namespace: 'worker', templateNamespace: 'infra', api, onWarning: (w) => seen.push(w) },
  );
  expect(deleted).toEqual([]);
  expect(seen).toEqual([{ text: MISSING_NAMESPACE, code: 'OTC_NAMESPACE_ABSENT', operation: 'delete' }]);
});

test('without a handler, the same delete is a process warning naming the namespace', async () => {
  const emitted: string[] = [];
  const listen = (warning: Error): void => {
    if (warning.name === 'ServerWarning') emitted.push(warning.message);
  };
  process.on('warning', listen);
  try {
    await using own = await h.connect();
    await ocp.delete(
      'worker-template',
      { VM_NAME: 'w1' },
      { namespace: 'worker', templateNamespace: 'infra', api: own },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(emitted).toEqual([MISSING_NAMESPACE]);
  } finally {
    process.off('warning', listen);
  }
});

test('every required parameter without a value is named at once, before any processing request', async () => {
  h.sim.seedTemplate(
    'needs-two',
    [
      { name: 'FIRST', required: true },
      { name: 'SECOND', required: true, value: '' },
      { name: 'DEFAULTED', required: true, value: 'ok' },
      { name: 'OPTIONAL' },
    ],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x-${FIRST}-${SECOND}' } }],
  );
  const error = instance(
    await rejection(ocp.process('needs-two', {}, { ...WORKER, api })),
    ocp.ValidationError,
  );
  expect(error.issues).toEqual([
    'parameter FIRST is required by the Template and has no value: give it one',
    'parameter SECOND is required by the Template and has no value: give it one',
  ]);
  expect(h.sim.log.map((e) => e.method)).toEqual(['GET']);
  // Given, they render.
  expect(await ocp.process('needs-two', { FIRST: 'a', SECOND: 'b' }, { ...WORKER, api })).toHaveLength(1);
});

test("a misspelled parameter gets the declared name it most likely meant, and the Template's list", async () => {
  const error = instance(
    await rejection(ocp.create('worker-template', { VMNAME: 'w1' }, { ...WORKER, api })),
    ocp.ValidationError,
  );
  expect(error.issues).toEqual([
    'parameter "VMNAME" is not declared by the Template; did you mean VM_NAME? (it declares VM_NAME, IMAGE_TAG, MEMORY, API_KEY)',
    'parameter VM_NAME is required by the Template and has no value: give it one',
  ]);
  expect(h.sim.mutations()).toEqual([]);
});

test('a Template not found where templateNamespace defaulted to namespace says so', async () => {
  const error = instance(
    await rejection(ocp.process('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api })),
    ocp.RequestError,
  );
  expect(error.statusCode).toBe(404);
  expect(error.message).toBe(
    'Get Template "worker-template" in namespace "workers": 404 NotFound: templates.template.openshift.io "worker-template" not found; ' +
      'templateNamespace was not given, so the Template was looked up in the target namespace "workers"',
  );
});

test('a missing namespace says it is required, and why the context namespace is not used', async () => {
  const error = instance(
    await rejection(ocp.process('worker-template', { VM_NAME: 'w1' }, { api } as never)),
    ocp.ValidationError,
  );
  expect(error.issues[0]).toMatch(
    /^namespace is required: .*the kubeconfig context's namespace is deliberately not used/,
  );
});
