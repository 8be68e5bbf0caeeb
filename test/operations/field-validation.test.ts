// create() types every rendered object against the server's OpenAPI v3 document before the first
// mutating request (issue #27): Strict refuses, Warn and Ignore drop undeclared fields from the
// applied copy, wrong types are refused in every mode, and what server-side apply accepts passes.
// The Templates restate the shapes of the published samples that a cluster refuses half-way. Wrong
// types and what SSA accepts: field-validation-types.test.ts; where the schemas come from, a server
// without /openapi/v3 and what never fetches one: field-validation-cache.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { ROUTE_SUBDOMAIN } from '../../simulator/objects/route-host.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { collect, objectMutations, sorted } from './typing-helpers.ts';

let h: Harness;
let api: ocp.Connection;
let seeded: JsonObject;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
  seeded = h.sim.seedTemplate('corpus-refused', [], CORPUS_REFUSED);
});
beforeEach(() => {
  h.sim.clearLog();
  h.sim.clearFaults();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const DC_DEPRECATION =
  'apps.openshift.io/v1 DeploymentConfig is deprecated in v4.14+, unavailable in v4.10000+';

const route = (name: string): JsonObject => ({
  apiVersion: 'route.openshift.io/v1',
  id: `${name}-https`,
  kind: 'Route',
  metadata: { name, labels: { application: name } },
  spec: { tls: { termination: 'edge' }, to: { kind: 'Service', name } },
});

const container = (name: string, more: JsonObject = {}): JsonObject => ({
  name,
  image: ' ',
  imagePullPolicy: 'IfNotPresent',
  ...more,
});

const podTemplate = (app: string, containers: JsonObject[]): JsonObject => ({
  metadata: { labels: { name: app } },
  spec: { containers, restartPolicy: 'Always' },
});

/** A Secret and a Service first, then the seven objects the samples carry undeclared fields in. */
const CORPUS_REFUSED: JsonObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'redis' },
    stringData: { 'database-password': 'pw' },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'redis' },
    spec: { ports: [{ name: 'redis', port: 6379, targetPort: 6379 }], selector: { name: 'redis' } },
  },
  route('eap-app'),
  route('jws-app'),
  route('sso'),
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'redis' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: 'redis' } },
      strategy: { type: 'Recreate' },
      template: podTemplate('redis', [
        container('redis', {
          capabilities: {},
          ports: [{ containerPort: 6379, protocol: 'TCP' }],
          // Declared: a container's securityContext has capabilities.
          securityContext: { capabilities: {}, privileged: false },
        }),
      ]),
    },
    status: {},
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nodejs-example' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: 'nodejs-example' } },
      strategy: { type: 'RollingUpdate' },
      template: podTemplate('nodejs-example', [container('nodejs-example')]),
      triggers: [{ type: 'ConfigChange' }],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'cache-service' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: 'cache-service' } },
      serviceName: 'cache-service-ping',
      strategy: { type: 'Rolling', rollingParams: { intervalSeconds: 20 } },
      template: podTemplate('cache-service', [container('cache-service')]),
    },
  },
  {
    apiVersion: 'apps.openshift.io/v1',
    kind: 'DeploymentConfig',
    metadata: { name: 'jenkins' },
    spec: {
      replicas: 1,
      selector: { name: 'jenkins' },
      strategy: { type: 'Recreate' },
      template: podTemplate('jenkins', [container('jenkins', { capabilities: {} })]),
    },
  },
  // Several problems in one object: each is named.
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'multi' },
    spec: {
      selector: { matchLabels: { name: 'multi' } },
      template: podTemplate('multi', [
        container('first', { capabilities: {} }),
        container('second', { capabilities: {} }),
      ]),
      triggers: [],
    },
  },
];

/** [apiVersion, kind, name, path] of every undeclared field in CORPUS_REFUSED. */
const UNDECLARED: [string, string, string, string][] = [
  ['route.openshift.io/v1', 'Route', 'eap-app', '.id'],
  ['route.openshift.io/v1', 'Route', 'jws-app', '.id'],
  ['route.openshift.io/v1', 'Route', 'sso', '.id'],
  ['apps/v1', 'Deployment', 'redis', '.spec.template.spec.containers[name="redis"].capabilities'],
  ['apps/v1', 'Deployment', 'nodejs-example', '.spec.triggers'],
  ['apps/v1', 'StatefulSet', 'cache-service', '.spec.strategy'],
  [
    'apps.openshift.io/v1',
    'DeploymentConfig',
    'jenkins',
    '.spec.template.spec.containers[name="jenkins"].capabilities',
  ],
  ['apps/v1', 'Deployment', 'multi', '.spec.template.spec.containers[name="first"].capabilities'],
  ['apps/v1', 'Deployment', 'multi', '.spec.template.spec.containers[name="second"].capabilities'],
  ['apps/v1', 'Deployment', 'multi', '.spec.triggers'],
];

