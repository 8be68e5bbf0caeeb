// #34 item 5 when kube-aggregator's merged /openapi/v3 root lags a CRD update (it re-reads
// kube-apiserver's own root every second, an aggregated server's every minute): the root read again
// after the server refused an apply as untyped still lists the document the refused body was typed
// with. So the refused group-version's document is read by its path without a hash, which its
// server answers with the schema it holds now; one such read per refusal.
import { afterEach, expect, test, vi } from 'vitest';
import * as ocp from '../../src/index.ts';
import { ROOT_MAX_AGE_MS } from '../../src/connection/openapi.ts';
import type { JsonObject, LogEntry } from '../../simulator/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection } from '../helpers.ts';
import { objectMutations } from './typing-helpers.ts';

const keep = closedAfterAll();
afterEach(() => {
  vi.useRealTimers();
});

const ROOT = '/openapi/v3';
const GROUP = 'lagging.example.com';
const DOCUMENT = `${ROOT}/apis/${GROUP}/v1`;
const OPTIONS = { namespace: 'workers', templateNamespace: 'infra' } as const;
const gets = (h: Harness, path: string): LogEntry[] =>
  h.sim.log.filter((e) => e.method === 'GET' && e.path === path);
/** The document read by its path alone: no `hash` in the query. */
const direct = (h: Harness): LogEntry[] => gets(h, DOCUMENT).filter((e) => e.query.hash === undefined);

const gadgetSchema = (spec: JsonObject): JsonObject => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: spec } },
});
const SIZE = { size: { type: 'integer' } };
const dropped = `unknown field ".spec.extra" removed from Gadget "g" in namespace "workers": the server's ${GROUP}/v1 schema does not declare it`;

/**
 * A simulator whose merged root lags a minute (an aggregated server's schedule), a Gadget CRD
 * whose spec declares `extra`, a create that types and applies it, then the CRD update that drops
 * `extra`, and the create the server refuses as untyped.
 */
async function refusedOnce(said: string[]): Promise<{ h: Harness; api: ocp.Connection }> {
  const h = keep(await harness({ openapiRootLagMs: 60_000 }));
  h.sim.addResource({
    group: GROUP,
    version: 'v1',
    plural: 'gadgets',
    kind: 'Gadget',
    schema: gadgetSchema({ ...SIZE, extra: { type: 'string' } }),
  });
  const gadget = { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' } };
  h.sim.seedTemplate('gadget', [], [{ ...gadget, spec: { size: 1, extra: 'x' } }]);
  const api = keep(await h.connect({ onWarning: (w) => said.push(w.text) }));
  await ocp.create('gadget', {}, { ...OPTIONS, api });
  h.sim.changeResourceSchema({ group: GROUP, version: 'v1', kind: 'Gadget', schema: gadgetSchema(SIZE) });
  // The schema-only path: the pre-flight would type the refused object again and save the create.
  const schemaOnly = { ...OPTIONS, api, preflight: 'schema' } as const;
  const error = instance(await rejection(ocp.create('gadget', {}, schemaOnly)), ocp.OperationError);
  expect(instance(error.failures[0]?.error, ocp.RequestError).message).toContain(
    'failed to create typed patch object',
  );
  h.sim.clearLog();
  return { h, api };
}

test('after a refusal, with the merged root still behind, Strict refuses the field before any write', async () => {
  const { h, api } = await refusedOnce([]);
  const error = instance(await rejection(ocp.create('gadget', {}, { ...OPTIONS, api })), ocp.ValidationError);
  expect(error.issues).toEqual([
    'Gadget "g" in namespace "workers": .spec.extra: field not declared in schema',
  ]);
  expect(objectMutations(h)).toEqual([]);
  // The root was read again, and still lists the old hash; the document came by its path alone.
  expect(gets(h, ROOT)).toHaveLength(1);
  expect(direct(h).map((e) => e.status)).toEqual([200]);
});

test('after a refusal, with the merged root still behind, Warn drops the field, and later creates too', async () => {
  const said: string[] = [];
  const { h, api } = await refusedOnce(said);
  const warn = { ...OPTIONS, api, fieldValidation: 'Warn' } as const;
  expect((await ocp.create('gadget', {}, warn)).map((r) => r.name)).toEqual(['g']);
  expect(said).toContain(dropped);
  // A later create on the Connection, the root still behind: typed with what was read directly,
  // which is not read again (one direct read per refusal).
  said.length = 0;
  expect((await ocp.create('gadget', {}, warn)).map((r) => r.name)).toEqual(['g']);
  expect(said).toContain(dropped);
  expect(direct(h)).toHaveLength(1);
  // Each create: its pre-flight's dry run, then its write.
  const writes = objectMutations(h).map(
    (e) => `${e.query.dryRun === undefined ? 'write' : 'dry run'} ${String(e.status)}`,
  );
  expect(writes).toEqual(['dry run 200', 'write 200', 'dry run 200', 'write 200']);
});

test('creates that start together after a refusal share the one direct read', async () => {
  const said: string[] = [];
  const { h, api } = await refusedOnce(said);
  const warn = { ...OPTIONS, api, fieldValidation: 'Warn' } as const;
  const both = await Promise.all([ocp.create('gadget', {}, warn), ocp.create('gadget', {}, warn)]);
  expect(both.map((refs) => refs.map((r) => r.name))).toEqual([['g'], ['g']]);
  expect(said.filter((text) => text === dropped)).toHaveLength(2);
  expect(direct(h)).toHaveLength(1);
});

test('a direct read that fails leaves the root to decide: the create goes on, and the server refuses it again', async () => {
  const { h, api } = await refusedOnce([]);
  h.sim.addFault({
    method: 'GET',
    path: new RegExp(`^${DOCUMENT.replaceAll('.', '\\.')}$`),
    times: 1,
    action: { type: 'status', code: 503, message: 'failover' },
  });
  const schemaOnly = { ...OPTIONS, api, preflight: 'schema' } as const;
  const error = instance(await rejection(ocp.create('gadget', {}, schemaOnly)), ocp.OperationError);
  expect(instance(error.failures[0]?.error, ocp.RequestError).message).toContain(
    'failed to create typed patch object',
  );
  expect(direct(h).map((e) => e.status)).toEqual([503]);
  // That refusal asks for one more direct read, which now succeeds.
  h.sim.clearLog();
  instance(await rejection(ocp.create('gadget', {}, { ...OPTIONS, api })), ocp.ValidationError);
  expect(direct(h).map((e) => e.status)).toEqual([200]);
  expect(objectMutations(h)).toEqual([]);
});

test('what was read directly gives way to the root once the root is a bound old', async () => {
  vi.useFakeTimers({ toFake: ['performance'] });
  const said: string[] = [];
  const { h, api } = await refusedOnce(said);
  const warn = { ...OPTIONS, api, fieldValidation: 'Warn' } as const;
  await ocp.create('gadget', {}, warn);
  // The CRD gets `extra` back: its document is the first one again, under the first hash, which
  // the lagging root still lists. Past the bound the Connection types with what the root lists.
  h.sim.changeResourceSchema({
    group: GROUP,
    version: 'v1',
    kind: 'Gadget',
    schema: gadgetSchema({ ...SIZE, extra: { type: 'string' } }),
  });
  vi.advanceTimersByTime(ROOT_MAX_AGE_MS + 1_000);
  said.length = 0;
  expect((await ocp.create('gadget', {}, warn)).map((r) => r.name)).toEqual(['g']);
  expect(said).not.toContain(dropped);
  expect(direct(h)).toHaveLength(1);
});
