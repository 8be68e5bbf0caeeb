// Connections: TLS verification, credentials, in-cluster auth, pooling and ownership.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import { runInPod } from '../pod.ts';
import { startSimulator } from '../../simulator/index.ts';

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await harness();
  dir = await mkdtemp(join(tmpdir(), 'ots-connection-'));
  const objects = Array.from({ length: 20 }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: '${P}-' + String(i) },
  }));
  h.sim.seedTemplate('twenty', [{ name: 'P', value: 'cm' }], objects);
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

describe('pooling and ownership', () => {
  test('one TCP connection and one TLS handshake for a whole 20-object create over HTTP/2; the pool over HTTP/1.1', async () => {
    const before = h.sim.stats();
    await using api = await h.connect();
    const overH2 = h.sim.stats().h2 > before.h2;
    const refs = await ocp.create('twenty', {}, { ...WORKER, api });
    expect(refs).toHaveLength(20);
    const after = h.sim.stats();
    const opened = after.connections - before.connections;
    if (overH2) {
      expect(opened).toBe(1);
    } else {
      // The pre-flight's 20 dry runs and its quota list are in flight at once: the pool opens a
      // socket for each it may (at most maxSockets, 32, and never more than the wave), and the
      // writes reuse them.
      expect(opened).toBeGreaterThan(1);
      expect(opened).toBeLessThanOrEqual(21);
    }
    expect(after.handshakes - before.handshakes).toBe(opened);
    // connect, template and processing, the OpenAPI root and the one document, the quota list, the
    // dry runs, the applies.
    expect(h.sim.log).toHaveLength(1 + 2 + 2 + 1 + 20 + 20);
    expect(h.sim.log.filter((e) => e.method === 'PATCH' && e.query.dryRun === 'All')).toHaveLength(20);
    await ocp.delete('twenty', {}, { ...WORKER, api });
    expect(h.sim.stats().handshakes - before.handshakes).toBe(opened);
  });

  test('an injected connection stays open; an own connection is closed on success and on failure', async () => {
    const api = await h.connect();
    await ocp.process('worker-template', { VM_NAME: 'own' }, { ...WORKER, api });
    expect(h.sim.stats().openSockets).toBe(1);
    await ocp.process('worker-template', { VM_NAME: 'own' }, { ...WORKER, api });
    expect(h.sim.stats().openSockets).toBe(1);
    await api.close();
    await api.close();
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);

    await ocp.process('worker-template', { VM_NAME: 'own' }, WORKER);
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
    const error = await rejection(ocp.process('missing-template', {}, WORKER));
    expect(instance(error, ocp.RequestError).statusCode).toBe(404);
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
  });

  test('concurrent first lookups of a group-version share one discovery request', async () => {
    await using api = await h.connect();
    await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map((name) =>
        ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api }),
      ),
    );
    expect(h.sim.log.filter((e) => e.path === '/apis/kubevirt.io/v1')).toHaveLength(1);
    expect(h.sim.log.filter((e) => e.path === '/api/v1')).toHaveLength(1);
    await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map((name) =>
        ocp.delete('worker-template', { VM_NAME: name }, { ...WORKER, api }),
      ),
    );
    expect(h.sim.log.filter((e) => e.path === '/apis/kubevirt.io/v1')).toHaveLength(1);
  });

  test('kind Template resolves to templates, never processedtemplates', async () => {
    h.sim.seedTemplate(
      'template-maker',
      [],
      [{ apiVersion: 'template.openshift.io/v1', kind: 'Template', metadata: { name: 'made' }, objects: [] }],
    );
    await using api = await h.connect();
    await ocp.create('template-maker', {}, { ...WORKER, api });
    // Its dry run in the pre-flight, then its write.
    expect(h.sim.log.filter((e) => e.method === 'PATCH').map((e) => e.path)).toEqual([
      '/apis/template.openshift.io/v1/namespaces/workers/templates/made',
      '/apis/template.openshift.io/v1/namespaces/workers/templates/made',
    ]);
    expect(await ocp.delete('template-maker', {}, { ...WORKER, api })).toHaveLength(1);
  });
});

