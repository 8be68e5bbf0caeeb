// TracingChannels: one operation trace per public call and one request trace per attempt the
// server received (its log is the referee), with nothing secret in any context.
// `npm run test:http1` runs this file over HTTP/1.1 as well.
import { tracingChannel } from 'node:diagnostics_channel';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

type Event = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';

/** Subscribes to every event of a channel, recording the event and the context object. */
function record(name: string): { seen: { event: Event; context: Record<string, unknown> }[]; stop(): void } {
  const channel = tracingChannel<unknown, Record<string, unknown>>(name);
  const seen: { event: Event; context: Record<string, unknown> }[] = [];
  const on =
    (event: Event) =>
    (context: Record<string, unknown>): void => {
      seen.push({ event, context });
    };
  const handlers = {
    start: on('start'),
    end: on('end'),
    asyncStart: on('asyncStart'),
    asyncEnd: on('asyncEnd'),
    error: on('error'),
  };
  channel.subscribe(handlers);
  return {
    seen,
    stop: () => {
      channel.unsubscribe(handlers);
    },
  };
}

/** The contexts that finished (asyncEnd), in order. */
const finished = (seen: { event: Event; context: Record<string, unknown> }[]): Record<string, unknown>[] =>
  seen.filter((e) => e.event === 'asyncEnd').map((e) => e.context);

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearLog();
  h.sim.clearFaults();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

