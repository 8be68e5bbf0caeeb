// When create() reads the OpenAPI v3 root again, and what a failed or odd answer leaves behind: a
// failed re-read keeps the cached root, a 404 of the root is asked again before anything is applied
// untyped, a document that answered "none" is not asked for again until the root is read again,
// and a root that may be older than the server's schema (the server refused an apply as untyped,
// or the root passed its age bound) is read again before the next create types anything.
import { afterEach, expect, test, vi } from 'vitest';
import * as ocp from '../../src/index.ts';
import { ROOT_MAX_AGE_MS } from '../../src/connection/openapi.ts';
import type { FaultAction, JsonObject, LogEntry } from '../../simulator/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection } from '../helpers.ts';
import { outlast } from './typing-helpers.ts';

const keep = closedAfterAll();
const fresh = async (): Promise<Harness> => keep(await harness());

const ROOT = '/openapi/v3';
const gets = (h: Harness, path: string): LogEntry[] =>
  h.sim.log.filter((e) => e.method === 'GET' && e.path === path);
const OPTIONS = { namespace: 'workers', templateNamespace: 'infra' } as const;

/** kubevirt.io/v1's document answers `action` (`times` times, default always); returns its path. */
function documentAnswers(h: Harness, action: FaultAction, times?: number): string {
  const path = `${ROOT}/apis/kubevirt.io/v1`;
  const pattern = new RegExp(`^${path.replaceAll('.', '\\.')}$`);
  h.sim.addFault({ method: 'GET', path: pattern, action, ...(times === undefined ? {} : { times }) });
  return path;
}

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

test('a document that answered "none" is not asked for again until the root is read again', async () => {
  const h = await fresh();
  const path = documentAnswers(h, { type: 'raw', code: 200, contentType: 'application/json', body: '' });
  const said: string[] = [];
  await using api = await h.connect({ onWarning: (w) => said.push(w.text) });
  for (const name of ['n-1', 'n-2', 'n-3'])
    await ocp.create('worker-template', { VM_NAME: name }, { ...OPTIONS, api });
  // Each read of the root may ask once more (a create that misses reads it again past 500 ms).
  expect(gets(h, path).length).toBeGreaterThanOrEqual(1);
  expect(gets(h, path).length).toBeLessThanOrEqual(gets(h, ROOT).length);
  expect(said.filter((t) => t.includes('kubevirt.io/v1 objects are applied without'))).toEqual([
    "kubevirt.io/v1 objects are applied without being typed first: the server's OpenAPI v3 document for kubevirt.io/v1 answered an empty 200",
  ]);
});

test('a document that answered 404 once is asked again when the root is read again', async () => {
  const h = await fresh();
  const path = documentAnswers(h, { type: 'status', code: 404, reason: 'NotFound', message: 'not yet' }, 1);
  await using api = await h.connect({ onWarning: () => undefined });
  await ocp.create('worker-template', { VM_NAME: 'a-1' }, { ...OPTIONS, api });
  await outlast();
  // Under Warn an untyped group-version is refused: the create succeeds only if it was typed.
  await ocp.create('worker-template', { VM_NAME: 'a-2' }, { ...OPTIONS, api, fieldValidation: 'Warn' });
  expect(gets(h, path).map((e) => e.status)).toEqual([404, 200]);
});

const GROUP = 'stricter.example.com';
const gadgetSchema = (spec: JsonObject): JsonObject => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: spec } },
});
const SIZE = { size: { type: 'integer' } };

/** A Gadget CRD whose spec declares `extra`, a Template that sets it, and one create that types it. */
async function gadgetCreated(h: Harness, said: string[]): Promise<ocp.Connection> {
  h.sim.addResource({
    group: GROUP,
    version: 'v1',
    plural: 'gadgets',
    kind: 'Gadget',
    schema: gadgetSchema({ ...SIZE, extra: { type: 'string' } }),
  });
  const gadget = { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' } };
  h.sim.seedTemplate('gadget', [], [{ ...gadget, spec: { size: 1, extra: 'x' } }]);
  const api = await h.connect({ onWarning: (w) => said.push(w.text) });
  await ocp.create('gadget', {}, { ...OPTIONS, api });
  // The CRD update drops `extra`: the Connection's root still lists the document that declares it.
  h.sim.changeResourceSchema({ group: GROUP, version: 'v1', kind: 'Gadget', schema: gadgetSchema(SIZE) });
  return api;
}

const dropped = `unknown field ".spec.extra" removed from Gadget "g" in namespace "workers": the server's ${GROUP}/v1 schema does not declare it`;

test('after the server refuses an apply as untyped, the next create reads the root again and Warn drops the field', async () => {
  const h = await fresh();
  const said: string[] = [];
  await using api = await gadgetCreated(h, said);
  const warn = { ...OPTIONS, api, fieldValidation: 'Warn' } as const;
  // The schema-only path: the pre-flight would type the refused object again and save the create
  // (test/operations/preflight-retype.test.ts).
  const error = instance(
    await rejection(ocp.create('gadget', {}, { ...warn, preflight: 'schema' })),
    ocp.OperationError,
  );
  // The server refuses its write: the only object, so nothing was written.
  expect(error.operation).toBe('Apply');
  const failure = instance(error.failures[0]?.error, ocp.RequestError);
  expect(failure.message).toContain('failed to create typed patch object');
  expect(failure.outcome).toBe('refused');
  h.sim.clearLog();
  // No wait: the refusal, not the age of the root, is why it is read again.
  expect((await ocp.create('gadget', {}, warn)).map((r) => r.name)).toEqual(['g']);
  expect(gets(h, ROOT)).toHaveLength(1);
  expect(said).toContain(dropped);
  // The pre-flight's dry run and the write, both typed with the root read again.
  expect(h.sim.log.filter((e) => e.method === 'PATCH').map((e) => [e.query.dryRun, e.status])).toEqual([
    ['All', 200],
    [undefined, 200],
  ]);
});

afterEach(() => {
  vi.useRealTimers();
});

test('a root older than its age bound is read again before a create types with it', async () => {
  const h = await fresh();
  const said: string[] = [];
  h.sim.seedTemplate('plain', [], [configMap('plain')]);
  // Only performance.now() is faked: the sockets and the simulator keep real time.
  vi.useFakeTimers({ toFake: ['performance'] });
  await using api = await gadgetCreated(h, said);
  h.sim.clearLog();
  // Younger than the bound: the cached root stands.
  vi.advanceTimersByTime(ROOT_MAX_AGE_MS - 1_000);
  await ocp.create('plain', {}, { ...OPTIONS, api });
  expect(gets(h, ROOT)).toHaveLength(0);
  vi.advanceTimersByTime(2_000);
  expect(
    (await ocp.create('gadget', {}, { ...OPTIONS, api, fieldValidation: 'Warn' })).map((r) => r.name),
  ).toEqual(['g']);
  expect(gets(h, ROOT)).toHaveLength(1);
  expect(said).toContain(dropped);
});
