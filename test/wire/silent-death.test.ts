// A connection that dies silently (a load balancer fails over: no FIN, no RST, nothing answers)
// is found and replaced: over HTTP/2 by a PING health check after a read timeout or before an
// idle session is used again, over HTTP/1.1 by undici dropping the socket whose answer timed out.
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

/** Operations one after another until one succeeds (at most `limit`): how many failed first. */
async function failuresUntilRecovered(
  api: ocp.Connection,
  limit = 6,
): Promise<{ failed: number; messages: string[] }> {
  const messages: string[] = [];
  for (let i = 0; i < limit; i++) {
    try {
      await ocp.process('worker-template', { VM_NAME: `after-${i}` }, { ...WORKER, api });
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
