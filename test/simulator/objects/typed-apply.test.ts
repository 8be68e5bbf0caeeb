// Server-side apply typed against the kind's OpenAPI document before anything else, as
// kube-apiserver does (k8s.io/apiserver pkg/endpoints/handlers/patch.go applyPatcher →
// apimachinery pkg/util/managedfields/internal/structuredmerge.go Apply → ObjectToTyped): a problem
// is a plain error, so a 500 Status with no reason, whatever fieldValidation says, dry runs too.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apply, type RawResponse } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

type Json = Record<string, unknown>;
const NS = 'workers';
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;

function refusedWith(res: RawResponse, message: string): void {
  expect(res.status).toBe(500);
  expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message });
  expect(res.json.reason).toBeUndefined();
}

const typedPatch = (name: string, gvk: string, rest: string): string =>
  `failed to create typed patch object (${NS}/${name}; ${gvk}): ${rest}`;

function deployment(name: string, container: Json = {}, spec: Json = {}): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name } },
      ...spec,
      template: {
        metadata: { labels: { name } },
        spec: { containers: [{ name: 'main', image: 'img', ...container }] },
      },
    },
  };
}

// The objects of the published Templates a real OpenShift 4 cluster refuses, as they render
// (only the parts that matter kept, in their order): each names the first undeclared key per map.
describe('published Templates a cluster refuses are refused, with its message', () => {
  test('a StatefulSet with a DeploymentConfig strategy, triggers and an `empty-dir` volume: `.spec.strategy` only', async () => {
    const path = `/apis/apps/v1/namespaces/${NS}/statefulsets/cache`;
    const body = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'cache', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'cache' } },
        serviceName: 'cache-ping',
        strategy: { type: 'Rolling', rollingParams: { intervalSeconds: 20 } },
        template: {
          metadata: { labels: { app: 'cache' } },
          spec: {
            containers: [{ name: 'cache', image: 'img' }],
            volumes: [{ name: 'keystore-volume', 'empty-dir': {} }],
          },
        },
        triggers: [{ type: 'ConfigChange' }],
      },
    };
    refusedWith(
      await apply(sim, path, body),
      typedPatch('cache', 'apps/v1, Kind=StatefulSet', '.spec.strategy: field not declared in schema'),
    );
    expect(sim.getObject('apps/v1', 'StatefulSet', NS, 'cache')).toBeUndefined();
  });

  test('a Deployment whose container has `capabilities` (redis-ephemeral)', async () => {
    refusedWith(
      await apply(sim, `${DEPLOYMENTS}/redis`, deployment('redis', { capabilities: {} })),
      typedPatch(
        'redis',
        'apps/v1, Kind=Deployment',
        '.spec.template.spec.containers[name="main"].capabilities: field not declared in schema',
      ),
    );
  });

  test('a Deployment with DeploymentConfig `triggers` (nodejs-example)', async () => {
    const body = deployment('node', {}, { triggers: [{ type: 'ConfigChange' }] });
    refusedWith(
      await apply(sim, `${DEPLOYMENTS}/node`, body),
      typedPatch('node', 'apps/v1, Kind=Deployment', '.spec.triggers: field not declared in schema'),
    );
  });

  test('a DeploymentConfig whose container has `capabilities` (jenkins-persistent)', async () => {
    const body = {
      apiVersion: 'apps.openshift.io/v1',
      kind: 'DeploymentConfig',
      metadata: { name: 'jenkins', namespace: NS },
      spec: {
        replicas: 1,
        selector: { name: 'jenkins' },
        template: {
          metadata: { labels: { name: 'jenkins' } },
          spec: { containers: [{ capabilities: {}, name: 'jenkins', image: ' ' }] },
        },
      },
    };
    refusedWith(
      await apply(sim, `/apis/apps.openshift.io/v1/namespaces/${NS}/deploymentconfigs/jenkins`, body),
      typedPatch(
        'jenkins',
        'apps.openshift.io/v1, Kind=DeploymentConfig',
        '.spec.template.spec.containers[name="jenkins"].capabilities: field not declared in schema',
      ),
    );
  });

  test('a Route with a top-level `id` (eap74-basic-s2i, jws57-…, sso76-ocp4-https)', async () => {
    const body = {
      apiVersion: 'route.openshift.io/v1',
      id: 'app-https',
      kind: 'Route',
      metadata: { name: 'app', namespace: NS },
      spec: { to: { kind: 'Service', name: 'app' }, tls: { termination: 'edge' } },
    };
    refusedWith(
      await apply(sim, `/apis/route.openshift.io/v1/namespaces/${NS}/routes/app`, body),
      typedPatch('app', 'route.openshift.io/v1, Kind=Route', '.id: field not declared in schema'),
    );
  });

  test('the same objects without the undeclared fields are applied', async () => {
    expect((await apply(sim, `${DEPLOYMENTS}/redis`, deployment('redis'))).status).toBe(201);
    const route = {
      apiVersion: 'route.openshift.io/v1',
      kind: 'Route',
      metadata: { name: 'app', namespace: NS },
      spec: { to: { kind: 'Service', name: 'app' }, tls: { termination: 'edge' } },
    };
    expect((await apply(sim, `/apis/route.openshift.io/v1/namespaces/${NS}/routes/app`, route)).status).toBe(
      201,
    );
  });
});

