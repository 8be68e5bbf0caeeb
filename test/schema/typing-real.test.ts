// Typing rendered objects against cut-down real documents (kube-apiserver 1.34's apps/v1 and v1,
// openshift/api's route and template groups): what server-side apply refuses and accepts.
// Rules: sigs.k8s.io/structured-merge-diff typed/validate.go and typed/helpers.go.
import { describe, expect, test } from 'vitest';
import { typeObject, type TypingResult } from '../../src/schema/typing.ts';
import {
  serverProblems,
  strictDecodingMessage,
  typedPatchMessage,
  unknownField,
} from '../../simulator/objects/refusals.ts';
import { appsV1, coreV1, deployment, routeV1, single, templateV1 } from './tables.ts';

type Json = Record<string, unknown>;

function lines(result: TypingResult): string[] {
  return result.problems.map((p) => `${p.path}: ${p.reason}`);
}

/** What kube-apiserver reports of them (the simulator's serverProblems). */
function serverLines(result: TypingResult): string[] {
  return serverProblems(result.problems).map((p) => `${p.path}: ${p.reason}`);
}

function container(object: Json): Json {
  const spec = object.spec as { template: { spec: { containers: Json[] } } };
  const first = spec.template.spec.containers[0];
  if (first === undefined) throw new Error('no container');
  return first;
}

function podSpec(object: Json): Json {
  return (object.spec as { template: { spec: Json } }).template.spec;
}

describe('what server-side apply refuses (typed/validate.go visitMapItems: field not declared in schema)', () => {
  test('the rendered Deployment types cleanly, decoding too', () => {
    const result = typeObject(appsV1, deployment(), { decode: true });
    expect(result).toEqual({ problems: [], decodeProblems: [] });
  });

  test('container-level capabilities (redis-ephemeral), in both path syntaxes', () => {
    const object = deployment();
    container(object).capabilities = {};
    const problem = single(typeObject(appsV1, object).problems);
    expect(problem).toMatchObject({
      kind: 'undeclared',
      path: '.spec.template.spec.containers[name="redis"].capabilities',
      parent: '.spec.template.spec.containers[name="redis"]',
      strictPath: 'spec.template.spec.containers[0].capabilities',
      reason: 'field not declared in schema',
    });
    expect(
      typedPatchMessage({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'NS', name: 'NAME' }, [
        problem,
      ]),
    ).toBe(
      'failed to create typed patch object (NS/NAME; apps/v1, Kind=Deployment): ' +
        '.spec.template.spec.containers[name="redis"].capabilities: field not declared in schema',
    );
    // k8s.io/apiserver's strict decoding of a create body (sigs.k8s.io/json strictError).
    expect(unknownField(problem.strictPath)).toBe(
      'unknown field "spec.template.spec.containers[0].capabilities"',
    );
  });

  test('a Route with a top-level id (eap74-basic-s2i)', () => {
    const route = {
      apiVersion: 'route.openshift.io/v1',
      kind: 'Route',
      id: 'x',
      metadata: { name: 'r' },
      spec: { to: { kind: 'Service', name: 's' } },
    };
    expect(lines(typeObject(routeV1, route))).toEqual(['.id: field not declared in schema']);
  });

  test('spec.triggers on a Deployment (nodejs-example) and a typo (imagePullPolcy)', () => {
    const object = deployment();
    (object.spec as Json).triggers = [{ type: 'ConfigChange' }];
    container(object).imagePullPolcy = 'Always';
    // In document order: the pod template comes before the appended triggers.
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.containers[name="redis"].imagePullPolcy: field not declared in schema',
      '.spec.triggers: field not declared in schema',
    ]);
  });

  test('every problem is reported; the server keeps the first per map in document order', () => {
    const object = deployment();
    const spec = object.spec as Json;
    spec.triggers = [];
    spec.paused2 = true;
    (podSpec(object).volumes as Json[])[0] = { name: 'data', 'empty-dir': {} };
    const all = typeObject(appsV1, object);
    expect(lines(all)).toEqual([
      '.spec.template.spec.volumes[name="data"].empty-dir: field not declared in schema',
      '.spec.triggers: field not declared in schema',
      '.spec.paused2: field not declared in schema',
    ]);
    expect(all.problems.map((p) => p.parent)).toEqual([
      '.spec.template.spec.volumes[name="data"]',
      '.spec',
      '.spec',
    ]);
    // A create body under fieldValidation=Strict: apimachinery's paths, every list element by index.
    expect(strictDecodingMessage(all.problems.map((p) => p.strictPath))).toBe(
      'strict decoding error: unknown field "spec.template.spec.volumes[0].empty-dir", ' +
        'unknown field "spec.triggers", unknown field "spec.paused2"',
    );
    // visitMapItems stops a map at its first undeclared key; the keys after it go unvisited.
    expect(serverLines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.volumes[name="data"].empty-dir: field not declared in schema',
      '.spec.triggers: field not declared in schema',
    ]);
    (object.metadata as Json).generateName = 1;
    delete object.spec;
    Object.assign(object, { extra: true, spec });
    // The root map: metadata (with its type problem) comes first, then extra stops the map.
    expect(serverLines(typeObject(appsV1, object))).toEqual([
      '.metadata.generateName: expected string, got number',
      '.extra: field not declared in schema',
    ]);
  });

  test('unknown metadata keys, and label values that are not strings, top-level and in the pod template', () => {
    const object = deployment();
    (object.metadata as Json).owner = 'me';
    (object.metadata as { labels: Json }).labels.tier = 1;
    (object.spec as { template: { metadata: { labels: Json } } }).template.metadata.labels.ver = true;
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.metadata.labels.tier: expected string, got number',
      '.metadata.owner: field not declared in schema',
      '.spec.template.metadata.labels.ver: expected string, got boolean',
    ]);
  });
});

