// Timeouts and cancellation: real connect and read limits over the wire, and AbortSignal.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import type { LogEntry } from '../../simulator/index.ts';

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

describe('timeouts', () => {
  test('connect: a server that accepts TCP but never finishes the TLS handshake', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const address = silent.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const kubeconfig = await h.kubeconfigWith((config) => {
        if (config.clusters[0]) config.clusters[0].cluster.server = `https://127.0.0.1:${port}`;
      });
      const error = await rejection(
        ocp.connect({ kubeconfig, requestTimeout: { connect: 300, read: 5_000 } }),
      );
      expect(error.name).toBe('TimeoutError');
      // Under `npm run test:proxy` it also says the handshake through the proxy had not finished.
      const stage = process.env.OTS_TEST_PROXY
        ? String.raw` \(the TLS handshake through proxy \w+://127\.0\.0\.1:\d+ had not finished\)`
        : '';
      expect(error.message).toMatch(
        new RegExp(
          String.raw`^Connect https://127\.0\.0\.1:${port}: connect timed out after 300 ms${stage}$`,
        ),
      );
      expect(error.cause).toBeDefined();
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  test('read of a dry run: the pre-flight says nothing was stored, not that the mutation may have been applied', async () => {
    // The Secret's first PATCH: its dry run in the pre-flight wave.
    h.sim.addFault({ method: 'PATCH', path: /\/secrets\//, nth: 1, action: { type: 'hang', execute: true } });
    const error = await rejection(
      ocp.create(
        'worker-template',
        { VM_NAME: 'slow-dry' },
        { ...WORKER, api, requestTimeout: { connect: 1_000, read: 300 } },
      ),
    );
    const failure = instance(error, ocp.OperationError);
    expect([failure.operation, failure.resources]).toEqual(['Preflight', []]);
    const timeout = instance(failure.failures[0]?.error, ocp.RequestError);
    expect(timeout.message).toBe(
      'Apply Secret "slow-dry-credentials" in namespace "workers": read timed out after 300 ms; it was a dry run, so nothing was stored',
    );
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'slow-dry-credentials')).toBeUndefined();
  });

  test('read of a mutation: the server applied it, the client timed out, the outcome is reported as unknown', async () => {
    // The Secret's second PATCH: its write, after the pre-flight's dry run passed.
    h.sim.addFault({ method: 'PATCH', path: /\/secrets\//, nth: 2, action: { type: 'hang', execute: true } });
    const error = await rejection(
      ocp.create(
        'worker-template',
        { VM_NAME: 'slow' },
        { ...WORKER, api, requestTimeout: { connect: 1_000, read: 300 } },
      ),
    );
    const failure = instance(error, ocp.OperationError);
    expect(failure.resources.map((r) => r.name)).toEqual(['slow-config']);
    const timeout = instance(failure.failures[0]?.error, ocp.RequestError);
    expect(timeout.name).toBe('TimeoutError');
    // This operation's requestTimeout, not the caller's deadline: a retry may well meet it.
    expect([timeout.code, timeout.timeout]).toEqual(['OTC_TIMEOUT', 'request']);
    expect(timeout.message).toBe(
      'Apply Secret "slow-credentials" in namespace "workers": read timed out after 300 ms; the mutation may or may not have been applied',
    );
    // It was in fact applied: exactly why the outcome of a timed-out mutation is unknown.
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'slow-credentials')).toBeDefined();
    // Three dry runs, then the two writes: the one that timed out was not sent again.
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    expect(patches.map((e) => e.query.dryRun ?? 'write')).toEqual(['All', 'All', 'All', 'write', 'write']);
    h.sim.clearFaults();
    await ocp.delete('worker-template', { VM_NAME: 'slow' }, { ...WORKER, api });
  });

  test('read during discovery: nothing is mutated', async () => {
    await using fresh = await h.connect({ requestTimeout: { connect: 1_000, read: 250 } });
    h.sim.addFault({ method: 'GET', path: '/apis/kubevirt.io/v1', action: { type: 'delay', ms: 1_000 } });
    const error = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'disc' }, { ...WORKER, api: fresh })),
      ocp.RequestError,
    );
    expect(error.name).toBe('TimeoutError');
    expect(error.step).toBe('Discover');
    expect(error.message).toBe('Discover kubevirt.io/v1: read timed out after 250 ms');
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toHaveLength(0);
    // The failed lookup is not cached: the next operation discovers again and succeeds.
    h.sim.clearFaults();
    expect(await ocp.process('worker-template', { VM_NAME: 'disc' }, { ...WORKER, api: fresh })).toHaveLength(
      3,
    );
  });

  test('the longest limits a timer holds still bind as limits, not as 1 ms', async () => {
    // connect + read together pass 2^31 - 1 ms: the operation's deadline must not fire at once.
    const longest = { connect: 1_000, read: 2_147_483_647 };
    expect(
      await ocp.process('worker-template', { VM_NAME: 'x' }, { ...WORKER, api, requestTimeout: longest }),
    ).toHaveLength(3);
  });

  test.each(['first', 'second'] as const)(
    "a caller's read limit bounds its wait for a shared discovery request it started %s",
    async (order) => {
      await using fresh = await h.connect();
      h.sim.addFault({ method: 'GET', path: '/apis/kubevirt.io/v1', action: { type: 'delay', ms: 1_500 } });
      const hastyOptions = { ...WORKER, api: fresh, requestTimeout: { connect: 10_000, read: 400 } };
      const discovered = (): boolean => h.sim.log.some((e) => e.path === '/apis/kubevirt.io/v1');
      let patient: Promise<unknown>;
      let hasty: Promise<Error>;
      if (order === 'first') {
        hasty = rejection(ocp.create('worker-template', { VM_NAME: 'hasty' }, hastyOptions));
        await settles(discovered, true);
        patient = ocp.create('worker-template', { VM_NAME: 'patient' }, { ...WORKER, api: fresh });
      } else {
        patient = ocp.create('worker-template', { VM_NAME: 'patient' }, { ...WORKER, api: fresh });
        await settles(discovered, true);
        hasty = rejection(ocp.create('worker-template', { VM_NAME: 'hasty' }, hastyOptions));
      }
      const error = instance(await hasty, ocp.RequestError);
      expect(error.name).toBe('TimeoutError');
      expect(error.message).toBe('Discover kubevirt.io/v1: read timed out after 400 ms');
      // The shared request went on: the patient caller got its answer, from one discovery request.
      expect(await patient).toHaveLength(3);
      expect(h.sim.log.filter((e) => e.path === '/apis/kubevirt.io/v1')).toHaveLength(1);
      expect(h.sim.log.filter((e) => e.method === 'PATCH' && e.path.includes('hasty'))).toHaveLength(0);
      h.sim.clearFaults();
      await ocp.delete('worker-template', { VM_NAME: 'patient' }, { ...WORKER, api: fresh });
    },
  );

  test('a body that stalls mid-way is a read timeout too', async () => {
    h.sim.addFault({ method: 'GET', path: /\/templates\//, action: { type: 'stall-body', ms: 1_000 } });
    const error = instance(
      await rejection(
        ocp.process('worker-template', { VM_NAME: 'x' }, { ...WORKER, api, requestTimeout: 250 }),
      ),
      ocp.RequestError,
    );
    expect(error.name).toBe('TimeoutError');
    expect(error.step).toBe('Get');
  });
});