function undeclaredIssues(namespace: string): string[] {
  return UNDECLARED.map(
    ([, kind, name, path]) =>
      `${kind} "${name}" in namespace "${namespace}": ${path}: field not declared in schema`,
  );
}

function stored(apiVersion: string, kind: string, namespace: string, name: string): JsonObject {
  const object = h.sim.getObject(apiVersion, kind, namespace, name);
  if (object === undefined) throw new Error(`${kind} ${name} is not stored in ${namespace}`);
  return object;
}

interface PodSpec {
  containers: JsonObject[];
}
const podSpec = (object: JsonObject): PodSpec =>
  (object.spec as unknown as { template: { spec: PodSpec } }).template.spec;

/** What Warn and Ignore store: every object, without the fields the schema does not declare. */
function expectStoredWithoutUndeclared(namespace: string): void {
  for (const name of ['eap-app', 'jws-app', 'sso']) {
    const r = stored('route.openshift.io/v1', 'Route', namespace, name);
    expect(r).not.toHaveProperty('id');
    // The server generates the host of a Route created without one (simulator/objects/route-host.ts).
    expect(r.spec).toEqual({
      ...(route(name).spec as JsonObject),
      host: `${name}-${namespace}.${ROUTE_SUBDOMAIN}`,
    });
  }
  const redis = stored('apps/v1', 'Deployment', namespace, 'redis');
  const [redisContainer] = podSpec(redis).containers;
  expect(redisContainer).not.toHaveProperty('capabilities');
  expect(redisContainer?.securityContext).toEqual({ capabilities: {}, privileged: false });
  const nodejs = stored('apps/v1', 'Deployment', namespace, 'nodejs-example');
  expect(nodejs.spec).not.toHaveProperty('triggers');
  expect(nodejs.spec).toMatchObject({ strategy: { type: 'RollingUpdate' } });
  const cache = stored('apps/v1', 'StatefulSet', namespace, 'cache-service');
  expect(cache.spec).not.toHaveProperty('strategy');
  expect(cache.spec).toMatchObject({ serviceName: 'cache-service-ping' });
  const jenkins = stored('apps.openshift.io/v1', 'DeploymentConfig', namespace, 'jenkins');
  expect(podSpec(jenkins).containers[0]).not.toHaveProperty('capabilities');
  const multi = stored('apps/v1', 'Deployment', namespace, 'multi');
  expect(multi.spec).not.toHaveProperty('triggers');
  expect(podSpec(multi).containers.map((c) => Object.keys(c).includes('capabilities'))).toEqual([
    false,
    false,
  ]);
  expect(stored('v1', 'Secret', namespace, 'redis').data).toEqual({
    'database-password': Buffer.from('pw').toString('base64'),
  });
}

describe('Strict, the default', () => {
  test("refuses the samples' undeclared fields before any mutation, naming every path", async () => {
    for (const options of [{}, { fieldValidation: 'Strict' as const }]) {
      h.sim.clearLog();
      const error = instance(
        await rejection(ocp.create('corpus-refused', {}, { ...WORKER, api, ...options })),
        ocp.ValidationError,
      );
      expect(error.code).toBe('OTC_UNSAFE_OBJECT');
      expect(sorted(error.issues)).toEqual(sorted(undeclaredIssues('workers')));
      expect(error.message).toContain(
        'Deployment "redis" in namespace "workers": .spec.template.spec.containers[name="redis"].capabilities: field not declared in schema',
      );
      expect(objectMutations(h)).toEqual([]);
      expect(h.sim.getObject('v1', 'Secret', 'workers', 'redis')).toBeUndefined();
      expect(h.sim.getObject('v1', 'Service', 'workers', 'redis')).toBeUndefined();
    }
  });

  test('a dry run is typed the same way: refused, no PATCH sent', async () => {
    const error = instance(
      await rejection(ocp.create('corpus-refused', {}, { ...WORKER, api, dryRun: true })),
      ocp.ValidationError,
    );
    expect(error.code).toBe('OTC_UNSAFE_OBJECT');
    expect(sorted(error.issues)).toEqual(sorted(undeclaredIssues('workers')));
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toEqual([]);
  });
});

