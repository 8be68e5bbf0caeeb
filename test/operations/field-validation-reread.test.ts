// When create() reads the OpenAPI v3 root again, and what a failed or odd answer leaves behind: a
// failed re-read keeps the cached root, a 404 of the root is asked again before anything is applied
// untyped, and a document that answered "none" is not asked again on the same Connection.
import { afterAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject, LogEntry } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection } from '../helpers.ts';
import { outlast } from './typing-helpers.ts';

const opened: Harness[] = [];
afterAll(async () => {
  for (const h of opened) await h.close();
});
async function fresh(): Promise<Harness> {
  const h = await harness();
  opened.push(h);
  return h;
}

const ROOT = '/openapi/v3';
const gets = (h: Harness, path: string): LogEntry[] =>
  h.sim.log.filter((e) => e.method === 'GET' && e.path === path);
const OPTIONS = { namespace: 'workers', templateNamespace: 'infra' } as const;

function configMap(name: string, extra: JsonObject = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, ...extra };
}

test('a failed re-read of the root keeps the cached one: a Warn create still drops and applies', async () => {
  const h = await fresh();
  h.sim.seedTemplate('legacy', [], [configMap('legacy', { id: 'legacy' })]);
  await using api = await h.connect();
  const warn = { ...OPTIONS, api, fieldValidation: 'Warn' } as const;
  await ocp.create('legacy', {}, warn);
  await outlast();
  h.sim.addFault({
    method: 'GET',
    path: ROOT,
    times: 1,
    action: { type: 'status', code: 503, message: 'failover' },
  });
  h.sim.clearLog();
  const refs = await ocp.create('legacy', {}, warn);
  expect(refs.map((r) => r.name)).toEqual(['legacy']);
  expect(gets(h, ROOT)).toHaveLength(1);
  // The good root was not lost to the failure: a refusal still types against it.
  h.sim.seedTemplate('typo', [], [configMap('typo', { dta: {} })]);
  const error = instance(await rejection(ocp.create('typo', {}, { ...OPTIONS, api })), ocp.ValidationError);
  expect(error.issues).toEqual([
    'ConfigMap "typo" in namespace "workers": .dta: field not declared in schema',
  ]);
});

test('a 404 of the root is asked again before an object is applied untyped', async () => {
  const h = await fresh();
  h.sim.seedTemplate('clean', [], [configMap('clean')]);
  h.sim.seedTemplate('mixed', [], [configMap('good'), configMap('bad', { id: 'bad' })]);
  h.sim.addFault({
    method: 'GET',
    path: ROOT,
    times: 1,
    action: { type: 'status', code: 404, message: 'gone' },
  });
  const said: string[] = [];
  await using api = await h.connect({ onWarning: (w) => said.push(w.text) });
  await ocp.create('clean', {}, { ...OPTIONS, api });
  expect(said).toEqual([expect.stringContaining('applied without being typed first')]);
  await outlast();
  const error = instance(await rejection(ocp.create('mixed', {}, { ...OPTIONS, api })), ocp.ValidationError);
  expect(error.issues).toEqual(['ConfigMap "bad" in namespace "workers": .id: field not declared in schema']);
  expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'good')).toBeUndefined();
});

test('a document that answered "none" is not asked for again on the Connection', async () => {
  const h = await fresh();
  const path = `${ROOT}/apis/kubevirt.io/v1`;
  h.sim.addFault({
    method: 'GET',
    path: new RegExp(`^${path.replaceAll('.', '\\.')}$`),
    action: { type: 'raw', code: 200, contentType: 'application/json', body: '' },
  });
  const said: string[] = [];
  await using api = await h.connect({ onWarning: (w) => said.push(w.text) });
  for (const name of ['n-1', 'n-2', 'n-3'])
    await ocp.create('worker-template', { VM_NAME: name }, { ...OPTIONS, api });
  expect(gets(h, path)).toHaveLength(1);
  expect(said.filter((t) => t.includes('kubevirt.io/v1 objects are applied without'))).toEqual([
    "kubevirt.io/v1 objects are applied without being typed first: the server's OpenAPI v3 document for kubevirt.io/v1 answered an empty 200",
  ]);
});