describe('the transport the server offers', () => {
  test.each(['h2', 'http1'] as const)(
    'a server offering %s: later handshakes resume the TLS session, even after a garbage collection',
    async (protocol) => {
      const sim = await startSimulator({ protocol });
      const path = join(dir, `resume-${protocol}.json`);
      try {
        await sim.writeKubeconfig(path);
        await using api = await ocp.connect({ kubeconfig: path });
        await ocp.process('worker-template', { VM_NAME: 'r' }, { ...WORKER, api });
        // New connections: a burst grows the HTTP/1.1 pool; HTTP/2 needs a new session after a drop.
        if (protocol === 'h2') sim.dropConnections();
        const names = Array.from({ length: protocol === 'h2' ? 1 : 8 }, (_, i) => `r${String(i)}`);
        // undici's own session cache holds WeakRefs: a collection here empties it.
        setFlagsFromString('--expose-gc');
        (runInNewContext('gc') as () => void)();
        await Promise.all(
          names.map((name) => ocp.process('worker-template', { VM_NAME: name }, { ...WORKER, api })),
        );
        const stats = sim.stats();
        expect(stats.handshakes).toBeGreaterThan(1);
        expect(stats.resumedHandshakes).toBe(stats.handshakes - 1);
        if (protocol === 'h2') expect([stats.connections, stats.http1]).toEqual([2, 0]);
        else expect(stats.h2).toBe(0);
      } finally {
        await sim.close();
      }
    },
  );
});

describe('http2: false', () => {
  test('offers the server HTTP/1.1 only, and anything but a boolean is refused', async () => {
    const sim = await startSimulator({ protocol: 'h2' });
    const path = join(dir, 'no-h2.json');
    try {
      await sim.writeKubeconfig(path);
      await using api = await ocp.connect({ kubeconfig: path, http2: false });
      await ocp.process('worker-template', { VM_NAME: 'plain' }, { ...WORKER, api });
      const stats = sim.stats();
      expect([stats.h2, stats.http1 > 0]).toEqual([0, true]);
      const refused = instance(
        await rejection(ocp.connect({ kubeconfig: path, http2: 'no' as unknown as boolean })),
        ocp.ValidationError,
      );
      expect(refused.issues).toEqual(['http2 must be a boolean']);
    } finally {
      await sim.close();
    }
  });
});

