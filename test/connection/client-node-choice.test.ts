// Why the library sends its own apply bodies instead of KubernetesObjectApi's: measured here, so the
// choice is revisited when client-node changes. With client-node 2.0.1, an int-or-string value
// survives KubernetesObjectApi's serializer, but a field its generated model does not know vanishes
// from the server-side apply body of a built-in kind (and would lose its owner on the server).
import { KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.sim.seedTemplate(
    'future-service',
    [],
    [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'future' },
        spec: { ports: [{ port: 80, targetPort: 'http' }], futureField: 'kept' },
      },
    ],
  );
});
afterAll(async () => {
  await h.close();
});

function appliedBody(): Record<string, unknown> {
  const patch = h.sim.log.filter((e) => e.method === 'PATCH').at(-1);
  return JSON.parse(patch?.body ?? '{}') as Record<string, unknown>;
}

const SERVICE = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'future', namespace: 'workers' },
  spec: { ports: [{ port: 80, targetPort: 'http' }], futureField: 'kept' },
};

test("KubernetesObjectApi keeps int-or-string values but drops a built-in kind's unknown fields", async () => {
  const kc = new KubeConfig();
  // Direct, even under `npm run test:proxy`: client-node 2.0.1's own SOCKS5 connector does not send
  // the credentials in a proxy URL, and this test is about its models, not its proxies.
  kc.loadFromFile(
    await h.kubeconfigWith((config) => {
      delete (config.clusters[0]?.cluster as Record<string, unknown> | undefined)?.['proxy-url'];
    }),
  );
  const client = KubernetesObjectApi.makeApiClient(kc);
  await client.patch(
    structuredClone(SERVICE),
    undefined,
    undefined,
    'client-node',
    undefined,
    PatchStrategy.ServerSideApply,
  );
  const body = appliedBody() as { spec: Record<string, unknown> & { ports: { targetPort: unknown }[] } };
  expect(body.spec.ports[0]?.targetPort).toBe('http');
  expect(body.spec).not.toHaveProperty('futureField');
});

test('the library applies the rendered object as rendered, unknown fields included', async () => {
  const api = await h.connect();
  // The field reaches the server, which types the body against its schema and refuses it, as a
  // cluster does (k8s.io/apiserver handlers/patch.go applyPatcher): the server decides, not a model.
  await expect(ocp.create('future-service', {}, { ...WORKER, api })).rejects.toThrow(
    '.spec.futureField: field not declared in schema',
  );
  const body = appliedBody() as { spec: Record<string, unknown> };
  expect(body.spec).toEqual(SERVICE.spec);
  await api.close();
});

// src/connection/credentials.ts asks client-node's authenticators for the authorization header of exec and
// token-file users at each request, without the TLS half of applySecurityAuthentication (which
// reads the CA file and builds an undici Agent every time). The method it uses is private in the
// types: this pins that it still exists and fills in the header, so an upgrade that removes it is
// seen here (the library then falls back to the public path, correct but slower).
test('KubeConfig still has the authorization-only step the credentials rely on', async () => {
  const kc = new KubeConfig();
  kc.loadFromFile(h.kubeconfig);
  const step = (kc as unknown as { applyAuthorizationHeader?: unknown }).applyAuthorizationHeader;
  expect(typeof step).toBe('function');
  const opts = { headers: {} as Record<string, string> };
  await (step as (this: KubeConfig, o: typeof opts) => Promise<void>).call(kc, opts);
  const token = kc.getCurrentUser()?.token;
  expect(token).toBeTruthy();
  expect(opts.headers.Authorization).toBe(`Bearer ${token ?? ''}`);
});
