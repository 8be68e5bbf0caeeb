// Keyed lists on the real documents (typed/validate.go visitListItems, typed/helpers.go
// keyedAssociativeListItemToPathElement and getAssociativeKeyDefault), and what kube-apiserver
// refuses while decoding the typed object into its Go types.
import { describe, expect, test } from 'vitest';
import { typeObject, type TypingResult } from '../../src/schema/typing.ts';
import {
  applyDecodeMessage,
  applyRefusal,
  createDecodeMessage,
  serverProblems,
} from '../../simulator/objects/refusals.ts';
import { appsV1, deployment, single } from './tables.ts';

type Json = Record<string, unknown>;

function lines(result: TypingResult): string[] {
  return result.problems.map((p) => `${p.path}: ${p.reason}`);
}

function containers(object: Json): Json[] {
  return (object.spec as { template: { spec: { containers: Json[] } } }).template.spec.containers;
}

function first(object: Json): Json {
  const c = containers(object)[0];
  if (c === undefined) throw new Error('no container');
  return c;
}

const identity = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'demo', name: 'redis' };

describe('keyed lists', () => {
  test('duplicate container names are refused at the list', () => {
    const object = deployment();
    containers(object).push({ name: 'redis', image: 'other' });
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.containers: duplicate entries for key [name="redis"]',
    ]);
  });

  test('an element without its key takes the key default the schema gives (name: "")', () => {
    const object = deployment();
    containers(object).push({ image: 'sidecar' }, { image: 'another', capabilities: {} });
    // Container.name has `default: ""` in the published document, so both elements are [name=""].
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.containers: duplicate entries for key [name=""]',
      '.spec.template.spec.containers[name=""].capabilities: field not declared in schema',
    ]);
  });

  test('two keys are printed sorted by name, an absent one from its default (protocol: "TCP")', () => {
    const object = deployment();
    first(object).ports = [
      { containerPort: 6379, hostPortt: 1 },
      { containerPort: 6379, protocol: 'TCP' },
    ];
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.containers[name="redis"].ports[containerPort=6379,protocol="TCP"].hostPortt: field not declared in schema',
      '.spec.template.spec.containers[name="redis"].ports: duplicate entries for key [containerPort=6379,protocol="TCP"]',
    ]);
  });

  test('an element that is not a map cannot be keyed; the server stops the list there', () => {
    const object = deployment();
    (containers(object) as unknown[]).unshift('redis', { name: 'b', typo: 1 });
    const typed = typeObject(appsV1, object);
    expect(lines(typed)).toEqual([
      '.spec.template.spec.containers: element 0: associative list with keys may not have non-map elements',
      '.spec.template.spec.containers[name="b"].typo: field not declared in schema',
    ]);
    expect(lines({ ...typed, problems: serverProblems(typed.problems) })).toEqual([
      '.spec.template.spec.containers: element 0: associative list with keys may not have non-map elements',
    ]);
  });

  test('an atomic list is indexed', () => {
    const object = deployment();
    first(object).command = ['redis-server', 6379];
    expect(lines(typeObject(appsV1, object))).toEqual([
      '.spec.template.spec.containers[name="redis"].command[1]: expected string, got number',
    ]);
  });
});

