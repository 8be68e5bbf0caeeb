// Field sets of typed values, by structured-merge-diff v6's rules (sigs.k8s.io/structured-merge-diff
// `typed/tofieldset.go`, `typed/remove.go`, `fieldpath/set.go` EnsureNamedFieldsAreMembers, read at
// v6.3.0, the version kubernetes 1.34 vendors), over the compact type tables the simulator builds
// from the OpenAPI v3 documents it serves: a list is atomic, a set (`v:` items) or keyed (`k:`
// items, an absent key field taken from the schema's default) as `x-kubernetes-list-type` says; a
// map or struct marked `x-kubernetes-map-type: atomic` is one field, owned whole.
import {
  UNTYPED,
  type ListDef,
  type MapDef,
  type TypeDef,
  type TypeRef,
  type TypeTable,
} from '../../src/schema/table.ts';
import { setOwn } from '../../src/util/json.ts';
import { isObject, type Json, type JsonObject } from './fields.ts';
import {
  below,
  fieldElement,
  fieldName,
  hasMember,
  keyedElement,
  type Path,
  setElement,
  type SetNode,
  setTree,
  union,
} from './field-paths.ts';

/** Where a value's type comes from: its kind's table and type, or nothing known (all untyped). */
export interface Schema {
  table: TypeTable;
  type: TypeRef;
  /** A built-in kind's objects pass through its Go types; a custom resource's do not. */
  builtIn?: boolean;
}

export const UNTYPED_SCHEMA: Schema = { table: { types: {}, kinds: {} }, type: UNTYPED };

const UNTYPED_DEF: TypeDef = {
  scalar: 'untyped',
  map: { elements: UNTYPED },
  list: { elements: UNTYPED, listType: 'atomic' },
};

export function resolveType(table: TypeTable, ref: TypeRef | undefined): TypeDef {
  if (ref === undefined || ref === UNTYPED) return UNTYPED_DEF;
  if (typeof ref !== 'string') return ref;
  return table.types[ref] ?? UNTYPED_DEF;
}

/** typed/helpers.go deduceAtom: the part of a type a value takes. */
export function atomOf(def: TypeDef, value: Json | undefined): TypeDef {
  if (Array.isArray(value)) return def.list ? { list: def.list } : def;
  if (isObject(value)) return def.map ? { map: def.map } : def;
  if (value !== null && value !== undefined && def.scalar) return { scalar: def.scalar };
  return def;
}

/** The type of a map's entry: its declared field's, else the map's element type. */
export function entryType(map: MapDef, key: string): TypeRef | undefined {
  return map.fields && Object.hasOwn(map.fields, key) ? map.fields[key] : map.elements;
}

export function isNamedField(map: MapDef | undefined, key: string): boolean {
  return map?.fields !== undefined && Object.hasOwn(map.fields, key);
}

/**
 * typed/helpers.go listItemToPathElement: a keyed list's item by its key fields (an absent one
 * from the element type's default, or left out), a set's item by its value; `undefined` where the
 * item has no element (typing refuses such an apply before it gets here).
 */
export function itemElement(table: TypeTable, list: ListDef, item: Json): string | undefined {
  if (list.listType === 'set')
    return isObject(item) || Array.isArray(item) || item === null ? undefined : setElement(item);
  if (!isObject(item)) return undefined;
  const defaults = resolveType(table, list.elements).map?.keyDefaults ?? {};
  const fields: [string, Json][] = [];
  for (const key of list.keys ?? []) {
    if (Object.hasOwn(item, key)) fields.push([key, item[key] ?? null]);
    else if (Object.hasOwn(defaults, key)) fields.push([key, defaults[key] ?? null]);
  }
  return fields.length === 0 ? undefined : keyedElement(fields);
}

