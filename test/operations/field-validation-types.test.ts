// create()'s typing (issue #27) refuses, in every fieldValidation mode and before any mutation, what
// no mode can drop: wrong types, keyed-list errors, and what kube-apiserver refuses when it decodes
// into its Go types (a fraction in an int32 field, a Quantity that does not parse); and it passes,
// as rendered, what server-side apply accepts.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { collect, objectMutations, sorted } from './typing-helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
  h.sim.seedTemplate('wrong-types', [], WRONG_TYPES);
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const container = (name: string, more: JsonObject = {}): JsonObject => ({ name, image: 'i', ...more });

const podTemplate = (app: string, containers: JsonObject[]): JsonObject => ({
  metadata: { labels: { name: app } },
  spec: { containers },
});

/** Wrong types, a keyed-list error and what decoding into Go types refuses, after a valid ConfigMap. */
const WRONG_TYPES: JsonObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed-first' }, data: { a: 'b' } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'types' },
    spec: {
      replicas: 'two',
      selector: { matchLabels: { name: 'types' } },
      template: { metadata: { labels: { name: 'types' } }, spec: { containers: [{ name: 5, image: 'i' }] } },
    },
  },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'count' }, data: { count: 5 } },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'keyed' },
    spec: { ports: [{ port: 80, protocol: 'TCP' }, { port: 80 }] },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'fraction' },
    spec: {
      minReadySeconds: 1.5,
      selector: { matchLabels: { name: 'fraction' } },
      template: podTemplate('fraction', [container('c', { ports: [{ containerPort: 8080.5 }] })]),
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'quantity' },
    spec: {
      selector: { matchLabels: { name: 'quantity' } },
      template: podTemplate('quantity', [container('c', { resources: { limits: { memory: 'lots' } } })]),
    },
  },
];

const WRONG_TYPE_ISSUES = [
  'Deployment "types" in namespace "workers": .spec.replicas: expected numeric (int or float), got string',
  'Deployment "types" in namespace "workers": .spec.template.spec.containers[name=5].name: expected string, got number',
  'ConfigMap "count" in namespace "workers": .data.count: expected string, got number',
  'Service "keyed" in namespace "workers": .spec.ports: duplicate entries for key [port=80,protocol="TCP"]',
  'Deployment "fraction" in namespace "workers": .spec.minReadySeconds: cannot convert float64 to int32',
  'Deployment "fraction" in namespace "workers": .spec.template.spec.containers[name="c"].ports[containerPort=8080.5,protocol="TCP"].containerPort: cannot convert float64 to int32',
  `Deployment "quantity" in namespace "workers": .spec.template.spec.containers[name="c"].resources.limits.memory: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
];

describe('refused in every mode', () => {
  test.each(['Strict', 'Warn', 'Ignore'] as const)(
    '%s: wrong types, keyed-list errors, fractions in int32 fields, unparsable quantities; nothing applied',
    async (fieldValidation) => {
      const { seen, handler } = collect();
      const error = instance(
        await rejection(
          ocp.create('wrong-types', {}, { ...WORKER, api, fieldValidation, onWarning: handler }),
        ),
        ocp.ValidationError,
      );
      expect(error.code).toBe('OTC_UNSAFE_OBJECT');
      expect(sorted(error.issues)).toEqual(sorted(WRONG_TYPE_ISSUES));
      // Reasons name types, never the values.
      expect(error.message).not.toContain('two');
      expect(error.message).not.toContain('lots');
      expect(objectMutations(h)).toEqual([]);
      expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'typed-first')).toBeUndefined();
      expect(seen).toEqual([]);
    },
  );
});

describe('what server-side apply accepts', () => {
  test('passes Strict as rendered: int-or-string either way, a number for a Quantity, nulls, free keys', async () => {
    // A simulator of its own: the documents this Connection fetches show that typing ran.
    const fresh = await harness();
    try {
      fresh.sim.seedTemplate('accepted', [], ACCEPTED);
      await using own = await fresh.connect();
      const refs = await ocp.create('accepted', {}, { ...WORKER, api: own });
      expect(refs.map((r) => `${r.kind}/${r.name}`)).toEqual([
        'Service/accepted',
        'Deployment/accepted',
        'ConfigMap/accepted',
        'Secret/accepted',
      ]);
      const documents = fresh.sim.log.filter((e) => e.path.startsWith('/openapi/v3/')).map((e) => e.path);
      expect(documents.sort()).toEqual(['/openapi/v3/api/v1', '/openapi/v3/apis/apps/v1']);
      const deployment = fresh.sim.log.find((e) => e.method === 'PATCH' && e.path.includes('/deployments/'));
      expect(JSON.parse(deployment?.body ?? '{}')).toEqual({
        ...ACCEPTED[1],
        metadata: {
          ...(ACCEPTED[1]?.metadata as JsonObject),
          namespace: 'workers',
          // The rendered labels plus the owner label (rule 23).
          labels: {
            ...((ACCEPTED[1]?.metadata as JsonObject).labels as JsonObject),
            'openshift-template-client/field-manager': 'mini-scheduler',
          },
        },
      });
      const service = fresh.sim.getObject('v1', 'Service', 'workers', 'accepted');
      expect((service?.spec as { ports: unknown[] }).ports).toEqual([
        { name: 'web', port: 80, targetPort: 8080 },
        { name: 'alt', port: 81, targetPort: 'http' },
      ]);
      expect(fresh.sim.getObject('v1', 'ConfigMap', 'workers', 'accepted')?.data).toEqual(ACCEPTED[2]?.data);
    } finally {
      await fresh.close();
    }
  });
});

const ACCEPTED: JsonObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'accepted', labels: { app: 'accepted' } },
    spec: {
      selector: { app: 'accepted' },
      sessionAffinityConfig: null,
      ports: [
        { name: 'web', port: 80, targetPort: 8080 },
        { name: 'alt', port: 81, targetPort: 'http' },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'accepted',
      labels: { app: 'accepted', tier: 'web' },
      annotations: { note: 'free text' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'accepted' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'accepted' } },
        spec: {
          nodeSelector: null,
          containers: [
            {
              name: 'web',
              image: 'img',
              ports: [{ containerPort: 8080, name: 'http' }],
              env: [{ name: 'A', value: null }],
              resources: { limits: { cpu: 1, memory: '512Mi' }, requests: { cpu: 0.5 } },
              livenessProbe: { httpGet: { path: '/', port: 'http' } },
              readinessProbe: { tcpSocket: { port: 8080 } },
              securityContext: { capabilities: {} },
            },
          ],
        },
      },
    },
    status: {},
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'accepted', labels: { app: 'accepted' } },
    data: { 'app.properties': 'a=1\n', 'UPPER_case-1.x': '', '.dotfile': 'x' },
  },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'accepted' }, type: 'Opaque', data: { k: 'dg==' } },
];
