// Why the library sends its own apply bodies instead of KubernetesObjectApi's: measured here, so the
// choice is revisited when client-node changes. With client-node 2.0.1, an int-or-string value
// survives KubernetesObjectApi's serializer, but a field its generated model does not know vanishes
// from the server-side apply body of a built-in group's kind, even one the server's schema declares
// (a server newer than the models), and would lose its owner on the server. The library sends every
// declared field as rendered and refuses an undeclared one itself, before sending anything.
import { KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
  // A newer server's Lease: its schema declares spec.futureField, which client-node 2.0.1's
  // V1LeaseSpec lacks (the simulator does not serve coordination.k8s.io otherwise).
  h.sim.addResource({
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    kind: 'Lease',
    schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { holderIdentity: { type: 'string' }, futureField: { type: 'string' } },
        },
      },
    },
  });
  h.sim.seedTemplate('future-lease', [], [lease('future')]);
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

function lease(name: string): Record<string, unknown> & { spec: Record<string, unknown> } {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name },
    spec: { holderIdentity: 'worker-1', futureField: 'declared by the server' },
  };
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
  const ownLease = lease('client-node-lease');
  await client.patch(
    { ...ownLease, metadata: { name: 'client-node-lease', namespace: 'workers' } },
    undefined,
    undefined,
    'client-node',
    undefined,
    PatchStrategy.ServerSideApply,
  );
  expect(appliedBody().spec).toEqual({ holderIdentity: 'worker-1' });
});

test('the library sends every declared field as rendered, also one the model lacks; Strict refuses an undeclared one unsent', async () => {
  await using api = await h.connect();
  await ocp.create('future-lease', {}, { ...WORKER, api });
  const sent = lease('future');
  const labels = { 'openshift-template-client/field-manager': 'mini-scheduler' };
  expect(appliedBody()).toEqual({ ...sent, metadata: { name: 'future', namespace: 'workers', labels } });
  expect(h.sim.getObject('coordination.k8s.io/v1', 'Lease', 'workers', 'future')?.spec).toEqual(sent.spec);
  // The server's schema does not declare the Service's field: refused before any request that
  // changes something, where the server would refuse it half-way (k8s.io/apiserver
  // handlers/patch.go applyPatcher) whatever fieldValidation says.
  const patches = h.sim.log.filter((e) => e.method === 'PATCH').length;
  const error = instance(
    await rejection(ocp.create('future-service', {}, { ...WORKER, api })),
    ocp.ValidationError,
  );
  expect(error.code).toBe('OTC_UNSAFE_OBJECT');
  expect(error.issues).toEqual([
    'Service "future" in namespace "workers": .spec.futureField: field not declared in schema',
  ]);
  expect(h.sim.log.filter((e) => e.method === 'PATCH')).toHaveLength(patches);
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