describe('strict scalars (typed/validate.go validateScalar) and shapes (typed/helpers.go mapValue, listValue)', () => {
  test('replicas: "two" names types only, never the value', () => {
    const object = deployment();
    (object.spec as Json).replicas = 'two';
    const result = typeObject(appsV1, object);
    expect(lines(result)).toEqual(['.spec.replicas: expected numeric (int or float), got string']);
    expect(JSON.stringify(result)).not.toContain('two');
  });

  test('a string field given a number, a map given a string, a list given a map', () => {
    const object = deployment();
    container(object).image = 7;
    (object.spec as Json).selector = 'name=redis';
    podSpec(object).volumes = { data: {} };
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.selector: expected map, got string',
      '.spec.template.spec.containers[name="redis"].image: expected string, got number',
      '.spec.template.spec.volumes: expected list, got map',
    ]);
  });

  test('a float passes for an integer at typing', () => {
    const object = deployment();
    (object.spec as Json).replicas = 1.5;
    expect(typeObject(appsV1, object).problems).toEqual([]);
  });

  test('int-or-string either way, a number or a string for a Quantity', () => {
    const object = deployment();
    const c = container(object);
    c.livenessProbe = { tcpSocket: { port: 'redis' }, initialDelaySeconds: 30 };
    c.resources = { limits: { cpu: 1, memory: 0.5 }, requests: { cpu: '250m' } };
    (object.spec as Json).strategy = {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 },
    };
    expect(typeObject(appsV1, object, { decode: true })).toEqual({ problems: [], decodeProblems: [] });
  });

  test('a Quantity given a map is not a scalar (schemaconv: Quantity is an untyped scalar)', () => {
    const object = deployment();
    container(object).resources = { limits: { cpu: { amount: 1 } } };
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.containers[name="redis"].resources.limits.cpu: expected any scalar, got map',
    ]);
  });

  test('null passes for a declared field, a map, a list and a scalar', () => {
    const object = deployment();
    const spec = object.spec as Json;
    spec.replicas = null;
    spec.strategy = null;
    (object.metadata as Json).labels = null;
    podSpec(object).volumes = null;
    container(object).image = null;
    expect(typeObject(appsV1, object, { decode: true })).toEqual({ problems: [], decodeProblems: [] });
  });

  test('a ConfigMap takes any data key, each value a string (additionalProperties types every value)', () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { 'any.key': 'v', KEY: 'w', n: 3 },
    };
    expect(lines(typeObject(coreV1, configMap))).toEqual(['.data.n: expected string, got number']);
  });

  test("a Template's objects are free-form (RawExtension), its own fields are not", () => {
    const object = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 't' },
      objects: [{ apiVersion: 'v1', kind: 'Whatever', anything: { goes: [1, 'two', null] } }],
      parameters: [{ name: 'A', value: 'x', generate: 'expression' }],
      labels: { template: 't' },
      parameter: [],
    };
    expect(lines(typeObject(templateV1, object))).toEqual(['.parameter: field not declared in schema']);
  });

  test('managedFields[].fieldsV1 is free-form (FieldsV1: an object without properties)', () => {
    const object = deployment();
    (object.metadata as Json).managedFields = [
      { manager: 'm', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ];
    expect(typeObject(appsV1, object).problems).toEqual([]);
  });

  test('a kind the table lacks is one problem (versionconverter.go noCorrespondingTypeErr)', () => {
    expect(lines(typeObject(appsV1, { apiVersion: 'apps/v1', kind: 'DeploymentConfig' }))).toEqual([
      ': no corresponding type for apps/v1, Kind=DeploymentConfig',
    ]);
    expect(typeObject(coreV1, { apiVersion: 'v1', kind: 'Pod' }).problems[0]?.reason).toBe(
      'no corresponding type for /v1, Kind=Pod',
    );
  });
});
