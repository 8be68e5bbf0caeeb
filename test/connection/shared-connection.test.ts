// One long-lived Connection, many concurrent jobs: one job's cancellation never fails another,
// discovery recovers from a miss, sockets stay bounded, 429s are retried only when the server says
// when, and a dropped connection loses or duplicates no mutation (the server's log is the referee).
import diagnostics from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { MIN_REDISCOVERY_MS } from '../../src/connection/discovery.ts';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, settles, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
beforeEach(() => {
  h.sim.clearFaults();
  h.sim.clearLog();
});
afterAll(async () => {
  await h.close();
});

const KUBEVIRT = '/apis/kubevirt.io/v1';
const discoveries = (): number => h.sim.log.filter((e) => e.path === KUBEVIRT).length;

/**
 * Resolves when the client has received the whole answer to the next request with this method:
 * undici's channel over HTTP/1.1, node:http2's over HTTP/2 (the stream closes after the answer).
 */
function responseEnded(method: string): Promise<void> {
  const channels = [
    {
      name: 'undici:request:trailers',
      method: (m: unknown) => (m as { request: { method: string } }).request.method,
    },
    {
      name: 'http2.client.stream.close',
      method: (m: unknown) =>
        (m as { stream: { sentHeaders: Record<string, string> } }).stream.sentHeaders[':method'],
    },
  ];
  return new Promise((resolve) => {
    const listeners = channels.map(({ name, method: methodOf }) => {
      const listener = (message: unknown): void => {
        if (methodOf(message) !== method) return;
        for (const [channel, own] of listeners) channel.unsubscribe(own);
        resolve();
      };
      const channel = diagnostics.channel(name);
      channel.subscribe(listener);
      return [channel, listener] as const;
    });
  });
}

