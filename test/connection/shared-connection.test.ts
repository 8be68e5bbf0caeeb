// One long-lived Connection, many concurrent jobs: one job's cancellation never fails another,
// discovery recovers from a miss, sockets stay bounded, 429s are retried only when the server says
// when, and a dropped connection loses or duplicates no mutation (the server's log is the referee).
import diagnostics from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { MIN_REDISCOVERY_MS } from '../../src/connection/shared-answers.ts';
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
 * Resolves when the client has received the whole answer to the next request with this method
 * (and, given one, whose path starts with `path`): undici's channel over HTTP/1.1, node:http2's
 * over HTTP/2 (the stream closes after the answer).
 */
function responseEnded(method: string, path = ''): Promise<void> {
  const channels = [
    {
      name: 'undici:request:trailers',
      request: (m: unknown) => {
        const { request } = m as { request: { method: string; path: string } };
        return [request.method, request.path];
      },
    },
    {
      name: 'http2.client.stream.close',
      request: (m: unknown) => {
        const headers = (m as { stream: { sentHeaders: Record<string, string> } }).stream.sentHeaders;
        return [headers[':method'], headers[':path']];
      },
    },
  ];
  return new Promise((resolve) => {
    const listeners = channels.map(({ name, request }) => {
      const listener = (message: unknown): void => {
        const [sentMethod, sentPath] = request(message);
        if (sentMethod !== method || !(sentPath ?? '').startsWith(path)) return;
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

// The first object's dry run (its first PATCH, in create()'s pre-flight) and its write (the second):
// a 429 is retried as the server says at either, and nothing else is.
describe.each([
  ['dry run', 1],
  ['write', 2],
] as const)("429 TooManyRequests on the first object's %s", (position, nth) => {
  const create = (name: string, signal?: AbortSignal): Promise<ocp.ResourceRef[]> =>
    ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, ...(signal ? { signal } : {}) });
  const configPath = (name: string): string => `/api/v1/namespaces/workers/configmaps/${name}-config`;
  /** The first object's PATCHes, in order: `dry <status>` for a dry run, the status for a write. */
  const patches = (name: string): string[] =>
    h.sim.log
      .filter((e) => e.method === 'PATCH' && e.path === configPath(name))
      .map((e) => `${e.query.dryRun === 'All' ? 'dry ' : ''}${String(e.status)}`);
  /** What the first object's PATCHes were before the faulted one: its dry run, when the write is faulted. */
  const before = nth === 2 ? ['dry 201'] : [];
  const faulted = (name: string, times: number, retryAfterSeconds?: number) => {
    h.sim.addFault({
      method: 'PATCH',
      path: configPath(name),
      nth,
      times,
      action: {
        type: 'too-many-requests',
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      },
    });
  };
  const status = (code: number): string => `${nth === 1 ? 'dry ' : ''}${String(code)}`;
  /** After a dry run refused, nothing is written: the wave's failure; after a write, the apply's. */
  const expectStopped = (error: ocp.OperationError): void => {
    expect([error.operation, error.resources]).toEqual([nth === 1 ? 'Preflight' : 'Apply', []]);
    const written = h.sim
      .mutations()
      .filter((e) => e.method === 'PATCH' && e.query.dryRun === undefined && e.status < 400);
    expect(written).toEqual([]);
  };
  const vm = (n: number): string => `busy-${String(n)}-${position.replace(' ', '-')}`;

  test('with Retry-After, the request is sent again and succeeds', async () => {
    faulted(vm(1), 2, 0);
    expect(await create(vm(1))).toHaveLength(3);
    expect(patches(vm(1))).toEqual(
      nth === 1 ? ['dry 429', 'dry 429', 'dry 201', '201'] : ['dry 201', '429', '429', '201'],
    );
    await ocp.delete('worker-template', { VM_NAME: vm(1) }, WORKER);
  });

  test('without Retry-After, it is not retried', async () => {
    faulted(vm(2), 1);
    const error = instance(await rejection(create(vm(2))), ocp.OperationError);
    expectStopped(error);
    expect(patches(vm(2))).toEqual([...before, status(429)]);
    expect(error.failures[0]?.error.message).toBe(
      `Apply ConfigMap "${vm(2)}-config" in namespace "workers": 429 TooManyRequests: Too many requests, please try again later.; the server sent no Retry-After, so it was not retried`,
    );
  });

  test('retries are bounded in number, and the error says so', async () => {
    faulted(vm(3), 50, 0);
    const error = instance(await rejection(create(vm(3))), ocp.OperationError);
    expectStopped(error);
    expect(patches(vm(3))).toEqual([...before, ...Array.from({ length: 11 }, () => status(429))]);
    expect(error.failures[0]?.error.message).toContain('retried 10 times over 0 ms');
  });

  test('a Retry-After beyond the bound of one wait is not waited for, and the error says so', async () => {
    faulted(vm(4), 1, 3600);
    const error = instance(await rejection(create(vm(4))), ocp.OperationError);
    expectStopped(error);
    expect(patches(vm(4))).toEqual([...before, status(429)]);
    expect(error.failures[0]?.error.message).toContain(
      'the server asked to wait 3600000 ms, more than the 60000 ms this library waits at once; not retried',
    );
  });

  test("the caller's signal ends the wait", async () => {
    faulted(vm(5), 1, 20);
    const controller = new AbortController();
    // The server logs the 429 before the client has read it; abort only once the answer has
    // reached the client (its diagnostics channel), or this tests an abort in flight instead. A
    // faulted write waits for the first object's dry run, answered first.
    const answered = (async () => {
      if (nth === 2) await responseEnded('PATCH', configPath(vm(5)));
      await responseEnded('PATCH', configPath(vm(5)));
    })();
    const pending = create(vm(5), controller.signal);
    await answered;
    await sleep(20);
    controller.abort();
    const error = instance(await rejection(pending), ocp.OperationError);
    expectStopped(error);
    expect(error.failures[0]?.error.name).toBe('AbortError');
    expect(error.failures[0]?.error.message).toBe(
      `Apply ConfigMap "${vm(5)}-config" in namespace "workers": aborted while waiting to retry after 429 TooManyRequests`,
    );
    expect(patches(vm(5))).toEqual([...before, status(429)]);
  });
});

// The Secret's dry run (its first PATCH, in create()'s pre-flight) and its write (the second).
describe.each([
  ['dry run', 1],
  ['write', 2],
] as const)("a stream the server refuses unprocessed: the Secret's %s", (position, nth) => {
  test('is sent once more over HTTP/2; over HTTP/1.1, which cannot say so, only a dry run is', async () => {
    await using api = await h.connect();
    const overH2 = h.sim.stats().h2 > 0;
    const vm = `refused-${position.replace(' ', '-')}`;
    const secret = `/api/v1/namespaces/workers/secrets/${vm}-credentials`;
    h.sim.clearLog();
    h.sim.addFault({ method: 'PATCH', path: secret, nth, action: { type: 'refuse-stream' } });
    const job = ocp.create('worker-template', { VM_NAME: vm }, { ...WORKER, api });
    const attempts = (): string[] =>
      h.sim.log
        .filter((e) => e.method === 'PATCH' && e.path === secret)
        .map((e) => `${e.query.dryRun === 'All' ? 'dry ' : ''}${String(e.status)}`);
    // Over HTTP/1.1 the refusal is a connection closed without an answer: a lost connection, which
    // only a dry run may be sent again for (it stores nothing), never a write.
    if (overH2 || nth === 1) {
      expect((await job).map((r) => r.name)).toEqual([`${vm}-config`, `${vm}-credentials`, vm]);
      expect(attempts()).toEqual(nth === 1 ? ['dry 0', 'dry 201', '201'] : ['dry 201', '0', '201']);
    } else {
      const error = instance(await rejection(job), ocp.OperationError);
      expect(error.failures[0]?.error.message).toContain('may or may not have been applied');
      expect(attempts()).toEqual(['dry 201', '0']);
    }
    await ocp.delete('worker-template', { VM_NAME: vm }, { ...WORKER, api });
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
    // The server handles one job's write (its Secret's second PATCH, after its pre-flight), then
    // ends every connection (GOAWAY first over HTTP/2): other jobs' dry runs and writes are in flight.
    const dropped = '/api/v1/namespaces/workers/secrets/drop-8-credentials';
    h.sim.addFault({
      method: 'PATCH',
      path: dropped,
      nth: 2,
      action: { type: 'drop-connections', execute: true },
    });
    const results = await Promise.allSettled(
      names.map((name) => ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    );
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    const writes = patches.filter((e) => e.query.dryRun === undefined);
    const appliedOnServer = new Map<string, number>();
    for (const entry of writes) {
      const name = decodeURIComponent(entry.path.split('/').at(-1) ?? '');
      if (entry.status >= 200 && entry.status < 300)
        appliedOnServer.set(name, (appliedOnServer.get(name) ?? 0) + 1);
    }
    // A write is never sent twice: no mutation is retried. A dry run stores nothing, so one whose
    // connection was lost is sent once more, never more.
    const sent = writes.map((e) => e.path);
    expect(new Set(sent).size).toBe(sent.length);
    const dryRunsPerPath = new Map<string, number>();
    for (const e of patches.filter((p) => p.query.dryRun === 'All'))
      dryRunsPerPath.set(e.path, (dryRunsPerPath.get(e.path) ?? 0) + 1);
    expect(Math.max(...dryRunsPerPath.values())).toBeLessThanOrEqual(2);
    // The dropped write was applied, and its job cannot know: it says the outcome is unknown.
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'drop-8-credentials')).toBeDefined();
    const droppedJob = results[8];
    expect(droppedJob?.status).toBe('rejected');
    const droppedFailure =
      droppedJob?.status === 'rejected'
        ? instance(droppedJob.reason, ocp.OperationError).failures[0]
        : undefined;
    expect(droppedFailure?.resource.name).toBe('drop-8-credentials');
    expect(instance(droppedFailure?.error, ocp.RequestError).outcome).toBe('unknown');
    const reported = new Set<string>();
    let unknown = 0;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') {
        for (const ref of result.value) reported.add(ref.name);
      } else if (result.reason instanceof ocp.OperationError && result.reason.operation === 'Preflight') {
        // Its pre-flight failed: none of its objects was written.
        expect(result.reason.resources).toEqual([]);
        for (const name of [`drop-${i}-config`, `drop-${i}-credentials`, `drop-${i}`])
          expect(appliedOnServer.has(name)).toBe(false);
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
