// The simulator's ResourceQuota admission and validating webhooks at the wire (objects/quota.ts,
// objects/webhooks.ts), in kube-apiserver's words: a quota whose usage is unknown refuses what it
// covers, a dry run is checked and never charged, a real create is, an update is not judged; a
// webhook sees dry runs and real writes alike, and one without dry-run support refuses a dry run
// before it is called. test/cluster/preflight-quota.test.ts compares the cases the real tier has.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { apply, call } from '../client.ts';
import { type Simulator, startSimulator, type WebhookCall } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ namespaces: ['quota'] });
});
afterEach(() => {
  sim.clearWebhooks();
});
afterAll(async () => {
  await sim.close();
});

const NS = 'quota';
const configMap = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS },
  data: { a: name },
});
const path = (name: string): string => `/api/v1/namespaces/${NS}/configmaps/${name}`;
const used = (name: string): unknown =>
  (sim.getObject('v1', 'ResourceQuota', NS, name)?.status as { used?: unknown } | undefined)?.used;

describe('ResourceQuota', () => {
  test('a quota whose usage is unknown refuses what it covers, naming its resources', async () => {
    sim.seed({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'unknown', namespace: NS } });
    sim.setStatus('v1', 'ResourceQuota', NS, 'unknown', {
      hard: { configmaps: '5', 'count/configmaps': '5' },
    });
    const res = await apply(sim, path('u'), configMap('u'), 'tester', '&dryRun=All');
    expect([res.status, res.json.message]).toEqual([
      403,
      'configmaps "u" is forbidden: status unknown for quota: unknown, resources: configmaps,count/configmaps',
    ]);
    sim.setStatus('v1', 'ResourceQuota', NS, 'unknown', { hard: {} });
  });

  test('a dry run is checked and not charged; a real create is charged; an update is not judged', async () => {
    sim.seed({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'one', namespace: NS } });
    sim.setStatus('v1', 'ResourceQuota', NS, 'one', { hard: { configmaps: '1' }, used: { configmaps: '0' } });
    expect((await apply(sim, path('c1'), configMap('c1'), 'tester', '&dryRun=All')).status).toBe(201);
    expect((await apply(sim, path('c2'), configMap('c2'), 'tester', '&dryRun=All')).status).toBe(201);
    expect(used('one')).toEqual({ configmaps: '0' });
    expect((await apply(sim, path('c1'), configMap('c1'))).status).toBe(201);
    expect(used('one')).toEqual({ configmaps: '1' });
    const refused = await call(sim, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap('c2') });
    expect([refused.status, refused.json.message]).toEqual([
      403,
      'configmaps "c2" is forbidden: exceeded quota: one, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
    ]);
    expect((await apply(sim, path('c1'), { ...configMap('c1'), data: { a: 'changed' } })).status).toBe(200);
    expect(used('one')).toEqual({ configmaps: '1' });
    expect(sim.getObject('v1', 'ConfigMap', NS, 'c2')).toBeUndefined();
    sim.setStatus('v1', 'ResourceQuota', NS, 'one', { hard: {} });
  });
});

describe('webhooks', () => {
  test('a webhook sees dry runs and real writes with their operation; its denial is a 400 without reason', async () => {
    const calls: Pick<WebhookCall, 'operation' | 'dryRun' | 'resource'>[] = [];
    sim.addWebhook({
      name: 'watch.example.com',
      deny: ({ operation, dryRun, resource, object }) => {
        calls.push({ operation, dryRun, resource });
        return (object.data as { a?: string } | undefined)?.a === 'no' ? 'not this one' : undefined;
      },
    });
    expect((await apply(sim, path('w1'), configMap('w1'), 'tester', '&dryRun=All')).status).toBe(201);
    expect((await apply(sim, path('w1'), configMap('w1'))).status).toBe(201);
    const denied = await apply(sim, path('w1'), { ...configMap('w1'), data: { a: 'no' } });
    expect(denied.status).toBe(400);
    expect(denied.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "watch.example.com" denied the request: not this one',
      code: 400,
    });
    expect(calls).toEqual([
      { operation: 'CREATE', dryRun: true, resource: 'configmaps' },
      { operation: 'CREATE', dryRun: false, resource: 'configmaps' },
      { operation: 'UPDATE', dryRun: false, resource: 'configmaps' },
    ]);
  });

  test.each(['Some', 'Unknown'] as const)(
    'sideEffects %s: a dry run is a 400 before the call; a real write is called',
    async (sideEffects) => {
      const calls: boolean[] = [];
      sim.addWebhook({
        name: 'legacy.example.com',
        sideEffects,
        deny: ({ dryRun }) => void calls.push(dryRun),
      });
      const dry = await apply(
        sim,
        path(`l-${sideEffects.toLowerCase()}`),
        configMap(`l-${sideEffects.toLowerCase()}`),
        'tester',
        '&dryRun=All',
      );
      expect([dry.status, dry.json.reason, dry.json.message]).toEqual([
        400,
        'BadRequest',
        'admission webhook "legacy.example.com" does not support dry run',
      ]);
      expect(
        (
          await apply(
            sim,
            path(`l-${sideEffects.toLowerCase()}`),
            configMap(`l-${sideEffects.toLowerCase()}`),
          )
        ).status,
      ).toBe(201);
      expect(calls).toEqual([false]);
    },
  );

  test('NoneOnDryRun takes dry runs', async () => {
    sim.addWebhook({ name: 'careful.example.com', sideEffects: 'NoneOnDryRun' });
    expect((await apply(sim, path('n1'), configMap('n1'), 'tester', '&dryRun=All')).status).toBe(201);
  });
});