describe('shared discovery', () => {
  test('aborting one job while discovery is slow fails that job only', async () => {
    await using api = await h.connect();
    h.sim.addFault({ method: 'GET', path: KUBEVIRT, nth: 1, action: { type: 'delay', ms: 400 } });
    const first = new AbortController();
    const a = ocp.create('worker-template', { VM_NAME: 'iso-a' }, { ...WORKER, api, signal: first.signal });
    const b = ocp.create('worker-template', { VM_NAME: 'iso-b' }, { ...WORKER, api });
    await settles(() => discoveries(), 1);
    first.abort();
    const aborted = instance(await rejection(a), ocp.RequestError);
    expect(aborted.name).toBe('AbortError');
    expect(aborted.message).toBe('Discover kubevirt.io/v1: aborted');
    expect((await b).map((r) => r.name)).toEqual(['iso-b-config', 'iso-b-credentials', 'iso-b']);
    expect(discoveries()).toBe(1);
    // Job A's abort came before any apply: nothing of it reached the server.
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'iso-a-config')).toBeUndefined();
    await ocp.delete('worker-template', { VM_NAME: 'iso-b' }, { ...WORKER, api });
  });

  test('a transient 404 is not remembered: a later operation discovers again and succeeds', async () => {
    await using api = await h.connect();
    h.sim.addFault({
      method: 'GET',
      path: KUBEVIRT,
      nth: 1,
      action: { type: 'raw', code: 404, contentType: 'text/plain', body: '404 page not found\n' },
    });
    const refused = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'blip' }, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(refused.issues).toEqual([
      'object 3 (VirtualMachine "blip"): kind VirtualMachine in kubevirt.io/v1 is not served by the cluster',
    ]);
    await sleep(MIN_REDISCOVERY_MS);
    const refs = await ocp.create('worker-template', { VM_NAME: 'blip' }, { ...WORKER, api });
    expect(refs).toHaveLength(3);
    expect(discoveries()).toBe(2);
    await ocp.delete('worker-template', { VM_NAME: 'blip' }, { ...WORKER, api });
  });

  test('a kind that appears later (a CRD installed after connect) is found, with one discovery for a burst', async () => {
    await using api = await h.connect();
    // The first answer lists the group without VirtualMachine, as before the CRD existed.
    const before = {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'kubevirt.io/v1',
      resources: [],
    };
    h.sim.addFault({
      method: 'GET',
      path: KUBEVIRT,
      nth: 1,
      action: { type: 'raw', code: 200, body: JSON.stringify(before) },
    });
    await rejection(ocp.create('worker-template', { VM_NAME: 'late-0' }, { ...WORKER, api }));
    await sleep(MIN_REDISCOVERY_MS);
    const names = Array.from({ length: 10 }, (_, i) => `late-${i + 1}`);
    await Promise.all(
      names.map((name) => ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    );
    // The burst's misses share one re-discovery.
    expect(discoveries()).toBe(2);
    await Promise.all(
      names.map((name) => ocp.delete('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    );
  });
});

describe('bounded resources', () => {
  test('twenty operations with twenty different connect limits share one pool and one socket', async () => {
    const before = h.sim.stats();
    const api = await h.connect();
    for (let i = 0; i < 20; i++) {
      await ocp.process(
        'worker-template',
        { VM_NAME: `t-${i}` },
        {
          ...WORKER,
          api,
          requestTimeout: { connect: 1_000 + i, read: 5_000 },
        },
      );
    }
    expect(h.sim.stats().connections - before.connections).toBe(1);
    await api.close();
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
  });
});

describe('429 TooManyRequests', () => {
  const create = (name: string, signal?: AbortSignal): Promise<ocp.ResourceRef[]> =>
    ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, ...(signal ? { signal } : {}) });
  const patches = (): number[] => h.sim.log.filter((e) => e.method === 'PATCH').map((e) => e.status);

  test('with Retry-After, the request is sent again and succeeds', async () => {
    h.sim.addFault({
      method: 'PATCH',
      times: 2,
      action: { type: 'too-many-requests', retryAfterSeconds: 0 },
    });
    expect(await create('busy-1')).toHaveLength(3);
    expect(patches()).toEqual([429, 429, 201, 201, 201]);
    await ocp.delete('worker-template', { VM_NAME: 'busy-1' }, WORKER);
  });

  test('without Retry-After, it is not retried', async () => {
    h.sim.addFault({ method: 'PATCH', times: 1, action: { type: 'too-many-requests' } });
    const error = instance(await rejection(create('busy-2')), ocp.OperationError);
    expect(error.resources).toEqual([]);
    expect(patches()).toEqual([429]);
    expect(error.failures[0]?.error.message).toBe(
      'Apply ConfigMap "busy-2-config" in namespace "workers": 429 TooManyRequests: Too many requests, please try again later.; the server sent no Retry-After, so it was not retried',
    );
  });

  test('retries are bounded in number, and the error says so', async () => {
    h.sim.addFault({
      method: 'PATCH',
      times: 50,
      action: { type: 'too-many-requests', retryAfterSeconds: 0 },
    });
    const error = instance(await rejection(create('busy-3')), ocp.OperationError);
    expect(patches()).toEqual([429, 429, 429, 429, 429, 429]);
    expect(error.failures[0]?.error.message).toContain('retried 5 times over 0 ms');
  });

  test('a Retry-After beyond the total bound is not waited for', async () => {
    h.sim.addFault({
      method: 'PATCH',
      times: 1,
      action: { type: 'too-many-requests', retryAfterSeconds: 3600 },
    });
    await rejection(create('busy-4'));
    expect(patches()).toEqual([429]);
  });

  test("the caller's signal ends the wait", async () => {
    h.sim.addFault({
      method: 'PATCH',
      times: 1,
      action: { type: 'too-many-requests', retryAfterSeconds: 20 },
    });
    const controller = new AbortController();
    // The server logs the 429 before the client has read it; abort only once the answer has
    // reached the client (its diagnostics channel), or this tests an abort in flight instead.
    const answered = responseEnded('PATCH');
    const pending = create('busy-5', controller.signal);
    await answered;
    await sleep(20);
    controller.abort();
    const error = instance(await rejection(pending), ocp.OperationError);
    expect(error.failures[0]?.error.name).toBe('AbortError');
    expect(error.failures[0]?.error.message).toBe(
      'Apply ConfigMap "busy-5-config" in namespace "workers": aborted while waiting to retry after 429 TooManyRequests',
    );
    expect(patches()).toEqual([429]);
  });
});

