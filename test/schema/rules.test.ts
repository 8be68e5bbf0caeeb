// The rules the built-in documents do not exercise, on a small document shaped the way
// apiextensions-apiserver publishes a custom resource's schema (k8s.io/apiextensions-apiserver
// pkg/controller/openapi/builder/builder.go buildKubeNative: metadata → ObjectMeta, the GVK
// extension). Conversion: kube-openapi pkg/schemaconv; typing: structured-merge-diff typed/.
import { describe, expect, test } from 'vitest';
import { compactTypes } from '../../src/schema/compact.ts';
import { typeObject, typeValue, type TypingResult } from '../../src/schema/typing.ts';
import apps from './fixtures/apps-v1.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const metaTypes = Object.fromEntries(
  Object.entries(apps.components.schemas).filter(([name]) =>
    name.startsWith('io.k8s.apimachinery.pkg.apis.meta.v1.'),
  ),
);

const widget = {
  type: 'object',
  'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { $ref: `#/components/schemas/${META}` },
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', format: 'int64' },
        ratio: { type: 'number', format: 'double' },
        enabled: { type: 'boolean' },
        since: { type: 'string', format: 'date-time' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        steps: { type: 'array', items: { type: 'object', properties: { run: { type: 'string' } } } },
        routes: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'host'],
          items: {
            type: 'object',
            properties: { host: { type: 'string' }, port: { type: 'integer' }, note: { type: 'string' } },
          },
        },
        limits: { type: 'object', additionalProperties: { type: 'integer' } },
        closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        free: { type: 'object' },
        open: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            known: { type: 'string' },
            nested: { type: 'object', properties: { x: { type: 'string' } } },
          },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        strict: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
        },
      },
    },
  },
};

const table = compactTypes({ components: { schemas: { 'com.example.v1.Widget': widget, ...metaTypes } } });

function check(spec: Record<string, unknown>, metadata: unknown = { name: 'w' }): TypingResult {
  return typeObject(table, { apiVersion: 'example.com/v1', kind: 'Widget', metadata, spec });
}

function lines(spec: Record<string, unknown>, metadata?: unknown): string[] {
  return check(spec, metadata).problems.map((p) => `${p.path}: ${p.reason}`);
}

describe('scalars (typed/validate.go validateScalar; schemaconv smd.go convertPrimitive)', () => {
  test('integer and number are both numeric: a float passes for an int64', () => {
    expect(lines({ size: 2.5, ratio: 1 })).toEqual([]);
  });

  test('booleans are strict, strings with a format other than byte are untyped scalars', () => {
    expect(lines({ enabled: 'true', since: 12 })).toEqual(['.spec.enabled: expected boolean, got string']);
    expect(lines({ since: {} })).toEqual(['.spec.since: expected any scalar, got map']);
  });

  test('x-kubernetes-int-or-string (a schema without a type) takes a number or a string', () => {
    expect(lines({ port: 80 })).toEqual([]);
    expect(lines({ port: 'http' })).toEqual([]);
  });
});

describe('maps (schemaconv openapi.go parseObject; typed/validate.go visitMapItems)', () => {
  test('additionalProperties types every value', () => {
    expect(lines({ limits: { a: 1, b: 'two' } })).toEqual([
      '.spec.limits.b: expected numeric (int or float), got string',
    ]);
  });

  test('additionalProperties: false declares no other key', () => {
    expect(lines({ closed: { a: 'x', b: 'y' } })).toEqual(['.spec.closed.b: field not declared in schema']);
  });

  test('an object without properties or additionalProperties is free-form', () => {
    expect(lines({ free: { any: { thing: [1, { deep: null }] } } })).toEqual([]);
  });

  test('x-kubernetes-preserve-unknown-fields accepts unknown keys, also in inlined descendants', () => {
    expect(lines({ open: { known: 'k', extra: 1, nested: { x: 'a', y: 2 } } })).toEqual([]);
    expect(lines({ open: { known: 1 } })).toEqual(['.spec.open.known: expected string, got number']);
  });
});

