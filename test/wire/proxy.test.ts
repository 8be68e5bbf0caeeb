// Through a proxy, the Connection keeps its own transport: one tunnel per connection it would open
// anyway, TLS end to end with the kubeconfig's verification, credentials used and never printed,
// over HTTP/2 and HTTP/1.1. Choice and failures: proxy-setup.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import {
  closeProxies,
  cut,
  HIDDEN,
  KINDS,
  kubeconfigAt,
  PARAMS,
  PASSWORD,
  proxy,
  USER,
} from '../proxy-world.ts';

afterEach(closeProxies);

describe.each(['h2', 'http1'] as const)('a server speaking %s', (protocol) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ protocol });
  });
  afterAll(async () => {
    await h.close();
  });

  test.each(KINDS)(
    'through an %s proxy: one tunnel per connection, TLS end to end, credentials sent',
    async (kind) => {
      const p = await proxy(kind);
      const connectionsBefore = h.sim.stats().connections;
      const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, p.urlWithCredentials, p) });
      onTestFinished(() => api.close());
      for (let i = 0; i < 20; i++) {
        await ocp.create('worker-template', PARAMS, { ...WORKER, api });
        await ocp.get('worker-template', PARAMS, { ...WORKER, api });
        await ocp.delete('worker-template', PARAMS, { ...WORKER, api });
      }
      // Sequential work: one tunnel over HTTP/2. Over HTTP/1.1 the pre-flight's three dry runs and its
      // quota list are in flight at once, so the pool holds up to four sockets, each its own tunnel,
      // reused by every job.
      const target = `${HIDDEN}:${new URL(h.sim.url).port}`;
      if (protocol === 'h2') expect(p.tunnels).toEqual([target]);
      else expect(p.tunnels.length).toBeLessThanOrEqual(4);
      expect(new Set(p.tunnels)).toEqual(new Set([target]));
      expect(p.tunnels).toHaveLength(h.sim.stats().connections - connectionsBefore);
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          ocp.create('worker-template', { ...PARAMS, VM_NAME: `px${i}` }, { ...WORKER, api }),
        ),
      );
      const connections = h.sim.stats().connections - connectionsBefore;
      expect(p.tunnels).toHaveLength(connections);
      if (protocol === 'h2') expect(connections).toBe(1);
      else expect(connections).toBeLessThanOrEqual(32);
      const expected =
        kind === 'socks5'
          ? `${USER}:${PASSWORD}`
          : `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
      expect(new Set(p.credentialsSeen)).toEqual(new Set([expected]));
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          ocp.delete('worker-template', { ...PARAMS, VM_NAME: `px${i}` }, { ...WORKER, api }),
        ),
      );
    },
  );

  test('a tunnel the proxy cuts is replaced by the next operation; one cut mid-request names the proxy', async () => {
    const p = await proxy('http');
    const api = await ocp.connect({
      kubeconfig: await kubeconfigAt(h, HIDDEN, p.urlWithCredentials, p),
      requestTimeout: { connect: 2_000, read: 2_000 },
    });
    onTestFinished(() => api.close());
    await cut(p);
    await ocp.process('worker-template', PARAMS, { ...WORKER, api });
    expect(p.tunnels).toHaveLength(2);
    h.sim.clearLog();
    // The first object's write (its second PATCH, after the pre-flight's dry run): a dry run cut
    // mid-request would be sent once more, a write never.
    h.sim.addFault({
      method: 'PATCH',
      path: /\/configmaps\//,
      nth: 2,
      action: { type: 'hang', execute: false },
    });
    onTestFinished(() => {
      h.sim.clearFaults();
    });
    const creating = rejection(ocp.create('worker-template', PARAMS, { ...WORKER, api }));
    await settles(() => h.sim.log.some((e) => e.method === 'PATCH' && e.query.dryRun === undefined), true);
    p.cutAll();
    const error = instance(await creating, ocp.OperationError);
    const failure = instance(error.failures[0]?.error, ocp.RequestError);
    expect(failure.message).toContain(`through proxy ${p.url}`);
    expect(failure.message).toContain('may or may not have been applied');
    expect(error.resources).toEqual([]);
    h.sim.clearFaults();
    // Over HTTP/1.1 the wave opened a tunnel per socket it needed: count from here.
    const cutTunnels = p.tunnels.length;
    if (protocol === 'h2') expect(cutTunnels).toBe(2);
    await ocp.delete('worker-template', PARAMS, { ...WORKER, api });
    if (protocol === 'h2') expect(p.tunnels).toHaveLength(3);
    else expect(p.tunnels.length).toBeGreaterThan(cutTunnels);
  });
  test('a SOCKS5 reply cut short is the proxy error; a mutation behind it says nothing was sent', async () => {
    const p = await proxy('socks5');
    const reply = `proxy ${p.url} (the proxy-url of cluster "simulator"): it closed the connection in the middle of its answer to CONNECT ${HIDDEN}:${new URL(h.sim.url).port}; nothing was sent`;
    p.behave({ type: 'truncate' });
    const refused = instance(
      await rejection(ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, p.urlWithCredentials) })),
      ocp.RequestError,
    );
    expect(refused.message).toMatch(/^Connect https:\/\/api\.cluster\.test:\d+: /);
    expect(refused.message).toContain(reply);
    p.behave({ type: 'forward' });
    const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, p.urlWithCredentials) });
    onTestFinished(() => api.close());
    const refs = await ocp.create('worker-template', PARAMS, { ...WORKER, api });
    await cut(p);
    p.behave({ type: 'truncate' });
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.delete({ namespace: WORKER.namespace, resources: refs, api })),
      ocp.OperationError,
    );
    const failure = instance(error.failures[0]?.error, ocp.RequestError);
    expect(failure.message).toContain(reply);
    expect(failure.message).not.toContain('may or may not');
    expect(h.sim.log).toHaveLength(0);
    p.behave({ type: 'forward' });
    await ocp.delete({ namespace: WORKER.namespace, resources: refs, api });
  });
});
