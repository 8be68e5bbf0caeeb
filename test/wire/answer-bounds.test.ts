// An answer that never ends is bounded twice: by the request's connect + read from its start (a
// body that keeps trickling in, each piece well within the read limit), and by the size cap (a
// body that pours in faster than any limit of time would stop it). Each fails with its own code;
// a write's outcome is unknown, a read's refused. The simulator's `endless-body` fault sends the
// headers and then whitespace for as long as the client reads.
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { report } from '../reliability/report.ts';

const keep = closedAfterAll();
let h: Harness;
beforeAll(async () => {
  h = keep(await harness());
});
beforeEach(() => {
  h.sim.clearFaults();
  h.sim.clearLog();
});

/** Each piece of the slow body comes well within the read limit; the whole never comes. */
const SLOW = { type: 'endless-body', bytes: 64, intervalMs: 50 } as const;
/** As fast as the client reads: 1 MiB at a time. */
const FAST = { type: 'endless-body', bytes: 1024 * 1024, intervalMs: 0 } as const;
const BOUND = { connect: 1_000, read: 500 } as const;
const TEMPLATE_PATH = '/apis/template.openshift.io/v1/namespaces/infra/templates/worker-template';

/** The request's own error inside create()'s OperationError, and how long create() took. */
async function failedWrite(
  api: ocp.Connection,
  name: string,
): Promise<{ error: ocp.RequestError; ms: number }> {
  const started = performance.now();
  const failure = instance(
    await rejection(ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    ocp.OperationError,
  );
  const ms = performance.now() - started;
  expect(failure.resources.map((r) => r.name)).toEqual([`${name}-config`]);
  return { error: instance(failure.failures[0]?.error, ocp.RequestError), ms };
}

/** Writes of the Secret that reached the server (dry runs aside). */
const secretWrites = (): number =>
  h.sim.log.filter(
    (e) => e.method === 'PATCH' && e.path.includes('/secrets/') && e.query.dryRun === undefined,
  ).length;

/** A row of docs/reliability.md's bounds table (`npm run reliability`). */
function record(protocol: string, what: string, error: ocp.RequestError, requests: number, ms: number): void {
  const result = `${error.code}, ${error.outcome}`;
  report('bounds', { protocol, what, result, requests, seconds: Math.round(ms / 100) / 10 });
}

describe.each([
  ['HTTP/2', true],
  ['HTTP/1.1', false],
] as const)('over %s', (protocol, http2) => {
  test('a read whose body never ends fails at connect + read with OTC_RESPONSE_TIMEOUT', async () => {
    const api = keep(await h.connect({ http2, requestTimeout: BOUND }));
    h.sim.addFault({ method: 'GET', path: TEMPLATE_PATH, action: SLOW });
    const started = performance.now();
    const error = instance(
      await rejection(ocp.process('worker-template', { VM_NAME: 'slow' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    const ms = performance.now() - started;
    // Bounded at 1,500 ms; the upper limit leaves room for a busy machine, never for an endless wait.
    expect(ms).toBeLessThan(10_000);
    expect([error.name, error.code, error.timeout, error.outcome, error.step]).toEqual([
      'TimeoutError',
      'OTC_RESPONSE_TIMEOUT',
      'request',
      'refused',
      'Get',
    ]);
    expect(error.message).toContain('no complete answer within 1500 ms');
    expect(h.sim.log.filter((e) => e.path === TEMPLATE_PATH)).toHaveLength(1);
    record(
      protocol,
      'process(), a GET whose body never ends (64 B each 50 ms), connect 1000 + read 500',
      error,
      1,
      ms,
    );
    // The Connection goes on.
    h.sim.clearFaults();
    expect(await ocp.process('worker-template', { VM_NAME: 'after' }, { ...WORKER, api })).toHaveLength(3);
  }, 30_000);

  test("a write whose answer never ends: OTC_RESPONSE_TIMEOUT, outcome 'unknown', not sent again", async () => {
    const api = keep(await h.connect({ http2, requestTimeout: BOUND }));
    // The Secret's second PATCH: its write, after the pre-flight's dry run passed.
    h.sim.addFault({ method: 'PATCH', path: /\/secrets\//, nth: 2, action: { ...SLOW, execute: true } });
    const { error, ms } = await failedWrite(api, `rt-${String(http2)}`);
    expect(ms).toBeLessThan(10_000);
    expect([error.name, error.code, error.outcome]).toEqual([
      'TimeoutError',
      'OTC_RESPONSE_TIMEOUT',
      'unknown',
    ]);
    expect(error.message).toContain('the mutation may or may not have been applied');
    expect(secretWrites()).toBe(1);
    record(
      protocol,
      "create(), the Secret's write answered without end (64 B each 50 ms), connect 1000 + read 500",
      error,
      secretWrites(),
      ms,
    );
  }, 30_000);

  test('a read whose body pours in without end fails at the size cap with OTC_RESPONSE_TOO_LARGE', async () => {
    // Limits of time far beyond what 64 MiB takes on loopback: the cap ends it, not a timer.
    const api = keep(await h.connect({ http2, requestTimeout: { connect: 10_000, read: 60_000 } }));
    h.sim.addFault({ method: 'GET', path: TEMPLATE_PATH, action: FAST });
    const started = performance.now();
    const error = instance(
      await rejection(ocp.process('worker-template', { VM_NAME: 'big' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    const ms = performance.now() - started;
    expect(ms).toBeLessThan(30_000);
    expect([error.name, error.code, error.outcome, error.step]).toEqual([
      'RequestError',
      'OTC_RESPONSE_TOO_LARGE',
      'refused',
      'Get',
    ]);
    expect(error.message).toContain('the answer passed 64 MiB');
    expect(h.sim.log.filter((e) => e.path === TEMPLATE_PATH)).toHaveLength(1);
    record(
      protocol,
      'process(), a GET whose body pours in without end (1 MiB at a time), connect 10000 + read 60000',
      error,
      1,
      ms,
    );
    h.sim.clearFaults();
    expect(await ocp.process('worker-template', { VM_NAME: 'after' }, { ...WORKER, api })).toHaveLength(3);
  }, 60_000);

  test("a write whose answer pours in without end: OTC_RESPONSE_TOO_LARGE, outcome 'unknown'", async () => {
    const api = keep(await h.connect({ http2, requestTimeout: { connect: 10_000, read: 60_000 } }));
    h.sim.addFault({ method: 'PATCH', path: /\/secrets\//, nth: 2, action: { ...FAST, execute: true } });
    const { error, ms } = await failedWrite(api, `tl-${String(http2)}`);
    expect(ms).toBeLessThan(30_000);
    expect([error.name, error.code, error.outcome]).toEqual([
      'RequestError',
      'OTC_RESPONSE_TOO_LARGE',
      'unknown',
    ]);
    expect(secretWrites()).toBe(1);
    record(
      protocol,
      "create(), the Secret's write answered without end (1 MiB at a time), connect 10000 + read 60000",
      error,
      secretWrites(),
      ms,
    );
  }, 60_000);
});