describe('Warn', () => {
  test('applies copies without the undeclared fields, one warning each; the Template and process() untouched', async () => {
    const namespace = 'workers';
    const { seen, handler } = collect();
    const refs = await ocp.create(
      'corpus-refused',
      {},
      { ...WORKER, api, fieldValidation: 'Warn', onWarning: handler },
    );
    expect(refs.map((r) => r.name)).toEqual(CORPUS_REFUSED.map((o) => (o.metadata as { name: string }).name));
    expectStoredWithoutUndeclared(namespace);
    const unknown = seen.filter((w) => w.code === 'OTC_FIELD_DROPPED');
    expect(unknown).toHaveLength(UNDECLARED.length);
    for (const [apiVersion, kind, name, path] of UNDECLARED) {
      expect(unknown).toContainEqual({
        code: 'OTC_FIELD_DROPPED',
        path,
        operation: 'create',
        target: { apiVersion, kind, name, namespace },
        text: expect.stringContaining(`unknown field "${path}"`) as string,
      });
    }
    expect(unknown).toContainEqual({
      code: 'OTC_FIELD_DROPPED',
      path: '.spec.triggers',
      operation: 'create',
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nodejs-example', namespace },
      text: `unknown field ".spec.triggers" removed from Deployment "nodejs-example" in namespace "workers": the server's apps/v1 schema does not declare it`,
    });
    // The server's own, on the DeploymentConfig's pre-flight dry run and on its write: once.
    expect(seen.filter((w) => w.code !== 'OTC_FIELD_DROPPED')).toEqual([
      expect.objectContaining({ code: 'OTC_SERVER_WARNING', text: DC_DEPRECATION }),
    ]);
    // The stored Template and what process() renders keep every field.
    expect(h.sim.getObject('template.openshift.io/v1', 'Template', 'infra', 'corpus-refused')).toEqual(
      seeded,
    );
    const rendered = await ocp.process('corpus-refused', {}, { ...WORKER, api });
    const byName = (name: string, kind: string): JsonObject | undefined =>
      rendered.find((o) => o.kind === kind && o.metadata?.name === name) as JsonObject | undefined;
    expect(byName('eap-app', 'Route')).toHaveProperty('id', 'eap-app-https');
    expect(byName('nodejs-example', 'Deployment')?.spec).toHaveProperty('triggers');
    expect(podSpec(byName('redis', 'Deployment') ?? {}).containers[0]).toHaveProperty('capabilities', {});
    await ocp.delete('corpus-refused', {}, { ...WORKER, api });
  });

  test('without a handler: each removal is a ServerWarning process warning, once per text', async () => {
    h.sim.seedTemplate('one-undeclared', [], [route('lonely')]);
    const emitted: Error[] = [];
    const listen = (warning: Error): void => {
      if (warning.name === 'ServerWarning') emitted.push(warning);
    };
    process.on('warning', listen);
    try {
      await using own = await h.connect();
      for (let i = 0; i < 2; i++)
        await ocp.create('one-undeclared', {}, { ...WORKER, api: own, fieldValidation: 'Warn' });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(emitted.map((w) => (w as Error & { code?: string }).code)).toEqual(['OTC_FIELD_DROPPED']);
    expect(emitted.map((w) => w.message)).toEqual([
      `unknown field ".id" removed from Route "lonely" in namespace "workers": the server's route.openshift.io/v1 schema does not declare it`,
    ]);
    expect(stored('route.openshift.io/v1', 'Route', 'workers', 'lonely')).not.toHaveProperty('id');
    await ocp.delete('one-undeclared', {}, { ...WORKER, api });
  });

  test('a dry run sends the pruned copies with dryRun=All and stores nothing', async () => {
    const { seen, handler } = collect();
    await ocp.create(
      'corpus-refused',
      {},
      { ...WORKER, api, dryRun: true, fieldValidation: 'Warn', onWarning: handler },
    );
    const patches = h.sim.log.filter((e) => e.method === 'PATCH');
    expect(patches).toHaveLength(CORPUS_REFUSED.length);
    expect(patches.map((e) => e.query)).toEqual(
      Array(CORPUS_REFUSED.length).fill({ fieldManager: 'mini-scheduler', dryRun: 'All' }),
    );
    // The pre-flight sends them at once: find the Route by its path, not by arrival.
    const eapPatch = patches.find((e) => e.path.endsWith('/routes/eap-app'));
    const eap = JSON.parse(eapPatch?.body ?? '{}') as JsonObject;
    expect(eap).toMatchObject({ kind: 'Route', metadata: { name: 'eap-app' } });
    expect(eap).not.toHaveProperty('id');
    expect(seen.filter((w) => w.text.includes('unknown field'))).toHaveLength(UNDECLARED.length);
    expect(h.sim.getObject('route.openshift.io/v1', 'Route', 'workers', 'eap-app')).toBeUndefined();
  });
});

describe('Ignore', () => {
  test('applies copies without the undeclared fields and says nothing', async () => {
    const { seen, handler } = collect();
    const emitted: Error[] = [];
    const listen = (warning: Error): void => {
      emitted.push(warning);
    };
    process.on('warning', listen);
    try {
      await ocp.create(
        'corpus-refused',
        {},
        {
          namespace: 'other',
          templateNamespace: 'infra',
          api,
          fieldValidation: 'Ignore',
          onWarning: handler,
        },
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expectStoredWithoutUndeclared('other');
    // The only warning is the server's own, about DeploymentConfig: its dry run's and its write's, once.
    expect(seen.map((w) => w.text)).toEqual([DC_DEPRECATION]);
    expect(emitted).toEqual([]);
    await ocp.delete('corpus-refused', {}, { namespace: 'other', templateNamespace: 'infra', api });
  });
});
