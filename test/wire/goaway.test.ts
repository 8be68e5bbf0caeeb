// A GOAWAY with an error code (RFC 9113 section 6.8): streams above its last-stream-id were not
// processed, whatever the code, and are sent once more on a new connection; node:http2 destroys
// the session for an error code, so streams at or below the id fail and stay 'unknown'. HTTP/1.1
// has no such frame: there the server just closes the connection, and nothing is sent again.
// The faults hit the Secret's write (its second PATCH: create()'s pre-flight dry-runs it first),
// except where a dry run is the subject: a dry run whose connection was lost is sent once more.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, settles, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

const ENHANCE_YOUR_CALM = 0xb;
const INTERNAL_ERROR = 0x2;
const secretOf = (name: string): string => `/api/v1/namespaces/workers/secrets/${name}-credentials`;
/** The PATCHes of one path as the server answered them: `dry <status>` for a dry run. */
const attempts = (path: string): string[] =>
  h.sim.log
    .filter((e) => e.method === 'PATCH' && e.path === path)
    .map((e) => `${e.query.dryRun === 'All' ? 'dry ' : ''}${String(e.status)}`);

/** The job Secret's write (`nth` 2), or its dry run (`nth` 1), draws a GOAWAY with `errorCode`. */
function goAwayOn(name: string, errorCode: number, execute = false, nth = 2): void {
  h.sim.addFault({
    method: 'PATCH',
    path: secretOf(name),
    nth,
    action: { type: 'goaway', errorCode, execute },
  });
}

async function cleanUp(api: ocp.Connection, ...names: string[]): Promise<void> {
  h.sim.clearFaults();
  for (const name of names) await ocp.delete('worker-template', { VM_NAME: name }, { ...WORKER, api });
}

test('a stream above the last-stream-id of an ENHANCE_YOUR_CALM GOAWAY is sent once more on a new connection', async () => {
  await using api = await h.connect();
  await ocp.process('worker-template', { VM_NAME: 'calm' }, { ...WORKER, api });
  const overH2 = h.sim.stats().h2 > 0;
  const connections = h.sim.stats().connections;
  h.sim.clearLog();
  goAwayOn('calm', ENHANCE_YOUR_CALM);
  const job = ocp.create('worker-template', { VM_NAME: 'calm' }, { ...WORKER, api });
  if (overH2) {
    expect((await job).map((r) => r.name)).toEqual(['calm-config', 'calm-credentials', 'calm']);
    expect(attempts(secretOf('calm'))).toEqual(['dry 201', '0', '201']);
    expect(h.sim.stats().connections).toBe(connections + 1);
  } else {
    const failure = instance(await rejection(job), ocp.OperationError).failures[0]?.error;
    expect(instance(failure, ocp.RequestError).outcome).toBe('unknown');
    expect(attempts(secretOf('calm'))).toEqual(['dry 201', '0']);
  }
  await cleanUp(api, 'calm');
});

test('the stream at the last-stream-id of an INTERNAL_ERROR GOAWAY is not sent again: unknown', async () => {
  await using api = await h.connect();
  h.sim.clearLog();
  // The server handles the apply, then sends GOAWAY naming its stream as the last it processed.
  goAwayOn('inner', INTERNAL_ERROR, true);
  const error = instance(
    await rejection(ocp.create('worker-template', { VM_NAME: 'inner' }, { ...WORKER, api })),
    ocp.OperationError,
  );
  expect(error.resources.map((r) => r.name)).toEqual(['inner-config']);
  const failure = instance(error.failures[0]?.error, ocp.RequestError);
  expect([failure.outcome, failure.code]).toEqual(['unknown', 'OTC_CONNECTION_LOST']);
  expect(attempts(secretOf('inner'))).toEqual(['dry 201', '0']);
  // It was applied: 'unknown' was right to leave the decision to the caller.
  expect(h.sim.getObject('v1', 'Secret', 'workers', 'inner-credentials')).toBeDefined();
  await cleanUp(api, 'inner');
});

test('a dry run at the last-stream-id of an INTERNAL_ERROR GOAWAY is sent once more: it stored nothing', async () => {
  await using api = await h.connect();
  h.sim.clearLog();
  goAwayOn('inner-dry', INTERNAL_ERROR, true, 1);
  const refs = await ocp.create('worker-template', { VM_NAME: 'inner-dry' }, { ...WORKER, api });
  expect(refs.map((r) => r.name)).toEqual(['inner-dry-config', 'inner-dry-credentials', 'inner-dry']);
  expect(attempts(secretOf('inner-dry'))).toEqual(['dry 0', 'dry 201', '201']);
  await cleanUp(api, 'inner-dry');
});

test('of two streams in flight, only the one above the last-stream-id is sent again', async () => {
  await using api = await h.connect();
  await ocp.process('worker-template', { VM_NAME: 'below' }, { ...WORKER, api });
  const overH2 = h.sim.stats().h2 > 0;
  h.sim.clearLog();
  // The first job's apply is handled and held unanswered; the second's draws the GOAWAY.
  h.sim.addFault({
    method: 'PATCH',
    path: secretOf('below'),
    nth: 2,
    action: { type: 'hang', execute: true },
  });
  goAwayOn('above', ENHANCE_YOUR_CALM);
  const below = ocp.create('worker-template', { VM_NAME: 'below' }, { ...WORKER, api });
  below.catch(() => undefined);
  await settles(() => attempts(secretOf('below')).length, 2);
  const above = ocp.create('worker-template', { VM_NAME: 'above' }, { ...WORKER, api });
  if (overH2) {
    expect((await above).map((r) => r.name)).toEqual(['above-config', 'above-credentials', 'above']);
    expect(attempts(secretOf('above'))).toEqual(['dry 201', '0', '201']);
  } else {
    // HTTP/1.1 sends the two on two connections: closing one says nothing about the other.
    instance(await rejection(above), ocp.OperationError);
    h.sim.dropConnections();
  }
  const failure = instance(await rejection(below), ocp.OperationError).failures[0];
  expect(instance(failure?.error, ocp.RequestError).outcome).toBe('unknown');
  expect(attempts(secretOf('below'))).toEqual(['dry 201', '0']);
  await cleanUp(api, 'below', 'above');
});
