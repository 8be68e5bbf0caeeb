// #34 item 5's direct read revalidates: after the server refuses an apply as untyped, the refused
// group-version's document is read by its path without a hash. Where the Connection already holds
// a document for that path under an ETag (handler3's ETag is its content hash), the read carries
// `If-None-Match` with it, and handler3 answers an unchanged document with a 304 and no body
// (http.ServeContent), so a repeated refusal costs a round trip, not the document again.
import { afterEach, expect, test, vi } from 'vitest';
import * as ocp from '../../src/index.ts';
import { ROOT_MAX_AGE_MS } from '../../src/connection/openapi.ts';
import type { JsonObject, LogEntry, SimulatorOptions } from '../../simulator/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection } from '../helpers.ts';
import { objectMutations } from '../operations/typing-helpers.ts';

const keep = closedAfterAll();
afterEach(() => {
  vi.useRealTimers();
});

const GROUP = 'revalidate.example.com';
const DOCUMENT = `/openapi/v3/apis/${GROUP}/v1`;
const OPTIONS = { namespace: 'workers', templateNamespace: 'infra' } as const;
const WARN = { ...OPTIONS, fieldValidation: 'Warn' } as const;
/** The document read by its path alone: no `hash` in the query. */
const direct = (h: Harness): LogEntry[] =>
  h.sim.log.filter((e) => e.method === 'GET' && e.path === DOCUMENT && e.query.hash === undefined);
const statuses = (entries: LogEntry[]): number[] => entries.map((e) => e.status);

const widgetSchema = (fields: readonly string[]): JsonObject => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: Object.fromEntries(fields.map((field) => [field, { type: 'string' }])),
    },
  },
});
const dropped = (field: string): string =>
  `unknown field ".spec.${field}" removed from Widget "w" in namespace "workers": the server's ${GROUP}/v1 schema does not declare it`;
/** The server's typing refusal as a fault: what a create typed with an older schema is answered. */
const REFUSAL = {
  method: 'PATCH',
  path: /\/widgets\/w$/,
  times: 1,
  action: {
    type: 'status',
    code: 500,
    reason: '',
    message: `failed to create typed patch object (workers/w; ${GROUP}/v1, Kind=Widget): .spec.x: field not declared in schema`,
  },
} as const;

interface World {
  h: Harness;
  api: ocp.Connection;
  said: string[];
  change(fields: readonly string[]): void;
}

/** A Widget CRD declaring `fields`, a Template whose Widget sets a, b and c, and a Connection. */
async function world(fields: readonly string[], options: SimulatorOptions = {}): Promise<World> {
  const h = keep(await harness(options));
  const kind = { group: GROUP, version: 'v1', kind: 'Widget' };
  h.sim.addResource({ ...kind, plural: 'widgets', schema: widgetSchema(fields) });
  const widget = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' } };
  h.sim.seedTemplate('widget', [], [{ ...widget, spec: { a: '1', b: '2', c: '3' } }]);
  const said: string[] = [];
  const api = keep(await h.connect({ onWarning: (w) => said.push(w.text) }));
  const change = (next: readonly string[]): void => {
    h.sim.changeResourceSchema({ ...kind, schema: widgetSchema(next) });
  };
  return { h, api, said, change };
}

async function refused(w: World, fieldValidation: ocp.FieldValidation = 'Warn'): Promise<void> {
  // The schema-only path: the pre-flight would type the refused object again and save the create.
  const options = { ...OPTIONS, fieldValidation, api: w.api, preflight: 'schema' } as const;
  const error = instance(await rejection(ocp.create('widget', {}, options)), ocp.OperationError);
  expect(instance(error.failures[0]?.error, ocp.RequestError).message).toContain(
    'failed to create typed patch object',
  );
}

async function created(w: World): Promise<void> {
  w.said.length = 0;
  expect((await ocp.create('widget', {}, { ...WARN, api: w.api })).map((r) => r.name)).toEqual(['w']);
}