describe('decoding into Go types (built-in kinds only)', () => {
  test("a fraction in replicas: typing passes, decoding refuses, in both request kinds' words", () => {
    const object = deployment();
    (object.spec as Json).replicas = 1.5;
    const result = typeObject(appsV1, object, { decode: true });
    expect(result.problems).toEqual([]);
    const problem = single(result.decodeProblems);
    expect(problem).toMatchObject({ kind: 'decode', path: '.spec.replicas', strictPath: 'spec.replicas' });
    // apimachinery runtime/converter.go fromUnstructured, wrapped by structuredmerge.go Apply and
    // runtime/scheme.go unstructuredToTyped.
    expect(applyDecodeMessage(identity, problem)).toBe(
      'failed to convert new object (demo/redis; apps/v1, Kind=Deployment) to proper version: ' +
        'unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32',
    );
    // encoding/json UnmarshalTypeError (sigs.k8s.io/json decode.go), wrapped by the create
    // handler's transformDecodeError; the literal is left out.
    expect(createDecodeMessage(identity, problem.createReason ?? '')).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: ' +
        'json: cannot unmarshal number into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });

  test('a fraction in an int32 several structs down names the innermost struct', () => {
    const object = deployment();
    first(object).ports = [{ containerPort: 80.5 }];
    const [problem] = typeObject(appsV1, object, { decode: true }).decodeProblems;
    expect(problem?.createReason).toBe(
      'json: cannot unmarshal number into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
    expect(problem?.path).toBe(
      '.spec.template.spec.containers[name="redis"].ports[containerPort=80.5,protocol="TCP"].containerPort',
    );
  });

  test('cpu: "1.5.2" does not parse as a Quantity (resource/quantity.go ParseQuantity)', () => {
    const object = deployment();
    first(object).resources = { limits: { cpu: '1.5.2' }, requests: { memory: '1ki' } };
    const { problems, decodeProblems } = typeObject(appsV1, object, { decode: true });
    expect(problems).toEqual([]);
    expect(decodeProblems.map((p) => `${p.path}: ${p.reason}`)).toEqual([
      '.spec.template.spec.containers[name="redis"].resources.limits.cpu: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
      '.spec.template.spec.containers[name="redis"].resources.requests.memory: unable to parse quantity\'s suffix',
    ]);
  });

  test('an IntOrString given a fraction, a boolean or a map passes typing and fails decoding', () => {
    const object = deployment();
    (object.spec as Json).strategy = {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1.5, maxUnavailable: { n: 1 } },
    };
    first(object).livenessProbe = { tcpSocket: { port: true } };
    const { problems, decodeProblems } = typeObject(appsV1, object, { decode: true });
    expect(problems).toEqual([]);
    expect(decodeProblems.map((p) => `${p.path}: ${p.reason}`)).toEqual([
      '.spec.strategy.rollingUpdate.maxSurge: json: cannot unmarshal number into Go value of type int32',
      '.spec.strategy.rollingUpdate.maxUnavailable: json: cannot unmarshal object into Go value of type int32',
      '.spec.template.spec.containers[name="redis"].livenessProbe.tcpSocket.port: json: cannot unmarshal bool into Go value of type int32',
    ]);
  });

  test('without decode (a custom resource) nothing is decoded', () => {
    const object = deployment();
    (object.spec as Json).replicas = 1.5;
    expect(typeObject(appsV1, object).decodeProblems).toEqual([]);
  });
});

describe('applyRefusal: the answer to a server-side apply', () => {
  test('typing problems first (all in one message), then the first decode problem, else none', () => {
    const object = deployment();
    const spec = object.spec as Json;
    expect(applyRefusal(identity, typeObject(appsV1, object, { decode: true }))).toBeUndefined();
    spec.replicas = 2.5;
    first(object).resources = { limits: { cpu: 'lots' } };
    expect(applyRefusal(identity, typeObject(appsV1, object, { decode: true }))).toBe(
      'failed to convert new object (demo/redis; apps/v1, Kind=Deployment) to proper version: ' +
        'unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32',
    );
    spec.triggers = [];
    first(object).capabilities = {};
    // typed/helpers.go ValidationErrors.Error: one per line under "errors:" when there are several.
    expect(applyRefusal(identity, typeObject(appsV1, object, { decode: true }))).toBe(
      'failed to create typed patch object (demo/redis; apps/v1, Kind=Deployment): errors:\n' +
        '  .spec.template.spec.containers[name="redis"].capabilities: field not declared in schema\n' +
        '  .spec.triggers: field not declared in schema',
    );
  });
});