describe('cancellation', () => {
  test('aborted before the first request: nothing is sent', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      ocp.create('worker-template', { VM_NAME: 'never' }, { ...WORKER, api, signal: controller.signal }),
    );
    expect(error.name).toBe('AbortError');
    expect(h.sim.log).toHaveLength(0);
  });

  test('aborted during the second apply: OperationError lists exactly the first', async () => {
    const controller = new AbortController();
    // The Secret's second PATCH: its write, after the pre-flight's dry run passed.
    h.sim.addFault({ method: 'PATCH', path: /\/secrets\//, nth: 2, action: { type: 'delay', ms: 2_000 } });
    const pending = ocp.create(
      'worker-template',
      { VM_NAME: 'cancel' },
      { ...WORKER, api, signal: controller.signal },
    );
    const waitForSecret = async (): Promise<void> => {
      const write = (e: LogEntry): boolean =>
        e.method === 'PATCH' && e.path.includes('/secrets/') && e.query.dryRun === undefined;
      while (!h.sim.log.some(write)) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await waitForSecret();
    controller.abort();
    const failure = instance(await rejection(pending), ocp.OperationError);
    expect(failure.resources.map((r) => r.name)).toEqual(['cancel-config']);
    expect(failure.failures[0]?.error.name).toBe('AbortError');
    expect(h.sim.log.filter((e) => e.method === 'PATCH' && e.query.dryRun === undefined)).toHaveLength(2);
    // A timeout signal is reported as a timeout.
    const timed = instance(
      await rejection(
        ocp.delete(
          'worker-template',
          { VM_NAME: 'cancel' },
          { ...WORKER, api, signal: AbortSignal.timeout(0) },
        ),
      ),
      ocp.RequestError,
    );
    expect(timed.name).toBe('TimeoutError');
    // The caller's own deadline: the same code, told apart by the field.
    expect([timed.code, timed.timeout]).toEqual(['OTC_TIMEOUT', 'signal']);
  });
});

test('a signal that already fired names what it was, and nothing is sent', async () => {
  const error = await rejection(
    ocp.process(
      'worker-template',
      { VM_NAME: 'x' },
      { ...WORKER, signal: AbortSignal.abort(new DOMException('late', 'TimeoutError')) },
    ),
  );
  expect(error.name).toBe('TimeoutError');
  expect(error.message).toBe('Connect the default kubeconfig: timed out before the request was sent');
  expect(h.sim.log).toHaveLength(0);
});