test('a refusal while the document the root lists is unchanged: the direct read answers 304, nothing downloaded', async () => {
  const w = await world(['a', 'b', 'c']);
  await created(w);
  w.h.sim.addFault(REFUSAL);
  await refused(w);
  w.h.sim.clearLog();
  await created(w);
  // The one document read is the conditional one, answered without a body; the table the
  // Connection held types the create, which drops nothing.
  expect(statuses(direct(w.h))).toEqual([304]);
  expect(w.h.sim.log.filter((e) => e.path === DOCUMENT).map((e) => e.status)).toEqual([304]);
  expect(w.said.filter((text) => text.startsWith('unknown field'))).toEqual([]);
});

test('a second refusal behind a lagging root: the document read directly before is revalidated with a 304', async () => {
  const w = await world(['a', 'b', 'c'], { openapiRootLagMs: 60_000 });
  await created(w);
  w.change(['a', 'b']);
  await refused(w);
  w.h.sim.clearLog();
  await created(w);
  expect(w.said).toContain(dropped('c'));
  expect(statuses(direct(w.h))).toEqual([200]);
  // Another create typed with the old schema is refused (the fault stands for it): the next one
  // asks for the document read directly by its ETag, and keeps it.
  w.h.sim.addFault(REFUSAL);
  await refused(w);
  w.h.sim.clearLog();
  await created(w);
  expect(statuses(direct(w.h))).toEqual([304]);
  expect(w.said).toContain(dropped('c'));
});

test('a document changed since it was read directly is read in full, and types the next create', async () => {
  const w = await world(['a', 'b', 'c'], { openapiRootLagMs: 60_000 });
  await created(w);
  w.change(['a', 'b']);
  await refused(w);
  await created(w);
  // The CRD gets stricter again: the create typed with what was read directly is refused, and
  // the next read, conditional on that document's ETag, answers the new one.
  w.change(['a']);
  await refused(w);
  w.h.sim.clearLog();
  await created(w);
  expect(statuses(direct(w.h))).toEqual([200]);
  expect(w.said).toEqual(expect.arrayContaining([dropped('b'), dropped('c')]));
  expect(objectMutations(w.h).map((e) => e.status)).toEqual([200, 200]);
});

test('a 304 renews what was read directly: it still types past the bound from the first read', async () => {
  vi.useFakeTimers({ toFake: ['performance'] });
  const w = await world(['a', 'b', 'c'], { openapiRootLagMs: 60_000 });
  await created(w);
  w.change(['a', 'b']);
  await refused(w);
  await created(w);
  vi.advanceTimersByTime(ROOT_MAX_AGE_MS - 10_000);
  w.h.sim.addFault(REFUSAL);
  await refused(w);
  w.h.sim.clearLog();
  await created(w);
  expect(statuses(direct(w.h))).toEqual([304]);
  // Past the bound counted from the first read, within it from the 304: the root (which still
  // lists the first document) does not take over, and `c` is still dropped.
  vi.advanceTimersByTime(20_000);
  w.h.sim.clearLog();
  await created(w);
  expect(w.said).toContain(dropped('c'));
  expect(direct(w.h)).toEqual([]);
});

test("another Connection's refusal revalidates by the document the first one read directly: the process-wide cache's", async () => {
  const w = await world(['a', 'b', 'c'], { openapiRootLagMs: 60_000 });
  const other = keep(await w.h.connect({ onWarning: (x) => w.said.push(x.text) }));
  const second: World = { ...w, api: other };
  await created(w);
  await created(second);
  // The CRD gets stricter under both long-lived Connections: each is refused once. The first
  // reads the new document in full; the second asks by its ETag and gets a 304.
  w.change(['a', 'b']);
  await refused(w);
  w.h.sim.clearLog();
  await created(w);
  expect(statuses(direct(w.h))).toEqual([200]);
  await refused(second);
  w.h.sim.clearLog();
  await created(second);
  expect(statuses(direct(w.h))).toEqual([304]);
  expect(w.said).toContain(dropped('c'));
});
