import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

test('process, create, get and delete a worker', async () => {
  const api = await h.connect();
  try {
    const params = { VM_NAME: 'worker-001', IMAGE_TAG: '1.2.3' };
    const objects = await ocp.process('worker-template', params, { ...WORKER, api });
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'ConfigMap/worker-001-config',
      'Secret/worker-001-credentials',
      'VirtualMachine/worker-001',
    ]);
    const refs = await ocp.create('worker-template', params, { ...WORKER, api });
    expect(refs).toHaveLength(3);
    const live = await ocp.get('worker-template', params, { ...WORKER, api });
    expect(live[2]?.status).toEqual({ printableStatus: 'Stopped', ready: false });
    const deleted = await ocp.delete('worker-template', params, { ...WORKER, api });
    expect(deleted.map((r) => r.kind)).toEqual(['VirtualMachine', 'Secret', 'ConfigMap']);
    // One connection over HTTP/2; over HTTP/1.1 the pre-flight's three dry runs and its quota list,
    // in flight at once, may each take a socket of the pool (and a handshake), which the rest of the
    // job reuses.
    const { handshakes, h2 } = h.sim.stats();
    if (h2 > 0) expect(handshakes).toBe(1);
    else expect([handshakes >= 1, handshakes <= 4]).toEqual([true, true]);
  } finally {
    await api.close();
  }
});
