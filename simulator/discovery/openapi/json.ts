// JSON walks over OpenAPI documents: descriptions out, v2 references made v3, references with
// siblings wrapped as kube-openapi's builder3 does, and the schemas a document references.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, Json>;

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values that are data, not schema: nothing inside them is renamed, stripped or wrapped. */
const DATA_KEYS = new Set(['default', 'example', 'enum']);
/** Maps whose keys are field names, so a field called `description` stays. */
const NAME_MAPS = new Set(['properties', 'patternProperties']);

type Visit = (node: JsonObject) => JsonObject;

/** Rebuilds every schema-level object bottom-up through `visit`, leaving data values alone. */
function walk(value: Json, visit: Visit, inNameMap = false): Json {
  if (Array.isArray(value)) return value.map((item) => walk(item, visit));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (DATA_KEYS.has(key) && !inNameMap) out[key] = child;
    else out[key] = walk(child, visit, !inNameMap && NAME_MAPS.has(key));
  }
  return inNameMap ? out : visit(out);
}

/** Upstream's sentences are not ours to ship: every `description` goes, fields named so stay. */
export function stripDescriptions(value: Json): Json {
  return walk(value, ({ description: _dropped, ...rest }) => rest);
}

/** `#/definitions/X` (OpenAPI v2) → `#/components/schemas/X` (v3). */
export function v3References(value: Json): Json {
  return walk(value, (node) =>
    typeof node.$ref === 'string'
      ? { ...node, $ref: node.$ref.replace('#/definitions/', '#/components/schemas/') }
      : node,
  );
}

/**
 * A `$ref` with siblings (a default, a description) becomes `allOf: [{$ref}]` beside them, as
 * k8s.io/kube-openapi pkg/builder3/util WrapRefs does for every v3 definition.
 */
export function wrapReferences(value: Json): Json {
  return walk(value, (node) => {
    const { $ref, ...siblings } = node;
    if ($ref === undefined || Object.keys(siblings).length === 0) return node;
    return { ...siblings, allOf: [{ $ref }] };
  });
}

/** Keys in sorted order, as Go's encoding/json writes maps. */
export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key] ?? null);
  return out;
}

const SCHEMA_REF = '#/components/schemas/';

function referencedNames(value: Json, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) referencedNames(item, into);
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_REF)) {
        into.add(child.slice(SCHEMA_REF.length));
      } else referencedNames(child, into);
    }
  }
}

/**
 * Every schema `roots` reach through `$ref`, taken from `pool`: a document holds each type it
 * references and no other, as builder3 builds one per group-version.
 */
export function closure(roots: Json, pool: ReadonlyMap<string, JsonObject>): Map<string, JsonObject> {
  const found = new Map<string, JsonObject>();
  const pending = new Set<string>();
  referencedNames(roots, pending);
  for (const name of pending) {
    if (found.has(name)) continue;
    const schema = pool.get(name);
    if (!schema) throw new Error(`no schema named ${name} in the sources`);
    found.set(name, schema);
    referencedNames(schema, pending);
  }
  return found;
}