describe('TLS and credentials', () => {
  test('TLS is verified by default: an unknown CA fails at connect and leaves nothing open', async () => {
    const stranger = await startSimulator({ seedExamples: false });
    try {
      const path = await h.kubeconfigWith((c) => {
        const cluster = c.clusters[0];
        if (!cluster) return;
        // Only the server's CA is swapped: under `OTS_TEST_PROXY=https` the bundle also vouches for the proxy.
        const bundle = Buffer.from(cluster.cluster['certificate-authority-data'], 'base64').toString();
        cluster.cluster['certificate-authority-data'] = Buffer.from(
          bundle.replace(h.sim.caCert, stranger.caCert),
        ).toString('base64');
      });
      const error = instance(await rejection(ocp.connect({ kubeconfig: path })), ocp.RequestError);
      expect(error.step).toBe('Connect');
      expect(error.message).toMatch(
        // Under `npm run test:proxy` the failure also names the proxy it went through.
        /^Connect https:\/\/127\.0\.0\.1:\d+: request failed (through proxy \S+ )?\((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/,
      );
      expect(error.cause).toBeInstanceOf(Error);
      expect(h.sim.log.filter((e) => e.path === '/api/v1')).toHaveLength(0);

      await using insecure = await ocp.connect({ kubeconfig: path, verifySsl: false });
      const objects = await ocp.process('worker-template', { VM_NAME: 'tls' }, { ...WORKER, api: insecure });
      expect(objects).toHaveLength(3);
    } finally {
      await stranger.close();
    }
    expect(await settles(() => h.sim.stats().openSockets, 0)).toBe(0);
  });

  test("without the cluster's CA the TLS error points at the kubeconfig's certificate-authority first", async () => {
    const path = await h.kubeconfigWith((c) => {
      const cluster = c.clusters[0]?.cluster as Record<string, unknown> | undefined;
      if (!cluster) return;
      // Under `OTS_TEST_PROXY=https` the bundle also vouches for the proxy: only the server's CA goes.
      const bundle = Buffer.from(String(cluster['certificate-authority-data']), 'base64').toString();
      const rest = bundle.replace(h.sim.caCert, '');
      if (rest.trim() === '') delete cluster['certificate-authority-data'];
      else cluster['certificate-authority-data'] = Buffer.from(rest).toString('base64');
    });
    const error = instance(await rejection(ocp.connect({ kubeconfig: path })), ocp.RequestError);
    expect(error.message).toMatch(
      /request failed (through proxy \S+ )?\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): the server's certificate is not signed by a CA this Connection trusts: give the kubeconfig's cluster the CA that signed it, as certificate-authority \(a PEM file\) or certificate-authority-data \(base64 PEM\); Node\.js says: /,
    );
    expect(h.sim.log.filter((e) => e.path === '/api/v1')).toHaveLength(0);
  });

  test('a certificate for another host name is refused', async () => {
    const path = await h.kubeconfigWith((c) => {
      const cluster = c.clusters[0]?.cluster as Record<string, unknown>;
      cluster['tls-server-name'] = 'api.other.example';
    });
    const error = instance(await rejection(ocp.connect({ kubeconfig: path })), ocp.RequestError);
    expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  test('an unknown token gets 401 at connect; an unknown context is a ValidationError', async () => {
    let config = h.sim.kubeconfig;
    const path = await h.kubeconfigWith((c) => {
      config = c;
      for (const user of c.users) user.user.token = 'wrong-token-value';
    });
    const error = instance(await rejection(ocp.connect({ kubeconfig: path })), ocp.RequestError);
    expect(error.statusCode).toBe(401);
    expect(error.message).toMatch(/^Connect https:\/\/127\.0\.0\.1:\d+: 401 Unauthorized: Unauthorized; /);
    expect(error.message).toContain(
      `the server refused the credentials of user "${config.users[0]?.name ?? ''}" (context "${config['current-context']}"): log in again or refresh the token`,
    );
    expect(error.message).not.toContain('wrong-token-value');
    const context = await rejection(ocp.connect({ kubeconfig: h.kubeconfig, context: 'nope' }));
    expect(context).toBeInstanceOf(ocp.ValidationError);
    const names = h.sim.kubeconfig.contexts.map((c) => `"${c.name}"`).join(', ');
    expect(context.message).toContain(
      `context "nope" is not in kubeconfig "${h.kubeconfig}"; it has ${names}`,
    );
  });

  test('a broken kubeconfig names the file and never quotes it', async () => {
    const path = join(dir, 'broken.yaml');
    await writeFile(path, 'users:\n- name: x\n  user: {token: "leaked-token-123"\n');
    const error = await rejection(ocp.connect({ kubeconfig: path }));
    expect(error.message).toContain(`kubeconfig "${path}"`);
    expect(error.message).not.toContain('leaked-token-123');
    expect((error.cause as Error).message).not.toContain('leaked-token-123');
    const missing = await rejection(ocp.connect({ kubeconfig: join(dir, 'absent') }));
    expect(missing.message).toContain('ENOENT');
    // The file-system error survives as the cause, with its code and path.
    expect(missing.cause).toMatchObject({ code: 'ENOENT', path: join(dir, 'absent') });
  });

  test('in-cluster ServiceAccount auth reads the token and CA from the pod paths', async () => {
    h.sim.addToken('sa-token-value', { user: 'system:serviceaccount:workers:scheduler' });
    const port = new URL(h.sim.url).port;
    const stdout = await runInPod(h.sim, 'sa-token-value', 'test/fixtures/in-cluster.ts');
    expect(JSON.parse(stdout)).toEqual({
      server: `https://127.0.0.1:${port}`,
      names: ['in-pod-config', 'in-pod-credentials', 'in-pod'],
    });
    expect(h.sim.log.map((e) => e.user)).toEqual(Array(3).fill('system:serviceaccount:workers:scheduler'));
  });

  test('inCluster outside a pod says so', async () => {
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      const error = await rejection(ocp.connect({ inCluster: true }));
      expect(error.message).toContain('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
    } finally {
      if (saved !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved;
    }
  });
});
