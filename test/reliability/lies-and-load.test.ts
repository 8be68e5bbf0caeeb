// Responses that lie, heavy concurrency on one Connection, long create/delete cycles, and
// cancellation at exact points.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import { report } from './report.ts';

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

describe('responses that lie', () => {
  test('discovery that is missing a kind: refused as not served, nothing applied', async () => {
    await using api = await h.connect();
    h.sim.addFault({
      path: '/apis/kubevirt.io/v1',
      action: {
        type: 'raw',
        code: 200,
        body: JSON.stringify({ kind: 'APIResourceList', groupVersion: 'kubevirt.io/v1', resources: [] }),
      },
    });
    const error = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'lie1' }, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(error.issues).toEqual([
      'object 3 (VirtualMachine "lie1"): kind VirtualMachine in kubevirt.io/v1 is not served by the cluster',
    ]);
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toEqual([]);
  });

  test('a rendered object with no name: refused before any apply', async () => {
    await using api = await h.connect();
    const template = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'worker-template' },
      objects: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
      ],
    };
    h.sim.addFault({
      method: 'POST',
      path: /processedtemplates/,
      action: { type: 'raw', code: 201, body: JSON.stringify(template) },
    });
    const error = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'lie2' }, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(error.issues).toEqual([
      'object 2 (ConfigMap (no name)) has no metadata.name (a stable name is required)',
    ]);
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toEqual([]);
  });

  test('a processing response that is not a Template', async () => {
    await using api = await h.connect();
    h.sim.addFault({
      method: 'POST',
      path: /processedtemplates/,
      action: { type: 'raw', code: 201, body: JSON.stringify({ kind: 'Status', status: 'Success' }) },
    });
    const error = instance(
      await rejection(ocp.process('worker-template', { VM_NAME: 'lie3' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    expect(error.message).toBe(
      'Process Template "worker-template" in namespace "workers": the response is not a processed Template with objects',
    );
  });

  test('an apply response without a UID: the ref simply has none', async () => {
    await using api = await h.connect();
    h.sim.addFault({
      method: 'PATCH',
      path: /configmaps/,
      action: {
        type: 'raw',
        code: 200,
        body: JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'lie4-config' } }),
        execute: true,
      },
    });
    const refs = await ocp.create('worker-template', { VM_NAME: 'lie4' }, { ...WORKER, api });
    // The lying answer was a 200, so the ref says the object was not created by this call.
    expect(refs[0]).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'workers',
      name: 'lie4-config',
      created: false,
    });
    expect(refs[1]?.uid).toBeTypeOf('string');
    await ocp.delete('worker-template', { VM_NAME: 'lie4' }, { ...WORKER, api });
  });
});

