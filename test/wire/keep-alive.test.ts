// Over HTTP/1.1 the pool keeps its sockets between jobs as client-go does: a server that does not
// announce a keep-alive limit (kube-apiserver never does; the simulator now plays it so) finds the
// second create's pre-flight wave on the sockets the first one opened, after a pause longer than
// undici's own 4 s, so no wave pays a handshake per socket.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness({ protocol: 'http1' });
});
afterAll(async () => {
  await h.close();
});

/** Longer than undici's default keep-alive (4 s) and Node's server default (5 s). */
const PAUSE_MS = 6_000;

describe('HTTP/1.1 sockets idle between two jobs', () => {
  test(
    `are reused after ${String(PAUSE_MS / 1000)} s: the second pre-flight wave opens no connection`,
    async () => {
      await using api = await h.connect();
      const create = (): Promise<ocp.CreatedRef[]> =>
        ocp.create('worker-template', { VM_NAME: 'idle-vm' }, { ...WORKER, api });
      const refs = await create();
      const opened = h.sim.stats().connections;
      // The wave carried each object's dry run and the quota list at once, each on a socket.
      expect(opened).toBeGreaterThanOrEqual(refs.length);
      await sleep(PAUSE_MS);
      expect(h.sim.stats().openSockets).toBe(opened);
      await create();
      expect(h.sim.stats().connections).toBe(opened);
      await ocp.delete('worker-template', { VM_NAME: 'idle-vm' }, { ...WORKER, api });
    },
    PAUSE_MS + 30_000,
  );
});