// A representative case per rule; the engine's own tests (test/schema/) cover every rule.
describe('the typing rules, at the wire', () => {
  test('dry runs are typed too, and fieldValidation=Ignore does not skip typing (patch.go applyPatcher)', async () => {
    const body = deployment('dry', { imagePullPolcy: 'Always' });
    for (const extra of ['&dryRun=All', '&fieldValidation=Ignore']) {
      refusedWith(
        await apply(sim, `${DEPLOYMENTS}/dry`, body, 'tester', extra),
        typedPatch(
          'dry',
          'apps/v1, Kind=Deployment',
          '.spec.template.spec.containers[name="main"].imagePullPolcy: field not declared in schema',
        ),
      );
    }
  });

  test('a string for an integer (structured-merge-diff typed/validate.go validateScalar)', async () => {
    refusedWith(
      await apply(sim, `${DEPLOYMENTS}/two`, deployment('two', {}, { replicas: 'two' })),
      typedPatch(
        'two',
        'apps/v1, Kind=Deployment',
        '.spec.replicas: expected numeric (int or float), got string',
      ),
    );
  });

  test('two containers with one name (typed/validate.go visitListItems: duplicate entries)', async () => {
    const body = deployment('twins');
    const spec = (body.spec as { template: { spec: { containers: Json[] } } }).template.spec;
    spec.containers.push({ name: 'main', image: 'other' });
    refusedWith(
      await apply(sim, `${DEPLOYMENTS}/twins`, body),
      typedPatch(
        'twins',
        'apps/v1, Kind=Deployment',
        '.spec.template.spec.containers: duplicate entries for key [name="main"]',
      ),
    );
  });

  test('metadata is ObjectMeta: a label value must be a string (ObjectMeta labels: map of string)', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lbl', labels: { tier: 1 } } };
    refusedWith(
      await apply(sim, `/api/v1/namespaces/${NS}/configmaps/lbl`, body),
      `failed to create typed patch object (/lbl; /v1, Kind=ConfigMap): .metadata.labels.tier: expected string, got number`,
    );
  });

  test("a Template's objects are free-form (kube-openapi schemaconv: RawExtension)", async () => {
    const body = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'free', namespace: NS },
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', anything: { goes: true } }],
    };
    expect(
      (await apply(sim, `/apis/template.openshift.io/v1/namespaces/${NS}/templates/free`, body)).status,
    ).toBe(201);
  });

  test('x-kubernetes-preserve-unknown-fields accepts unknown keys of a kind added at run time', async () => {
    sim.addResource({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      kind: 'Widget',
      schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              size: { type: 'integer' },
              extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    });
    const path = `/apis/example.com/v1/namespaces/${NS}/widgets`;
    const widget = (spec: Json): Json => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: NS },
      spec,
    });
    expect((await apply(sim, `${path}/w`, widget({ size: 1, extra: { any: ['thing'] } }))).status).toBe(201);
    refusedWith(
      await apply(sim, `${path}/w`, widget({ size: 1, colour: 'red' })),
      typedPatch('w', 'example.com/v1, Kind=Widget', '.spec.colour: field not declared in schema'),
    );
  });

  test('a second kind added to the same group-version is typed too (its table is rebuilt)', async () => {
    sim.addResource({
      group: 'example.com',
      version: 'v1',
      plural: 'gadgets',
      kind: 'Gadget',
      schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { on: { type: 'boolean' } } } },
      },
    });
    const gadget = (spec: Json): Json => ({
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g', namespace: NS },
      spec,
    });
    const path = `/apis/example.com/v1/namespaces/${NS}/gadgets/g`;
    refusedWith(
      await apply(sim, path, gadget({ on: 'yes' })),
      typedPatch('g', 'example.com/v1, Kind=Gadget', '.spec.on: expected boolean, got string'),
    );
    expect((await apply(sim, path, gadget({ on: true }))).status).toBe(201);
  });
});

// After typing, the server converts the typed object into its Go type (structuredmerge.go Apply →
// runtime DefaultUnstructuredConverter): built-in kinds only.
describe('what decoding into the Go types refuses', () => {
  const converted = (name: string, reason: string): string =>
    `failed to convert new object (${NS}/${name}; apps/v1, Kind=Deployment) to proper version: ` +
    `unable to convert unstructured object to apps/v1, Kind=Deployment: ${reason}`;

  test('a fraction in an integer field (apimachinery runtime/converter.go fromUnstructured)', async () => {
    refusedWith(
      await apply(sim, `${DEPLOYMENTS}/half`, deployment('half', {}, { replicas: 1.5 })),
      converted('half', 'cannot convert float64 to int32'),
    );
    expect(sim.getObject('apps/v1', 'Deployment', NS, 'half')).toBeUndefined();
  });

  test('a Quantity that does not parse (apimachinery api/resource/quantity.go ErrFormatWrong)', async () => {
    const body = deployment('mem', { resources: { limits: { memory: 'lots' } } });
    refusedWith(
      await apply(sim, `${DEPLOYMENTS}/mem`, body),
      converted(
        'mem',
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ),
    );
  });
});
