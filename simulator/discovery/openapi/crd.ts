// A custom resource's schema as apiextensions-apiserver publishes it in /openapi/v3
// (k8s.io/apiextensions-apiserver pkg/controller/openapi/builder/builder.go, BuildOpenAPIV3 with
// the options pkg/controller/openapiv3 passes): the CRD version's openAPIV3Schema unfolded
// (pkg/apiserver/schema/unfold.go), apiVersion/kind/metadata set as on every Kubernetes object,
// embedded resources given the same, and a List kind beside it.
import { isObject, type Json, type JsonObject } from './json.ts';

const OBJECT_META = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
/** A `$ref` that carried a description upstream: published wrapped in allOf (builder3 WrapRefs). */
const wrappedReference = (ref: string): JsonObject => ({ allOf: [{ $ref: ref }] });
const TYPE_META: JsonObject = { apiVersion: { type: 'string' }, kind: { type: 'string' } };
const INT_OR_STRING: Json[] = [{ type: 'integer' }, { type: 'string' }];

/** The schema name of a custom kind: its group reversed, then version and kind (gvkToModelName). */
export function customSchemaName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function isIntOrStringPattern(value: Json | undefined): boolean {
  return JSON.stringify(value) === JSON.stringify(INT_OR_STRING);
}

/** x-kubernetes-int-or-string gains the anyOf it stands for, unless it has it already. */
function unfold(schema: JsonObject): JsonObject {
  if (schema['x-kubernetes-int-or-string'] !== true || isIntOrStringPattern(schema.anyOf)) return schema;
  const allOf = Array.isArray(schema.allOf) ? schema.allOf : [];
  const first = allOf[0];
  if (isObject(first) && isIntOrStringPattern(first.anyOf)) return schema;
  if (schema.anyOf === undefined) return { ...schema, anyOf: INT_OR_STRING };
  return { ...schema, allOf: [{ anyOf: INT_OR_STRING }, ...allOf] };
}

/** An embedded resource (x-kubernetes-embedded-resource) is a Kubernetes object: addEmbeddedProperties. */
function embed(schema: JsonObject): JsonObject {
  if (schema['x-kubernetes-embedded-resource'] !== true) return schema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const missing = ['kind', 'apiVersion'].filter((name) => !required.includes(name));
  return {
    ...schema,
    properties: { ...properties, ...TYPE_META, metadata: wrappedReference(OBJECT_META) },
    required: [...required, ...missing],
  };
}

/** Visits the structural nodes (properties, items, additionalProperties), children first. */
function structural(schema: JsonObject): JsonObject {
  const out: JsonObject = { ...schema };
  if (isObject(schema.properties)) {
    const properties: JsonObject = {};
    for (const [name, child] of Object.entries(schema.properties)) {
      properties[name] = isObject(child) ? structural(child) : child;
    }
    out.properties = properties;
  }
  if (isObject(schema.items)) out.items = structural(schema.items);
  if (isObject(schema.additionalProperties))
    out.additionalProperties = structural(schema.additionalProperties);
  return embed(unfold(out));
}

/** The kind's schema and its List's, named as apiextensions-apiserver names them. */
export function customSchemas(
  group: string,
  version: string,
  kind: string,
  openAPIV3Schema: JsonObject,
): Map<string, JsonObject> {
  const name = customSchemaName(group, version, kind);
  const root = structural(openAPIV3Schema);
  const properties = isObject(root.properties) ? root.properties : {};
  const object: JsonObject = {
    ...root,
    properties: { ...properties, metadata: wrappedReference(OBJECT_META), ...TYPE_META },
    'x-kubernetes-group-version-kind': [{ group, kind, version }],
  };
  const list: JsonObject = {
    type: 'object',
    required: ['items'],
    properties: {
      items: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
      metadata: wrappedReference(LIST_META),
      ...TYPE_META,
    },
    'x-kubernetes-group-version-kind': [{ group, kind: `${kind}List`, version }],
  };
  return new Map([
    [name, object],
    [`${name}List`, list],
  ]);
}