describe('load', () => {
  test('50 operations in flight on one Connection: right results, no cross-talk, one discovery, bounded sockets', async () => {
    const objectsBefore = h.sim.objectCount();
    h.sim.clearLog();
    // Counted from before connect(): its handshake is part of the run. Over HTTP/1.1 a pool smaller
    // than the burst makes the jobs queue for sockets; over HTTP/2 there is one session whatever it says.
    const before = h.sim.stats();
    await using api = await h.connect({ maxSockets: 6 });
    const names = Array.from({ length: 50 }, (_, i) => `load-${i}`);
    const refs = await Promise.all(
      names.map((name) =>
        ocp.create('worker-template', { VM_NAME: name, IMAGE_TAG: name }, { ...WORKER, api }),
      ),
    );
    refs.forEach((r, i) => {
      expect(r.map((ref) => ref.name)).toEqual([`load-${i}-config`, `load-${i}-credentials`, `load-${i}`]);
    });
    const live = await Promise.all(
      names.map((name) => ocp.get('worker-template', { VM_NAME: name, IMAGE_TAG: name }, { ...WORKER, api })),
    );
    live.forEach((objects, i) => {
      expect(objects[0]?.data).toMatchObject({ 'image-tag': `load-${i}` });
      expect(objects.map((o) => o.metadata?.uid)).toEqual(refs[i]?.map((r) => r.uid));
    });
    await Promise.all(
      names.map((name) => ocp.delete('worker-template', { VM_NAME: name }, { ...WORKER, api })),
    );
    const after = h.sim.stats();
    expect(h.sim.log.filter((e) => e.path === '/apis/kubevirt.io/v1')).toHaveLength(1);
    const connections = after.connections - before.connections;
    if (h.sim.protocol === 'h2') expect(connections).toBe(1);
    else expect(connections).toBeLessThanOrEqual(6);
    expect(h.sim.objectCount()).toBe(objectsBefore);
    for (const name of names)
      expect(h.sim.getObject('v1', 'ConfigMap', 'workers', `${name}-config`)).toBeUndefined();
    report('load-50', {
      requests: h.sim.log.length,
      connections,
      handshakes: after.handshakes - before.handshakes,
      protocol: h.sim.protocol,
    });
  }, 120_000);

  test('1,000 create/delete cycles on one connection: heap and sockets stay flat', async () => {
    const start = h.sim.stats();
    await using api = await h.connect();
    const heap: number[] = [];
    const sockets: number[] = [];
    for (let i = 0; i < 1_000; i++) {
      await ocp.create('worker-template', { VM_NAME: 'cycle' }, { ...WORKER, api });
      await ocp.delete('worker-template', { VM_NAME: 'cycle' }, { ...WORKER, api });
      if (i % 100 === 99) {
        h.sim.clearLog();
        if (!globalThis.gc) throw new Error('run with --expose-gc (vitest.config.ts sets it)');
        globalThis.gc();
        heap.push(process.memoryUsage().heapUsed);
        sockets.push(h.sim.stats().openSockets);
      }
    }
    const end = h.sim.stats();
    expect(end.connections - start.connections).toBe(1);
    expect(Math.max(...sockets)).toBe(1);
    // The last five samples stay within 25% of the first five: no growth with the number of cycles.
    const early = Math.max(...heap.slice(0, 5));
    const late = Math.max(...heap.slice(5));
    expect(late).toBeLessThan(early * 1.25);
    report('cycles-1000', {
      heapMiB: heap.map((b) => Math.round((b / 2 ** 20) * 10) / 10),
      sockets,
      connections: end.connections - start.connections,
      handshakes: end.handshakes - start.handshakes,
    });
  }, 300_000);
});

describe('cancellation', () => {
  test('aborted during the k-th apply: exactly the objects applied before it; during the pre-flight, none', async () => {
    const paths = ['configmaps/abort-config', 'secrets/abort-credentials', 'virtualmachines/abort'].map((p) =>
      `/api/v1/namespaces/workers/${p}`.replace(
        '/api/v1/namespaces/workers/virtualmachines',
        '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines',
      ),
    );
    // k = 0: the Secret's dry run in the pre-flight; k = 1..3: the k-th object's write (its second PATCH).
    for (const k of [0, 1, 2, 3]) {
      await using api = await h.connect();
      await ocp.delete('worker-template', { VM_NAME: 'abort' }, { ...WORKER, api });
      h.sim.clearFaults();
      h.sim.clearLog();
      const controller = new AbortController();
      const path = paths[k === 0 ? 1 : k - 1] ?? '';
      const nth = k === 0 ? 1 : 2;
      h.sim.addFault({ method: 'PATCH', path, nth, action: { type: 'delay', ms: 5_000 } });
      const pending = ocp.create(
        'worker-template',
        { VM_NAME: 'abort' },
        { ...WORKER, api, signal: controller.signal },
      );
      while (h.sim.log.filter((e) => e.method === 'PATCH' && e.path === path).length < nth)
        await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      const error = instance(await rejection(pending), ocp.OperationError);
      expect(error.operation).toBe(k === 0 ? 'Preflight' : 'Apply');
      expect(error.resources).toHaveLength(Math.max(0, k - 1));
      expect(error.failures[0]?.error.name).toBe('AbortError');
      const patches = h.sim.log.filter((e) => e.method === 'PATCH');
      expect(patches.filter((e) => e.query.dryRun === 'All')).toHaveLength(3);
      expect(patches.filter((e) => e.query.dryRun === undefined)).toHaveLength(Math.max(0, k));
    }
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
  }, 60_000);

  test('aborted before the first request: nothing is sent', async () => {
    await using api = await h.connect();
    h.sim.clearLog();
    const error = await rejection(
      ocp.delete('worker-template', { VM_NAME: 'x' }, { ...WORKER, api, signal: AbortSignal.abort() }),
    );
    expect(error.name).toBe('AbortError');
    expect(h.sim.log).toHaveLength(0);
  });
});
