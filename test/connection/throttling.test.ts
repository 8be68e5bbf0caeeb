// 429 storms on one path. A request's waits for Retry-After are bounded by its own connect + read:
// a wait that would end past it ends the request at once, as OTC_THROTTLED with the count of 429s
// and the last Retry-After. A caller whose wait for a shared request (discovery, the OpenAPI root)
// ends while that request is being throttled says so too, not that it timed out.
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

const STORM = { type: 'too-many-requests', retryAfterSeconds: 1 } as const;
/** Every 429 asks for 1 s; the bound is 2 s: one wait fits, the next would end past it. */
const TIGHT = { connect: 1_000, read: 1_000 } as const;

/** Rejects with what `work` failed with, and how long it took. */
async function timed(work: Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = performance.now();
  const error = await rejection(work);
  return { error, ms: performance.now() - started };
}

/** A row of docs/reliability.md's bounds table (`npm run reliability`). */
function record(protocol: string, what: string, error: ocp.RequestError, requests: number, ms: number): void {
  const result = `${error.code}, ${error.outcome}`;
  report('bounds', { protocol, what, result, requests, seconds: Math.round(ms / 100) / 10 });
}

/** Requests the server saw for `path`. */
const seen = (path: string | RegExp): number =>
  h.sim.log.filter((e) => (typeof path === 'string' ? e.path === path : path.test(e.path))).length;

describe.each([
  ['HTTP/2', true],
  ['HTTP/1.1', false],
] as const)('over %s', (protocol, http2) => {
  test('429s on every write: the wait that would pass connect + read ends the request at once', async () => {
    const api = keep(await h.connect({ http2 }));
    h.sim.addFault({ method: 'PATCH', path: /\/configmaps\//, action: STORM });
    const { error, ms } = await timed(
      ocp.create(
        'worker-template',
        { VM_NAME: `storm-${String(http2)}` },
        { ...WORKER, api, requestTimeout: TIGHT },
      ),
    );
    // Two attempts and one wait of 1 s; without the bound, ten waits of 1 s each.
    expect(ms).toBeLessThan(8_000);
    const failure = instance(error, ocp.OperationError);
    expect(failure.operation).toBe('Preflight');
    const throttled = instance(failure.failures[0]?.error, ocp.RequestError);
    expect([throttled.name, throttled.code, throttled.outcome, throttled.statusCode]).toEqual([
      'RequestError',
      'OTC_THROTTLED',
      'refused',
      429,
    ]);
    expect(throttled.message).toContain(
      "throttled: answered 429 2 times, the last asking to retry after 1000 ms, which would end past this request's bound of 2000 ms",
    );
    expect(seen(/\/configmaps\//)).toBe(2);
    record(
      protocol,
      'create(), 429 Retry-After: 1 on every ConfigMap PATCH, connect 1000 + read 1000',
      throttled,
      2,
      ms,
    );
    expect(h.sim.log.filter((e) => e.method === 'PATCH' && e.query.dryRun === undefined)).toHaveLength(0);
  }, 30_000);

  test('a shared discovery request being throttled: its waiter says OTC_THROTTLED, not a timeout', async () => {
    // The shared request runs under the Connection's limits (70 s): it goes on waiting out its 429s.
    const api = keep(await h.connect({ http2 }));
    h.sim.addFault({ method: 'GET', path: '/apis/kubevirt.io/v1', action: STORM });
    const { error, ms } = await timed(
      ocp.create(
        'worker-template',
        { VM_NAME: 'disc' },
        { ...WORKER, api, requestTimeout: { connect: 10_000, read: 1_000 } },
      ),
    );
    expect(ms).toBeLessThan(8_000);
    const throttled = instance(error, ocp.RequestError);
    expect([throttled.name, throttled.code, throttled.step, throttled.timeout]).toEqual([
      'RequestError',
      'OTC_THROTTLED',
      'Discover',
      undefined,
    ]);
    expect(throttled.message).toMatch(
      /^Discover kubevirt\.io\/v1: throttled: the shared request this waited for was answered 429 [12] times?, the last asking to retry after 1000 ms, and had no answer within this caller's read limit of 1000 ms$/,
    );
    expect(seen('/apis/kubevirt.io/v1')).toBeLessThanOrEqual(2);
    record(
      protocol,
      'create() waiting for shared discovery answered 429 Retry-After: 1, its read 1000',
      throttled,
      seen('/apis/kubevirt.io/v1'),
      ms,
    );
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toHaveLength(0);
  }, 30_000);

  test('the shared OpenAPI root being throttled: its waiter says OTC_THROTTLED', async () => {
    const api = keep(await h.connect({ http2 }));
    h.sim.addFault({ method: 'GET', path: '/openapi/v3', action: STORM });
    const { error, ms } = await timed(
      ocp.create(
        'worker-template',
        { VM_NAME: 'root' },
        { ...WORKER, api, requestTimeout: { connect: 10_000, read: 1_000 } },
      ),
    );
    expect(ms).toBeLessThan(8_000);
    const throttled = instance(error, ocp.RequestError);
    expect([throttled.code, throttled.step, throttled.target]).toEqual([
      'OTC_THROTTLED',
      'Schema',
      '/openapi/v3',
    ]);
    expect(throttled.message).toContain('the shared request this waited for was answered 429');
    expect(seen('/openapi/v3')).toBeLessThanOrEqual(2);
    record(
      protocol,
      'create() waiting for the shared /openapi/v3 root answered 429 Retry-After: 1, its read 1000',
      throttled,
      seen('/openapi/v3'),
      ms,
    );
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toHaveLength(0);
  }, 30_000);

  test("a shared request's own bound ends its 429 waits: every waiter gets OTC_THROTTLED", async () => {
    // The Connection's own limits bound the shared request: 2 s, so one wait of 1 s, then the end.
    const api = keep(await h.connect({ http2, requestTimeout: TIGHT }));
    h.sim.addFault({ method: 'GET', path: '/apis/kubevirt.io/v1', action: STORM });
    const patient = { ...WORKER, api, requestTimeout: { connect: 1_000, read: 60_000 } };
    const { error, ms } = await timed(
      Promise.all([
        ocp.create('worker-template', { VM_NAME: 'one' }, patient),
        ocp.create('worker-template', { VM_NAME: 'two' }, patient),
      ]),
    );
    expect(ms).toBeLessThan(8_000);
    const throttled = instance(error, ocp.RequestError);
    expect([throttled.code, throttled.step, throttled.statusCode]).toEqual([
      'OTC_THROTTLED',
      'Discover',
      429,
    ]);
    expect(throttled.message).toContain('answered 429 2 times');
    expect(seen('/apis/kubevirt.io/v1')).toBe(2);
    record(
      protocol,
      "two create()s on shared discovery answered 429 Retry-After: 1, the Connection's connect 1000 + read 1000",
      throttled,
      2,
      ms,
    );
  }, 30_000);
});
