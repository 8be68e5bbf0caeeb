// Cancellation: aborts a few milliseconds into a request never wedge the process, over a server
// that offers HTTP/2 and over an HTTP/1.1-only one; and an operation's signal covers the
// connection it opens for itself, like connect({ signal }).
import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

const run = promisify(execFile);

/**
 * Runs a fixture script in a child process against a fresh simulator offering `protocol`. A child
 * that never ends (a wedged event loop, a socket holding the process open) is killed at the
 * deadline, which fails the test instead of hanging it.
 */
async function runFixture(
  protocol: 'h2' | 'http1',
  fixture: string,
  deadlineMs: number,
): Promise<{ output: unknown; stats: ReturnType<Simulator['stats']> }> {
  const sim = await startSimulator({ protocol });
  const path = `${process.env.TMPDIR ?? '/tmp'}/ots-fixture-${protocol}-${process.pid}.json`;
  try {
    await sim.writeKubeconfig(path);
    const { stdout } = await run(process.execPath, [`test/fixtures/${fixture}`], {
      env: { ...process.env, OTS_FIXTURE_KUBECONFIG: path },
      timeout: deadlineMs,
      killSignal: 'SIGKILL',
    });
    return { output: JSON.parse(stdout) as unknown, stats: sim.stats() };
  } finally {
    await sim.close();
  }
}

describe.each(['h2', 'http1'] as const)(
  'aborts 0-2 ms into creates and deletes, server offering %s',
  (protocol) => {
    test('leave a responsive process and a working Connection', async () => {
      const { output, stats } = await runFixture(protocol, 'abort-storm.ts', 90_000);
      const result = output as { aborted: number; completed: number; after: number; maxLoopDelayMs: number };
      expect(result.aborted + result.completed).toBe(150);
      expect(result.aborted).toBeGreaterThan(0);
      expect(result.after).toBe(3);
      // Not a speed check: a wedged event loop stalls for seconds, a healthy one for milliseconds.
      expect(result.maxLoopDelayMs).toBeLessThan(5_000);
      // The transport the server offered is the one the storm ran on.
      if (protocol === 'h2') expect([stats.http1, stats.h2 > 0]).toEqual([0, true]);
      else expect(stats.h2).toBe(0);
    }, 120_000);
  },
);

describe.each(['h2', 'http1'] as const)('a Connection never closed, server offering %s', (protocol) => {
  test('does not keep the process alive once idle', async () => {
    const { output, stats } = await runFixture(protocol, 'forgotten-connection.ts', 30_000);
    expect(output).toEqual({ objects: 3 });
    expect(stats[protocol]).toBeGreaterThan(0);
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
