// A Route's generated host, as openshift-apiserver assigns it (library-go pkg/route/hostassignment).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { apply, call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { ROUTE_SUBDOMAIN } from '../../../simulator/objects/route-host.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const ROUTES = '/apis/route.openshift.io/v1/namespaces/workers/routes';
const route = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'route.openshift.io/v1',
  kind: 'Route',
  metadata: { name },
  spec: { to: { kind: 'Service', name: 'web' }, ...spec },
});
const specOf = (json: Record<string, unknown>): Record<string, unknown> =>
  json.spec as Record<string, unknown>;
const metaOf = (json: Record<string, unknown>): Record<string, unknown> =>
  json.metadata as Record<string, unknown>;

test('a Route created without a host gets <name, dots as dashes>-<namespace>.<subdomain>, marked generated, owned by no one', async () => {
  const created = await apply(sim, `${ROUTES}/a.b`, route('a.b'));
  expect(created.status).toBe(201);
  expect(specOf(created.json).host).toBe(`a-b-workers.${ROUTE_SUBDOMAIN}`);
  expect(metaOf(created.json).annotations).toEqual({ 'openshift.io/host.generated': 'true' });
  expect(JSON.stringify(metaOf(created.json).managedFields)).not.toContain('f:host');
  const posted = await call(sim, 'POST', ROUTES, { body: route('posted') });
  expect(specOf(posted.json).host).toBe(`posted-workers.${ROUTE_SUBDOMAIN}`);
  const dry = await apply(sim, `${ROUTES}/dry`, route('dry'), 'tester', '&dryRun=All');
  expect(specOf(dry.json).host).toBe(`dry-workers.${ROUTE_SUBDOMAIN}`);
  expect((await call(sim, 'GET', `${ROUTES}/dry`)).status).toBe(404);
});

test('a host, a subdomain or the Subdomain wildcard policy of its own: nothing generated', async () => {
  const own = await apply(sim, `${ROUTES}/own`, route('own', { host: 'own.example' }));
  expect(specOf(own.json).host).toBe('own.example');
  expect(metaOf(own.json).annotations).toBeUndefined();
  const sub = await apply(sim, `${ROUTES}/sub`, route('sub', { subdomain: 'shop' }));
  expect(specOf(sub.json)).not.toHaveProperty('host');
  const wildcard = await apply(
    sim,
    `${ROUTES}/wild`,
    route('wild', { host: '', wildcardPolicy: 'Subdomain' }),
  );
  expect(specOf(wildcard.json).host).toBe('');
});

test('an update that clears the host keeps the stored one: apply, merge patch and PUT', async () => {
  const host = `kept-workers.${ROUTE_SUBDOMAIN}`;
  await apply(sim, `${ROUTES}/kept`, route('kept'));
  const applied = await apply(sim, `${ROUTES}/kept`, route('kept', { host: '' }));
  expect(specOf(applied.json).host).toBe(host);
  const patched = await call(sim, 'PATCH', `${ROUTES}/kept?fieldManager=p`, {
    body: { spec: { host: null } },
    contentType: 'application/merge-patch+json',
  });
  expect(specOf(patched.json).host).toBe(host);
  const live = (await call(sim, 'GET', `${ROUTES}/kept`)).json;
  const put = await call(sim, 'PUT', `${ROUTES}/kept`, {
    body: { ...live, spec: { ...specOf(live), host: '' } },
  });
  expect(put.status).toBe(200);
  expect(specOf(put.json).host).toBe(host);
});
