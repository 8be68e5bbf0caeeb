// A connection that dies silently (a load balancer fails over: no FIN, no RST, nothing answers)
// is found and replaced: over HTTP/2 by a PING health check after a read timeout or before an
// idle session is used again, over HTTP/1.1 by undici dropping the socket whose answer timed out
// and the library retiring the rest of the pool with it.
// The relay (test/relay.ts) freezes the connections it carries while new ones go through.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, WORKER } from '../helpers.ts';
import { type Relay, startRelay } from '../relay.ts';

const READ_MS = 1_000;

let h: Harness;
let relay: Relay;
let kubeconfig: string;
beforeAll(async () => {
  h = await harness();
  relay = await startRelay(h.sim.url);
  kubeconfig = await h.kubeconfigWith((c) => {
    for (const cluster of c.clusters) cluster.cluster.server = relay.url;
  });
});
afterAll(async () => {
  await relay.close();
  await h.close();
});

type Operation = (api: ocp.Connection, i: number) => Promise<unknown>;

const processOne: Operation = (api, i) =>
  ocp.process('worker-template', { VM_NAME: `after-${i}` }, { ...WORKER, api });

/** Operations one after another until one succeeds (at most `limit`): how many failed first. */
async function failuresUntilRecovered(
  api: ocp.Connection,
  operation = processOne,
  limit = 6,
): Promise<{ failed: number; messages: string[] }> {
  const messages: string[] = [];
  for (let i = 0; i < limit; i++) {
    try {
      await operation(api, i);
      return { failed: messages.length, messages };
    } catch (error) {
      messages.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { failed: messages.length, messages };
}

describe.each([
  ['HTTP/2', true],
  ['HTTP/1.1', false],
] as const)('over %s', (_name, http2) => {
  test('a connection frozen while in use: at most 2 failed operations, then a new connection', async () => {
    await using api = await ocp.connect({
      kubeconfig,
      http2,
      requestTimeout: { connect: 1_000, read: READ_MS },
    });
    await ocp.process('worker-template', { VM_NAME: 'warm' }, { ...WORKER, api });
    const before = relay.accepted;
    relay.freeze();
    const { failed, messages } = await failuresUntilRecovered(api);
    expect(failed, messages.join('\n')).toBeLessThanOrEqual(2);
    for (const message of messages) expect(message).toMatch(/read timed out after 1000 ms/);
    expect(relay.accepted).toBeGreaterThan(before);
  }, 30_000);

  test('a connection frozen while idle: at most 2 failed operations, then a new connection', async () => {
    await using api = await ocp.connect({
      kubeconfig,
      http2,
      requestTimeout: { connect: 1_000, read: READ_MS },
    });
    await ocp.process('worker-template', { VM_NAME: 'warm' }, { ...WORKER, api });
    relay.freeze();
    // Idle for longer than the read limit: over HTTP/2 the session is checked before it is used.
    await new Promise((resolve) => setTimeout(resolve, READ_MS * 1.5));
    const { failed, messages } = await failuresUntilRecovered(api);
    // An HTTP/1.1-only simulator (npm run test:http1) gets HTTP/1.1 whatever the client offers.
    const overH2 = http2 && h.sim.protocol === 'h2';
    expect(failed, messages.join('\n')).toBeLessThanOrEqual(overH2 ? 0 : 2);
  }, 30_000);
});

// Over HTTP/1.1 the pool keeps its idle sockets for 88 s (src/wire/h1.ts), so a failover finds all
// of them dead at once: a create's pre-flight wave left one per dry run. Sequential requests reuse
// the pool's first socket, but the next wave would take the others, each silent until its read
// limit: one more failed create, had the first read timeout not retired the whole pool.
describe('over HTTP/1.1, a pool of idle sockets frozen together', () => {
  test('the first create to meet one fails, and the next runs on new sockets', async () => {
    await using api = await ocp.connect({
      kubeconfig,
      http2: false,
      requestTimeout: { connect: 1_000, read: READ_MS },
    });
    const created: string[] = [];
    const createOne: Operation = async (connection, i) => {
      const name = `pooled-${String(i)}`;
      await ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api: connection });
      created.push(name);
    };
    const before = relay.accepted;
    await createOne(api, 99);
    // The wave's three dry runs and the quota list went out at once, each on a socket.
    expect(relay.accepted - before).toBeGreaterThanOrEqual(3);
    relay.freeze();
    await new Promise((resolve) => setTimeout(resolve, READ_MS * 1.5));
    const { failed, messages } = await failuresUntilRecovered(api, createOne);
    expect(failed, messages.join('\n')).toBe(1);
    for (const name of created) await ocp.delete('worker-template', { VM_NAME: name }, { ...WORKER, api });
  }, 30_000);
});