describe('metadata and embedded resources (builder.go buildKubeNative, addEmbeddedProperties)', () => {
  test('top-level metadata is ObjectMeta', () => {
    expect(lines({}, { name: 'w', labels: { a: 1 }, color: 'red' })).toEqual([
      '.metadata.labels.a: expected string, got number',
      '.metadata.color: field not declared in schema',
    ]);
  });

  test('an embedded resource gets apiVersion, kind and ObjectMeta, and keeps its own rules', () => {
    const template = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { a: false } },
      spec: {},
    };
    expect(lines({ template })).toEqual([
      '.spec.template.metadata.annotations.a: expected string, got boolean',
    ]);
    expect(lines({ strict: { kind: 'X', metadata: { name: 'n' }, spec: { y: 1 }, status: {} } })).toEqual([
      '.spec.strict.spec.y: field not declared in schema',
      '.spec.strict.status: field not declared in schema',
    ]);
  });

  test('nested metadata without either is whatever the schema says (here: free-form)', () => {
    expect(lines({ free: { metadata: { labels: { a: 1 } } } })).toEqual([]);
  });

  test('an object whose properties are empty is free-form too (parseObject: len(Properties) == 0)', () => {
    const empty = compactTypes({ components: { schemas: { T: { type: 'object', properties: {} } } } });
    expect(typeValue(empty, { anything: 1 }, 'T').problems).toEqual([]);
    expect(typeValue(empty, { anything: 1 }, 'Missing').problems.map((p) => p.reason)).toEqual([
      'schema error: no type found matching: Missing',
    ]);
    const { problems } = typeValue(empty, 'text', 'T');
    expect(problems.map((p) => p.reason)).toEqual(['expected map, got string']);
  });
});

describe('lists (typed/validate.go visitListItems; typed/helpers.go listItemToPathElement)', () => {
  test('a set refuses duplicates, maps, lists and nulls, by value', () => {
    expect(lines({ tags: ['a', 'b', 'a'] })).toEqual(['.spec.tags: duplicate entries for key [="a"]']);
    expect(lines({ tags: [{ a: 1 }, ['x'], null] })).toEqual([
      ".spec.tags: element 0: associative list without keys has an element that's a map type",
      '.spec.tags: element 1: not supported: associative list with lists as elements',
      ".spec.tags: element 2: associative list without keys has an element that's an explicit null",
    ]);
  });

  test('an atomic list (no list type) is indexed, duplicates allowed', () => {
    expect(lines({ steps: [{ run: 'a' }, { run: 'a' }, { run: 'b', retry: 1 }] })).toEqual([
      '.spec.steps[2].retry: field not declared in schema',
    ]);
  });

  test('keyed list: keys sorted by name, one key enough, all absent refused, null refused', () => {
    expect(
      lines({
        routes: [
          { port: 80, host: 'a', x: 1 },
          { host: 'b', y: 1 },
        ],
      }),
    ).toEqual([
      '.spec.routes[host="a",port=80].x: field not declared in schema',
      '.spec.routes[host="b"].y: field not declared in schema',
    ]);
    expect(lines({ routes: [{ note: 'n' }, null] })).toEqual([
      '.spec.routes: element 0: associative list with keys has an element that omits all key fields ["port" "host"] ' +
        "(and doesn't have default values for any key fields)",
      '.spec.routes: element 1: associative list with keys may not have a null element',
    ]);
    expect(lines({ routes: [{ port: 1 }, { port: 1 }] })).toEqual([
      '.spec.routes: duplicate entries for key [port=1]',
    ]);
  });

  test('key values print as structured-merge-diff prints them (value.ToString)', () => {
    const routes = [
      { host: 'q"uote', port: 1.5, note: 1 },
      { host: 'big', port: 1234567.5, note: 1 },
    ];
    expect(lines({ routes })).toEqual([
      '.spec.routes[host="q\\"uote",port=1.5].note: expected string, got number',
      '.spec.routes[host="big",port=1.2345675e+06].note: expected string, got number',
    ]);
  });
});
