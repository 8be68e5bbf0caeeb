// Cancellation: aborts a few milliseconds into a request never wedge the process, over a server
// that offers HTTP/2 and over an HTTP/1.1-only one; and an operation's signal covers the
// connection it opens for itself, like connect({ signal }).
import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { startSimulator } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

const run = promisify(execFile);

describe.each(['h2', 'http1'] as const)(
  'aborts 0-2 ms into creates and deletes, server offering %s',
  (protocol) => {
    test('leave a responsive process and a working Connection', async () => {
      const sim = await startSimulator({ protocol });
      const path = `${process.env.TMPDIR ?? '/tmp'}/ots-storm-${protocol}-${process.pid}.json`;
      try {
        await sim.writeKubeconfig(path);
        // A wedged child never finishes; the deadline turns that into a failure instead of a hang.
        const { stdout } = await run(process.execPath, ['test/fixtures/abort-storm.ts'], {
          env: { ...process.env, OTS_STORM_KUBECONFIG: path },
          timeout: 90_000,
          killSignal: 'SIGKILL',
        });
        const result = JSON.parse(stdout) as {
          aborted: number;
          completed: number;
          after: number;
          maxLoopDelayMs: number;
        };
        expect(result.aborted + result.completed).toBe(150);
        expect(result.aborted).toBeGreaterThan(0);
        expect(result.after).toBe(3);
        // Not a speed check: a wedged event loop stalls for seconds, a healthy one for milliseconds.
        expect(result.maxLoopDelayMs).toBeLessThan(5_000);
        // The transport the server offered is the one the storm ran on.
        const stats = sim.stats();
        if (protocol === 'h2') expect([stats.http1, stats.h2 > 0]).toEqual([0, true]);
        else expect(stats.h2).toBe(0);
      } finally {
        await sim.close();
      }
    }, 120_000);
  },
);

describe.each(['h2', 'http1'] as const)('a Connection never closed, server offering %s', (protocol) => {
  test('does not keep the process alive once idle', async () => {
    const sim = await startSimulator({ protocol });
    const path = `${process.env.TMPDIR ?? '/tmp'}/ots-forgotten-${protocol}-${process.pid}.json`;
    try {
      await sim.writeKubeconfig(path);
      // A process held open by an idle socket never exits; the deadline turns that into a failure.
      const { stdout } = await run(process.execPath, ['test/fixtures/forgotten-connection.ts'], {
        env: { ...process.env, OTS_FORGOTTEN_KUBECONFIG: path },
        timeout: 30_000,
        killSignal: 'SIGKILL',
      });
      expect(JSON.parse(stdout)).toEqual({ objects: 3 });
      expect(sim.stats()[protocol]).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  }, 60_000);
});

describe("an operation's signal covers its own connection", () => {
  let h: Harness;
  let silent: Server;
  let sockets: Socket[] = [];
  let kubeconfig: string;
  beforeAll(async () => {
    h = await harness();
    // Load client-node once, so that the signals below fire while a request is under way.
    await (await h.connect()).close();
    // Accepts TCP and never says a word: the TLS handshake never completes.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    kubeconfig = await h.kubeconfigWith((c) => {
      for (const cluster of c.clusters) cluster.cluster.server = `https://127.0.0.1:${port}`;
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    sockets = [];
    await new Promise((resolve) => silent.close(resolve));
    await h.close();
  });

  test('a timeout signal ends the implicit connect as a TimeoutError', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = kubeconfig;
    try {
      const error = instance(
        await rejection(
          ocp.create('worker-template', { VM_NAME: 'x' }, { ...WORKER, signal: AbortSignal.timeout(200) }),
        ),
        ocp.RequestError,
      );
      expect(error.name).toBe('TimeoutError');
      expect(error.step).toBe('Connect');
      expect(error.message).toMatch(/: timed out$/);
    } finally {
      process.env.KUBECONFIG = saved;
    }
  });

  test('a manual abort ends the implicit connect as an AbortError', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = kubeconfig;
    try {
      const controller = new AbortController();
      setTimeout(() => {
        controller.abort();
      }, 100);
      const error = instance(
        await rejection(
          ocp.get('worker-template', { VM_NAME: 'x' }, { ...WORKER, signal: controller.signal }),
        ),
        ocp.RequestError,
      );
      expect(error.name).toBe('AbortError');
      expect(error.message).toMatch(/: aborted$/);
    } finally {
      process.env.KUBECONFIG = saved;
    }
  });

  test('connect({ signal }) takes a signal, and an aborted one sends nothing', async () => {
    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 100);
    const error = instance(
      await rejection(ocp.connect({ kubeconfig, signal: controller.signal })),
      ocp.RequestError,
    );
    expect(error.name).toBe('AbortError');
    const before = h.sim.log.length;
    const early = instance(
      await rejection(ocp.connect({ kubeconfig: h.kubeconfig, signal: AbortSignal.abort() })),
      ocp.RequestError,
    );
    expect(early.message).toContain('aborted before the request was sent');
    expect(h.sim.log.length).toBe(before);
  });
});