/** The items of a granular list by element, in order; items without an element are skipped. */
export function itemsByElement(table: TypeTable, list: ListDef, items: readonly Json[]): [string, Json][] {
  const out: [string, Json][] = [];
  for (const item of items) {
    const element = itemElement(table, list, item);
    if (element !== undefined) out.push([element, item]);
  }
  return out;
}

/** typed/tofieldset.go: the fields a value sets, as the manager that sent it would own them. */
export function toFieldSet(schema: Schema, value: Json): Path[] {
  const out: Path[] = [];
  const walk = (node: Json, ref: TypeRef | undefined, path: Path): void => {
    const atom = atomOf(resolveType(schema.table, ref), node);
    if (atom.list && Array.isArray(node)) {
      if (atom.list.listType === 'atomic') out.push(path);
      else
        for (const [element, item] of itemsByElement(schema.table, atom.list, node)) {
          walk(item, atom.list.elements, [...path, element]);
          out.push([...path, element]);
        }
      return;
    }
    if (atom.map && isObject(node)) {
      if (atom.map.mapType === 'atomic') {
        out.push(path);
        return;
      }
      for (const [key, child] of Object.entries(node)) {
        const childPath = [...path, fieldElement(key)];
        walk(child, entryType(atom.map, key), childPath);
        const empty = child === null || (isObject(child) && Object.keys(child).length === 0);
        if (empty || !isNamedField(atom.map, key)) out.push(childPath);
      }
      return;
    }
    out.push(path);
  };
  walk(value, schema.type, []);
  return union(out.filter((p) => p.length > 0));
}

/** fieldpath/set.go EnsureNamedFieldsAreMembers: a struct field with members below is one too. */
export function withNamedFields(schema: Schema, set: readonly Path[]): Path[] {
  const out: Path[] = [];
  const walk = (node: SetNode, def: TypeDef, path: Path): void => {
    for (const [element, child] of node.children) {
      const name = fieldName(element);
      const here = [...path, element];
      const named = name !== undefined && isNamedField(def.map, name);
      if (child.member || (named && child.children.size > 0)) out.push(here);
      const next =
        name !== undefined && def.map
          ? resolveType(schema.table, entryType(def.map, name))
          : name === undefined && def.list
            ? resolveType(schema.table, def.list.elements)
            : UNTYPED_DEF;
      walk(child, next, here);
    }
  };
  walk(setTree(set), resolveType(schema.table, schema.type), []);
  return out;
}

function isEmpty(value: Json): boolean {
  return Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0;
}

/** typed/remove.go RemoveItems: the value without the members of `set` (atomic parts kept whole). */
export function removeItems(schema: Schema, value: Json, set: readonly Path[]): Json {
  const walk = (node: Json, ref: TypeRef | undefined, remove: readonly Path[]): Json => {
    const atom = atomOf(resolveType(schema.table, ref), node);
    if (atom.list && Array.isArray(node) && atom.list.listType !== 'atomic') {
      const list = atom.list;
      const kept: Json[] = [];
      for (const item of node) {
        const element = itemElement(schema.table, list, item);
        if (element === undefined) {
          kept.push(item);
          continue;
        }
        if (hasMember(remove, element)) continue;
        const inner = below(remove, element);
        kept.push(inner.length > 0 ? walk(item, list.elements, inner) : item);
      }
      return kept;
    }
    if (atom.map && isObject(node) && atom.map.mapType !== 'atomic') {
      const map = atom.map;
      const kept: JsonObject = {};
      for (const [key, child] of Object.entries(node)) {
        const element = fieldElement(key);
        if (hasMember(remove, element)) continue;
        const inner = below(remove, element);
        if (inner.length === 0) {
          setOwn(kept, key, child);
          continue;
        }
        // A map or list emptied here is null in structured-merge-diff's result, which the
        // object's decoding then drops.
        const rest = walk(child, entryType(map, key), inner);
        if (!isEmpty(rest)) setOwn(kept, key, rest);
      }
      return kept;
    }
    return node;
  };
  return walk(value, schema.type, set);
}