describe('openshift-template-client:operation', () => {
  test('one trace per call, the same context through every event, with what the operation was', async () => {
    const trace = record('openshift-template-client:operation');
    try {
      const params = { VM_NAME: 'traced' };
      await using own = await ocp.connect({ kubeconfig: h.kubeconfig });
      await ocp.process('worker-template', params, { ...WORKER, api: own });
      const refs = await ocp.create('worker-template', params, { ...WORKER, api: own, dryRun: false });
      await ocp.get('worker-template', params, { ...WORKER, api: own });
      await ocp.get({ namespace: 'workers', resources: refs, api: own });
      await ocp.delete({ namespace: 'workers', resources: refs, api: own, dryRun: true });
      await ocp.delete('worker-template', params, { ...WORKER, api: own });
      // Every context went through start, end, asyncStart, asyncEnd, in that order, and no error.
      const byContext = new Map<object, Event[]>();
      for (const { event, context } of trace.seen)
        byContext.set(context, [...(byContext.get(context) ?? []), event]);
      expect([...byContext.values()]).toEqual(
        Array.from({ length: 7 }, () => ['start', 'end', 'asyncStart', 'asyncEnd']),
      );
      const template = {
        mode: 'template',
        namespace: 'workers',
        templateName: 'worker-template',
        templateNamespace: 'infra',
      };
      expect(finished(trace.seen)).toEqual([
        { operation: 'connect' },
        { operation: 'process', ...template, dryRun: false, objects: 3 },
        { operation: 'create', ...template, dryRun: false, objects: 3 },
        { operation: 'get', ...template, dryRun: false, objects: 3 },
        { operation: 'get', mode: 'reference', namespace: 'workers', dryRun: false, objects: 3 },
        { operation: 'delete', mode: 'reference', namespace: 'workers', dryRun: true, objects: 3 },
        { operation: 'delete', ...template, dryRun: false, objects: 3 },
      ]);
    } finally {
      trace.stop();
    }
  });

  test('a failure publishes error with the very error the caller gets', async () => {
    const trace = record('openshift-template-client:operation');
    try {
      h.sim.addFault({
        method: 'PATCH',
        nth: 2,
        action: { type: 'status', code: 409, reason: 'Conflict', message: 'taken' },
      });
      const error = instance(
        await rejection(ocp.create('worker-template', { VM_NAME: 'clash' }, { ...WORKER, api })),
        ocp.OperationError,
      );
      expect(trace.seen.map((e) => e.event)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
      const context = trace.seen[0]?.context;
      expect(trace.seen.every((e) => e.context === context)).toBe(true);
      expect(context?.error).toBe(error);
      expect(context).not.toHaveProperty('objects');
      const invalid = await rejection(
        ocp.create('worker-template', { VM_NAME: 'x' }, { namespace: 'Bad_NS', api }),
      );
      expect(trace.seen.at(-1)?.context.error).toBe(invalid);
      await ocp.delete('worker-template', { VM_NAME: 'clash' }, { ...WORKER, api });
    } finally {
      trace.stop();
    }
  });
});

describe('openshift-template-client:request', () => {
  test('one trace per request the server received, with protocol, attempt and status', async () => {
    const trace = record('openshift-template-client:request');
    try {
      await ocp.create('worker-template', { VM_NAME: 'req' }, { ...WORKER, api, fieldManager: 'tracer' });
      const done = finished(trace.seen);
      expect(done).toHaveLength(h.sim.log.length);
      // The same requests with the same answers; those of the pre-flight's wave (its dry runs and
      // quota list, in flight at once) may finish in another order than the server logged them.
      expect(done.map((c) => `${String(c.method)} ${String(c.path)} ${String(c.statusCode)}`).sort()).toEqual(
        h.sim.log.map((e) => `${e.method} ${e.path} ${String(e.status)}`).sort(),
      );
      const protocol = h.sim.protocol === 'h2' ? 'h2' : 'http/1.1';
      for (const context of done) {
        expect(context).toMatchObject({ protocol, attempt: 1, operation: 'create' });
        expect(String(context.path)).not.toContain('?');
      }
      expect(done.at(-1)).toMatchObject({
        step: 'Apply',
        target: 'VirtualMachine "req" in namespace "workers"',
      });
      await ocp.delete('worker-template', { VM_NAME: 'req' }, { ...WORKER, api, fieldManager: 'tracer' });
    } finally {
      trace.stop();
    }
  });

  test('a 429 retried, and a stream refused and sent again, are traced as further attempts', async () => {
    const trace = record('openshift-template-client:request');
    try {
      h.sim.addFault({
        method: 'GET',
        path: /\/templates\//,
        nth: 1,
        action: { type: 'too-many-requests', retryAfterSeconds: 0 },
      });
      if (h.sim.protocol === 'h2')
        h.sim.addFault({ method: 'POST', nth: 1, action: { type: 'refuse-stream' } });
      await ocp.process('worker-template', { VM_NAME: 'again' }, { ...WORKER, api });
      const done = finished(trace.seen);
      expect(done).toHaveLength(h.sim.log.length);
      const attempts = done.map(
        (c) =>
          `${String(c.step)} ${String(c.attempt)} ${typeof c.statusCode === 'number' ? String(c.statusCode) : 'error'}`,
      );
      expect(attempts).toEqual(
        h.sim.protocol === 'h2'
          ? ['Get 1 429', 'Get 2 200', 'Process 1 error', 'Process 2 201']
          : ['Get 1 429', 'Get 2 200', 'Process 1 201'],
      );
      if (h.sim.protocol === 'h2') expect(trace.seen.some((e) => e.event === 'error')).toBe(true);
    } finally {
      trace.stop();
    }
  });
});

test('no parameter value, token or Secret data in any context, while the operations ran', async () => {
  const secret = 'SENTINEL-TRACE-PARAM-5e1f';
  const operations = record('openshift-template-client:operation');
  const requests = record('openshift-template-client:request');
  try {
    const params = { VM_NAME: 'sentinel', API_KEY: secret };
    await ocp.create('worker-template', params, { ...WORKER, api });
    await ocp.get('worker-template', params, { ...WORKER, api });
    h.sim.addFault({
      method: 'PATCH',
      action: { type: 'status', code: 422, reason: 'Invalid', message: `bad ${secret}` },
    });
    await rejection(ocp.create('worker-template', params, { ...WORKER, api }));
    h.sim.clearFaults();
    await ocp.delete('worker-template', params, { ...WORKER, api });
    const text = JSON.stringify([...operations.seen, ...requests.seen], (_key, value: unknown) =>
      value instanceof Error ? { message: value.message, stack: value.stack, cause: value.cause } : value,
    );
    expect(operations.seen.length).toBeGreaterThan(0);
    expect(requests.seen.length).toBeGreaterThan(0);
    expect(text).toContain('[redacted]');
    for (const value of [secret, Buffer.from(secret).toString('base64'), h.sim.token])
      expect(text).not.toContain(value);
  } finally {
    operations.stop();
    requests.stop();
  }
});