describe('a stream the server refuses unprocessed', () => {
  test('is sent once more over HTTP/2, and never over HTTP/1.1, which cannot say so', async () => {
    await using api = await h.connect();
    const overH2 = h.sim.stats().h2 > 0;
    h.sim.clearLog();
    h.sim.addFault({ method: 'PATCH', nth: 2, action: { type: 'refuse-stream' } });
    const job = ocp.create('worker-template', { VM_NAME: 'refused' }, { ...WORKER, api });
    const secret = '/api/v1/namespaces/workers/secrets/refused-credentials';
    const attempts = (): number[] =>
      h.sim.log.filter((e) => e.method === 'PATCH' && e.path === secret).map((e) => e.status);
    if (overH2) {
      expect((await job).map((r) => r.name)).toEqual(['refused-config', 'refused-credentials', 'refused']);
      expect(attempts()).toEqual([0, 201]);
    } else {
      const error = instance(await rejection(job), ocp.OperationError);
      expect(error.failures[0]?.error.message).toContain('may or may not have been applied');
      expect(attempts()).toEqual([0]);
    }
    await ocp.delete('worker-template', { VM_NAME: 'refused' }, { ...WORKER, api });
  });
});

describe('a connection cut without GOAWAY while idle', () => {
  test('the next requests open a new connection and succeed, every time', async () => {
    await using api = await h.connect();
    for (let round = 0; round < 20; round++) {
      h.sim.dropConnections({ goaway: false });
      await settles(() => h.sim.stats().openSockets, 0);
      const objects = await ocp.process(
        'worker-template',
        { VM_NAME: `cut-${String(round)}` },
        { ...WORKER, api },
      );
      expect(objects).toHaveLength(3);
    }
  });
});

describe('a dropped connection during a burst', () => {
  test('loses or duplicates no mutation: every applied object is reported, none twice', async () => {
    await using api = await h.connect();
    const names = Array.from({ length: 20 }, (_, i) => `drop-${i}`);
    // The server handles the 25th apply, then ends every connection (GOAWAY first over HTTP/2).
    h.sim.addFault({ method: 'PATCH', nth: 25, action: { type: 'drop-connections', execute: true } });
    const results = await Promise.allSettled(
      names.map((name) => ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    );
    const appliedOnServer = new Map<string, number>();
    for (const entry of h.sim.log.filter((e) => e.method === 'PATCH')) {
      const name = decodeURIComponent(entry.path.split('/').at(-1) ?? '');
      if (entry.status >= 200 && entry.status < 300)
        appliedOnServer.set(name, (appliedOnServer.get(name) ?? 0) + 1);
    }
    // Never sent twice: no mutation is retried.
    const sent = h.sim.log.filter((e) => e.method === 'PATCH').map((e) => e.path);
    expect(new Set(sent).size).toBe(sent.length);
    const reported = new Set<string>();
    let unknown = 0;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') {
        for (const ref of result.value) reported.add(ref.name);
      } else if (result.reason instanceof ocp.OperationError) {
        for (const ref of result.reason.resources) reported.add(ref.name);
        if (result.reason.failures[0]?.error.message.includes('may or may not have been applied'))
          unknown += 1;
      } else {
        // Failed before its first apply (processing, discovery): none of its objects was sent.
        expect(instance(result.reason, ocp.RequestError).step).not.toBe('Apply');
        for (const name of [`drop-${i}-config`, `drop-${i}-credentials`, `drop-${i}`])
          expect(appliedOnServer.has(name)).toBe(false);
      }
    });
    // Every object the client reports as applied is on the server; what the server applied but the
    // client could not confirm is the failure of a job that says the outcome is unknown.
    for (const name of reported) expect(appliedOnServer.get(name)).toBe(1);
    const unconfirmed = [...appliedOnServer.keys()].filter((name) => !reported.has(name));
    expect(unconfirmed.length).toBeLessThanOrEqual(unknown);
    expect(results.some((r) => r.status === 'rejected')).toBe(true);
    // The Connection still works afterwards, and cleanup by replay removes everything.
    await Promise.all(
      names.map((name) => ocp.delete('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    );
    for (const name of names)
      expect(h.sim.getObject('v1', 'ConfigMap', 'workers', `${name}-config`)).toBeUndefined();
  });
});
