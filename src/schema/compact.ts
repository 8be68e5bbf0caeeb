// An OpenAPI v3 document → a compact type table, as kube-openapi's schemaconv converts it
// (sources: docs/typing.md).
import { isRecord } from '../util/json.ts';
import {
  OBJECT_META,
  UNTYPED,
  UNTYPED_DEF,
  kindKey,
  type JsonScalar,
  type ListDef,
  type MapDef,
  type TypeDef,
  type TypeRef,
  type TypeTable,
} from './table.ts';

type Json = Record<string, unknown>;

// schemaconv hard-codes these two by name.
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
// Published as `format: date-time` like Time, but parsed with RFC3339Micro: told apart by name.
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
const SCHEMA_PREFIX = '#/components/schemas/';

interface Context {
  /** x-kubernetes-preserve-unknown-fields reaches inlined descendants, not named types. */
  preserve: boolean;
  keyNames: ReadonlySet<string>;
  hasObjectMeta: boolean;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

function refName(schema: Json): string | undefined {
  let ref = schema.$ref;
  const allOf = schema.allOf;
  if (ref === undefined && Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0])) {
    ref = allOf[0].$ref;
  }
  if (typeof ref !== 'string') return undefined;
  const name = ref.startsWith(SCHEMA_PREFIX) ? ref.slice(SCHEMA_PREFIX.length) : ref.split('/').pop();
  return name === '' ? undefined : name;
}

function primitive(type: string, format: unknown): TypeDef {
  if (type === 'integer')
    return format === 'int32' || format === 'int64' ? { scalar: 'numeric', format } : { scalar: 'numeric' };
  if (type === 'number') return { scalar: 'numeric' };
  if (type === 'boolean') return { scalar: 'boolean' };
  // A string. convertPrimitive: any format but `byte` (date-time, int-or-string) is an untyped scalar.
  if (format === 'int-or-string' || format === 'date-time') return { scalar: 'untyped', format };
  if (format === 'byte') return { scalar: 'string', format };
  return { scalar: format === undefined || format === '' ? 'string' : 'untyped' };
}

function isUntypedDef(def: TypeDef): boolean {
  const { map, list } = def;
  return (
    def.scalar === 'untyped' &&
    def.format === undefined &&
    map?.elements === UNTYPED &&
    map.fields === undefined &&
    list?.elements === UNTYPED &&
    list.listType === 'atomic'
  );
}

function ref(schema: unknown, ctx: Context): TypeRef {
  if (!isRecord(schema)) return UNTYPED;
  const name = refName(schema);
  if (name !== undefined) return name;
  const def = parseSchema(schema, ctx);
  return isUntypedDef(def) ? UNTYPED : def;
}

function parseSchema(schema: Json, outer: Context): TypeDef {
  const ctx = schema['x-kubernetes-preserve-unknown-fields'] === true ? { ...outer, preserve: true } : outer;
  const rawType: unknown = Array.isArray(schema.type) ? (schema.type as unknown[])[0] : schema.type;
  const type = typeof rawType === 'string' ? rawType : '';
  switch (type) {
    case '': {
      const intOrString = schema['x-kubernetes-int-or-string'] === true || schema.format === 'int-or-string';
      const def: TypeDef = { scalar: 'untyped', list: parseList(schema, ctx), map: parseObject(schema, ctx) };
      return intOrString ? { ...def, format: 'int-or-string' } : def;
    }
    case 'object':
      return { map: parseObject(schema, ctx) };
    case 'array':
      return { list: parseList(schema, ctx) };
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
      return primitive(type, schema.format);
    default:
      return { scalar: 'untyped' };
  }
}

function parseFields(properties: Json, ctx: Context, map: MapDef): void {
  const fields: Record<string, TypeRef> = {};
  const keyDefaults: Record<string, JsonScalar> = {};
  for (const [name, member] of Object.entries(properties)) {
    fields[name] = ref(member, ctx);
    const fallback = isRecord(member) && ctx.keyNames.has(name) ? member.default : undefined;
    if (fallback === null || ['string', 'number', 'boolean'].includes(typeof fallback))
      keyDefaults[name] = fallback as JsonScalar;
  }
  if (Object.keys(fields).length > 0) map.fields = fields;
  if (Object.keys(keyDefaults).length > 0) map.keyDefaults = keyDefaults;
}

