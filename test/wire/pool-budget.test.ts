// `maxSockets` bounds the sockets a Connection holds open, also while a read timeout renews the
// HTTP/1.1 pool: the retired pool's sockets, still draining what they carry, count against the
// budget until they close, so the new pool opens only what is left of it. Over HTTP/2 every
// request shares one connection, which the same scenario must not multiply either.
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection, settles } from '../helpers.ts';
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

const ref = (name: string): ocp.ResourceRef => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'workers',
  name,
});
/** A read of a ConfigMap that does not exist: a quick 404, which leaves its socket open for the next. */
const quick = (api: ocp.Connection, name: string): Promise<Error> =>
  rejection(ocp.get({ namespace: 'workers', resources: [ref(name)], api }));

describe.each([
  ['HTTP/2', true],
  ['HTTP/1.1', false],
] as const)('over %s', (protocol, http2) => {
  test('maxSockets 2: a read timeout while another request drains opens no third socket', async () => {
    // The server's count is of every socket open on it: this test's alone.
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
    await using api = await h.connect({ http2, maxSockets: 2 });
    await quick(api, 'warm');
    // One request that times out (its socket is dropped and the pool renewed), and one that
    // drains slowly on the retired pool for seconds after.
    h.sim.addFault({ method: 'GET', path: /\/configmaps\/silent$/, action: { type: 'hang' } });
    h.sim.addFault({ method: 'GET', path: /\/configmaps\/draining$/, action: { type: 'delay', ms: 5_000 } });
    const silent = rejection(
      ocp.get({
        namespace: 'workers',
        resources: [ref('silent')],
        api,
        requestTimeout: { connect: 1_000, read: 300 },
      }),
    );
    const draining = ocp
      .get({
        namespace: 'workers',
        resources: [ref('draining')],
        api,
        requestTimeout: { connect: 1_000, read: 30_000 },
      })
      .catch((error: unknown) => error);
    let drained = false;
    void draining.finally(() => {
      drained = true;
    });
    expect((await silent).name).toBe('TimeoutError');
    // The timed-out socket is gone on the server's side too: only the draining one is left.
    expect(await settles(() => h.sim.stats().openSockets, 1)).toBe(1);
    // Three reads at once: the new pool may open one socket while the retired one drains.
    const reads = ['q1', 'q2', 'q3'].map((name) => quick(api, name));
    let done = 0;
    for (const read of reads) void read.finally(() => (done += 1));
    expect(await settles(() => done >= 2, true)).toBe(true);
    expect(drained).toBe(false);
    const open = h.sim.stats().openSockets;
    expect(open).toBeLessThanOrEqual(2);
    // Every read still gets its answer: the last one once the draining socket has closed.
    for (const error of [...(await Promise.all(reads)), await draining])
      expect(instance(error, ocp.RequestError).code).toBe('OTC_NOT_FOUND');
    expect(h.sim.stats().openSockets).toBeLessThanOrEqual(2);
    report('bounds', {
      protocol,
      what: 'maxSockets 2: a read timeout (read 300) while another read drains for 5 s, then 3 reads at once',
      result: `${open} socket${open === 1 ? '' : 's'} open while the retired pool drains`,
      requests: h.sim.log.filter((e) => e.path.includes('/configmaps/')).length,
      seconds: undefined,
    });
  }, 30_000);
});
