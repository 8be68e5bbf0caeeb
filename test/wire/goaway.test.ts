// A GOAWAY with an error code (RFC 9113 section 6.8): streams above its last-stream-id were not
// processed, whatever the code, and are sent once more on a new connection; node:http2 destroys
// the session for an error code, so streams at or below the id fail and stay 'unknown'. HTTP/1.1
// has no such frame: there the server just closes the connection, and nothing is sent again.
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
const attempts = (path: string): number[] =>
  h.sim.log.filter((e) => e.method === 'PATCH' && e.path === path).map((e) => e.status);

/** The first apply of the job's Secret draws a GOAWAY with `errorCode`. */
function goAwayOn(name: string, errorCode: number, execute = false): void {
  h.sim.addFault({
    method: 'PATCH',
    path: secretOf(name),
    nth: 1,
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
    expect(attempts(secretOf('calm'))).toEqual([0, 201]);
    expect(h.sim.stats().connections).toBe(connections + 1);
  } else {
    const failure = instance(await rejection(job), ocp.OperationError).failures[0]?.error;
    expect(instance(failure, ocp.RequestError).outcome).toBe('unknown');
    expect(attempts(secretOf('calm'))).toEqual([0]);
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
  expect(attempts(secretOf('inner'))).toEqual([0]);
  // It was applied: 'unknown' was right to leave the decision to the caller.
  expect(h.sim.getObject('v1', 'Secret', 'workers', 'inner-credentials')).toBeDefined();
  await cleanUp(api, 'inner');
});

test('of two streams in flight, only the one above the last-stream-id is sent again', async () => {
  await using api = await h.connect();
  await ocp.process('worker-template', { VM_NAME: 'below' }, { ...WORKER, api });
  const overH2 = h.sim.stats().h2 > 0;
  h.sim.clearLog();
  // The first job's apply is handled and held unanswered; the second's draws the GOAWAY.
  h.sim.addFault({ method: 'PATCH', path: secretOf('below'), action: { type: 'hang', execute: true } });
  goAwayOn('above', ENHANCE_YOUR_CALM);
  const below = ocp.create('worker-template', { VM_NAME: 'below' }, { ...WORKER, api });
  below.catch(() => undefined);
  await settles(() => attempts(secretOf('below')).length, 1);
  const above = ocp.create('worker-template', { VM_NAME: 'above' }, { ...WORKER, api });
  if (overH2) {
    expect((await above).map((r) => r.name)).toEqual(['above-config', 'above-credentials', 'above']);
    expect(attempts(secretOf('above'))).toEqual([0, 201]);
  } else {
    // HTTP/1.1 sends the two on two connections: closing one says nothing about the other.
    instance(await rejection(above), ocp.OperationError);
    h.sim.dropConnections();
  }
  const failure = instance(await rejection(below), ocp.OperationError).failures[0];
  expect(instance(failure?.error, ocp.RequestError).outcome).toBe('unknown');
  expect(attempts(secretOf('below'))).toEqual([0]);
  await cleanUp(api, 'below', 'above');
});
