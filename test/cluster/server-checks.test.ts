// #34's cases held to the real server: each body that kube-apiserver refuses part-way through a
// server-side apply is sent raw to both servers as a dry run (the simulator must answer as the real
// one does), then through the library on the real tier, which refuses it before anything is written.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { startSimulator, type Simulator } from '../../simulator/index.ts';
import { currentContext, KubeClient } from '../../scripts/cluster/kube.ts';
import { normalise } from './fidelity.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

interface Case {
  name: string;
  path: string;
  body: Record<string, unknown>;
}

const ns = '/api/v1/namespaces/workers';
const CASES: Case[] = [
  {
    name: 'Secret data in plain text',
    path: `${ns}/secrets/sc-plain`,
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sc-plain' },
      data: { password: 'hunter2!' },
    },
  },
  {
    name: 'a creationTimestamp that is a date only',
    path: `${ns}/configmaps/sc-dated`,
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'sc-dated', creationTimestamp: '2024-01-01' },
    },
  },
  {
    name: 'an IntOrString beyond int32',
    path: `${ns}/services/sc-wide`,
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'sc-wide' },
      spec: { ports: [{ port: 80, targetPort: 3_000_000_000 }] },
    },
  },
  {
    name: 'stringData with a number',
    path: `${ns}/secrets/sc-number`,
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sc-number' }, stringData: { port: 5432 } },
  },
  {
    name: 'managedFields in the body',
    path: `${ns}/configmaps/sc-managed`,
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'sc-managed', managedFields: [{ manager: 'old', operation: 'Apply' }] },
    },
  },
  {
    name: 'a uid on a create',
    path: `${ns}/configmaps/sc-uid`,
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'sc-uid', uid: '0b0c9d9e-0000-4000-8000-000000000001' },
    },
  },
];

/**
 * Whether the simulator's message is the real one with the rejected values left out, as the
 * simulator words it on purpose (docs/fidelity.md, no-value-echo): its words are the real
 * message's, in order, once Go's dump of a value (`&value.valueUnstructured{Value:5432}`) is read
 * as the type it stands for.
 */
function lessValues(simulator: string, real: string): boolean {
  const typed = real.replace(/&value\.valueUnstructured\{Value:-?\d+(\.\d+)?\}/g, 'number');
  const words = typed.split(/\s+/);
  let at = 0;
  for (const word of simulator.split(/\s+/)) {
    while (at < words.length && words[at] !== word) at += 1;
    if (at === words.length) return false;
    at += 1;
  }
  return true;
}

const apply = async (client: KubeClient, c: Case): Promise<{ status: number; message: unknown }> => {
  const answer = await client.send(
    'PATCH',
    `${c.path}?fieldManager=probe&dryRun=All`,
    c.body,
    'application/apply-patch+yaml',
  );
  return {
    status: answer.status,
    message: normalise((answer.body as { message?: unknown } | undefined)?.message),
  };
};

describe.skipIf(!clusterKubeconfig)(
  '#34: what the real server refuses part-way, the simulator answers alike',
  () => {
    let sim: Simulator;
    let real: KubeClient;
    let simulator: KubeClient;
    let api: ocp.Connection;

    beforeAll(async () => {
      sim = await startSimulator();
      simulator = new KubeClient(sim.url, sim.caCert, sim.token);
      real = currentContext(clusterKubeconfig ?? '').client;
      api = await ocp.connect({ kubeconfig: clusterKubeconfig ?? '' });
    });
    afterAll(async () => {
      await api.close();
      real.close();
      simulator.close();
      await sim.close();
    });

    test.each(CASES)('$name: the same status, and the real message less its values', async (c) => {
      const [fromSimulator, fromReal] = await Promise.all([apply(simulator, c), apply(real, c)]);
      expect(fromReal.status).toBeGreaterThanOrEqual(400);
      expect(fromSimulator.status).toBe(fromReal.status);
      expect(lessValues(String(fromSimulator.message), String(fromReal.message))).toBe(true);
    });

    test.each(CASES)('$name: refused by create() on the real tier before anything is written', async (c) => {
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'server-checks' },
        objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sc-first' } }, c.body],
      };
      const error = await ocp.create(template, {}, { namespace: 'workers', api }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ocp.ValidationError);
      const [first] = await ocp.get({
        namespace: 'workers',
        api,
        missing: 'null',
        resources: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'sc-first' }],
      });
      expect(first).toBeNull();
    });

    test('a __proto__ key survives every copy of a create under Warn, to what kube-apiserver stores', async () => {
      // JSON.parse, not a literal: a literal's __proto__ would set the prototype, not a key.
      const data = JSON.parse('{"__proto__":"kept","plain":"too"}') as Record<string, string>;
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'proto-key' },
        objects: [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sc-proto' }, data, undeclared: 1 },
        ],
      };
      await ocp.create(template, {}, { namespace: 'workers', api, fieldValidation: 'Warn' });
      const stored = await real.send('GET', '/api/v1/namespaces/workers/configmaps/sc-proto');
      expect(Object.keys((stored.body as { data: object }).data).sort()).toEqual(['__proto__', 'plain']);
      await ocp.delete(template, {}, { namespace: 'workers', api });
    });
  },
);