function addEmbeddedFields(map: MapDef, ctx: Context): void {
  map.embedded = true;
  map.fields = {
    ...map.fields,
    apiVersion: { scalar: 'string' },
    kind: { scalar: 'string' },
    ...(ctx.hasObjectMeta ? { metadata: OBJECT_META } : {}),
  };
}

function parseObject(schema: Json, ctx: Context): MapDef {
  const map: MapDef = {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  parseFields(properties, ctx, map);
  const extra = schema.additionalProperties;
  if (extra === undefined) {
    // An object with neither properties nor additionalProperties is free-form.
    if (ctx.preserve || Object.keys(properties).length === 0) map.elements = UNTYPED;
  } else if (isRecord(extra)) {
    map.elements = ref(extra, ctx);
  } else if (extra === true) {
    map.elements = UNTYPED;
  }
  if (ctx.preserve) map.preserveUnknown = true;
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') map.mapType = mapType;
  if (schema['x-kubernetes-embedded-resource'] === true) addEmbeddedFields(map, ctx);
  return map;
}

function listShape(schema: Json): Pick<ListDef, 'listType' | 'keys'> {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'atomic') return { listType: 'atomic' };
  if (listType === 'set') return { listType: 'set' };
  if (listType === 'map') {
    const keys = stringList(schema['x-kubernetes-list-map-keys']) ?? [];
    return keys.length > 0 ? { listType: 'map', keys } : { listType: 'set' };
  }
  // OpenAPI v2's patch strategy still decides where no list type is given.
  const strategy = schema['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = schema['x-kubernetes-patch-merge-key'];
    return typeof key === 'string' ? { listType: 'map', keys: [key] } : { listType: 'set' };
  }
  return { listType: 'atomic' };
}

function parseList(schema: Json, ctx: Context): ListDef {
  const items: unknown = Array.isArray(schema.items) ? (schema.items as unknown[])[0] : schema.items;
  return { elements: items === undefined ? UNTYPED : ref(items, ctx), ...listShape(schema) };
}

function collectKeyNames(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectKeyNames(item, into);
    return;
  }
  if (!isRecord(node)) return;
  for (const key of stringList(node['x-kubernetes-list-map-keys']) ?? []) into.add(key);
  const mergeKey = node['x-kubernetes-patch-merge-key'];
  if (typeof mergeKey === 'string') into.add(mergeKey);
  for (const value of Object.values(node)) collectKeyNames(value, into);
}

function kindsOf(name: string, schema: Json, kinds: Record<string, string>): void {
  const gvks = schema['x-kubernetes-group-version-kind'];
  if (!Array.isArray(gvks)) return;
  for (const gvk of gvks) {
    if (!isRecord(gvk)) continue;
    const { group, version, kind } = gvk;
    if (typeof group !== 'string' || typeof version !== 'string' || typeof kind !== 'string') continue;
    kinds[kindKey(group === '' ? version : `${group}/${version}`, kind)] = name;
  }
}

/** The named schemas of an OpenAPI v3 document (`components.schemas`), or none. */
function schemasOf(document: unknown): Json {
  const components = isRecord(document) ? document.components : undefined;
  return isRecord(components) && isRecord(components.schemas) ? components.schemas : {};
}

/**
 * Converts an OpenAPI v3 document into the compact type table typing uses: each named type's
 * structure and each kind's type name; descriptions and validation keywords are dropped.
 *
 * @example
 * const table = compactTypes(await (await fetch(url)).json());
 * table.kinds[kindKey('apps/v1', 'Deployment')]; // 'io.k8s.api.apps.v1.Deployment'
 */
export function compactTypes(document: unknown): TypeTable {
  const schemas = schemasOf(document);
  const keyNames = new Set<string>();
  collectKeyNames(schemas, keyNames);
  const ctx: Context = { preserve: false, keyNames, hasObjectMeta: isRecord(schemas[OBJECT_META]) };
  const table: TypeTable = { types: {}, kinds: {} };
  for (const [name, schema] of Object.entries(schemas)) {
    // A named schema that is only a reference is skipped, as ToSchemaFromOpenAPI does.
    if (!isRecord(schema) || typeof schema.$ref === 'string') continue;
    if (name === QUANTITY) table.types[name] = { scalar: 'untyped', format: 'quantity' };
    else if (name === MICRO_TIME) table.types[name] = { scalar: 'untyped', format: 'micro-time' };
    else if (name === RAW_EXTENSION) table.types[name] = UNTYPED_DEF;
    else table.types[name] = parseSchema(schema, ctx);
    kindsOf(name, schema, table.kinds);
  }
  return table;
}
