// Merging and comparing typed values, by structured-merge-diff v6's rules (`typed/merge.go` with
// the keep-the-applied-value rule of `typed/typed.go` Merge, and `typed/compare.go`, read at
// v6.3.0): a keyed list or a set is merged item by item in the order merge.go keeps, a granular
// map key by key, and an atomic list or map, a scalar or an empty value is one leaf.
import { setOwn } from '../../src/util/json.ts';
import type { ListDef, TypeDef, TypeRef } from '../../src/schema/table.ts';
import { isObject, type Json, type JsonObject, sameValue } from './fields.ts';
import { fieldElement, type Path } from './field-paths.ts';
import { atomOf, entryType, isNamedField, itemsByElement, resolveType, type Schema } from './typed-fields.ts';

type Value = Json | undefined;

function isEmpty(value: Value): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

type Shape = 'list' | 'map' | 'leaf';

function shapeOf(def: TypeDef, value: Value): Shape | undefined {
  if (value === undefined) return undefined;
  const atom = atomOf(def, value);
  if (atom.list && Array.isArray(value)) return atom.list.listType === 'atomic' ? 'leaf' : 'list';
  if (atom.map && isObject(value)) return atom.map.mapType === 'atomic' ? 'leaf' : 'map';
  return 'leaf';
}

/**
 * The granular list or map both sides are, or `undefined` for a leaf: a scalar, an atomic list or
 * map, two sides of different shapes, or two empty sides (kept a leaf to tell `{}` from null).
 */
function granular(schema: Schema, ref: TypeRef | undefined, lhs: Value, rhs: Value): TypeDef | undefined {
  if (isEmpty(lhs) && isEmpty(rhs)) return undefined;
  const def = resolveType(schema.table, ref);
  const [left, right] = [shapeOf(def, lhs), shapeOf(def, rhs)];
  if (left !== undefined && right !== undefined && left !== right) return undefined;
  const shape = left ?? right;
  if (shape === 'list' && def.list) return { list: def.list };
  if (shape === 'map' && def.map) return { map: def.map };
  return undefined;
}

// merge.go visitListItems: the items both sides have follow the applied order, the live ones
// the configuration lacks stay where they were, and new ones come where the configuration has them.
function mergeList(schema: Schema, list: ListDef, lhs: Json[], rhs: Json[]): Json[] {
  const left = itemsByElement(schema.table, list, lhs);
  const right = itemsByElement(schema.table, list, rhs);
  const leftItems = new Map(left);
  const rightItems = new Map(right);
  const shared = right.map(([e]) => e).filter((e) => leftItems.has(e));
  let nextShared = shared.shift();
  const merged = new Set<string>();
  const out: Json[] = [];
  const take = (element: string): void => {
    const item = mergeShared(schema, list.elements, leftItems.get(element), rightItems.get(element));
    if (item !== undefined) out.push(item);
  };
  for (let l = 0, r = 0; l < left.length || r < right.length;) {
    const [le] = left[l] ?? [];
    const [re] = right[r] ?? [];
    if (le !== undefined && re !== undefined) {
      if (le === re) {
        merged.add(le);
        take(le);
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (rightItems.has(le) && nextShared !== undefined && nextShared !== le) {
        l++;
        continue;
      }
    }
    if (le !== undefined) {
      if (!rightItems.has(le)) {
        const item = mergeShared(schema, list.elements, left[l]?.[1], undefined);
        if (item !== undefined) out.push(item);
        l++;
        continue;
      }
      if (merged.has(le)) l++;
    }
    if (re !== undefined) {
      merged.add(re);
      take(re);
      r++;
      if (nextShared === re) nextShared = shared.shift();
    }
  }
  return out;
}

// The merge of two values, sharing their unchanged parts with them: merge() copies the result.
function mergeShared(schema: Schema, ref: TypeRef | undefined, lhs: Value, rhs: Value): Value {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const walked = granular(schema, ref, lhs, rhs);
  if (walked?.list) return mergeList(schema, walked.list, lhs as Json[], rhs as Json[]);
  if (!walked?.map) return rhs;
  const [left, right] = [lhs as JsonObject, rhs as JsonObject];
  const out: JsonObject = {};
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    const value = mergeShared(schema, entryType(walked.map, key), left[key], right[key]);
    if (value !== undefined) setOwn(out, key, value);
  }
  return out;
}

/** typed.go Merge: `rhs` (an applied configuration) over `lhs` (the live object), a new value. */
export function merge(schema: Schema, ref: TypeRef | undefined, lhs: Value, rhs: Value): Value {
  const merged = mergeShared(schema, ref, lhs, rhs);
  return merged === undefined ? undefined : structuredClone(merged);
}

/** compare.go's Comparison: fields only the new value has, only the old one has, and changed. */
export interface Comparison {
  added: Path[];
  removed: Path[];
  modified: Path[];
}

/**
 * compare.go Compare of `lhs` (before) and `rhs` (after). With `goStructs` (an update of a built-in
 * kind, whose objects kube-apiserver holds as Go values) a struct field is never added or removed
 * as a whole, as a Go struct is there in its zero value where a Go map or slice is not.
 */
export function compare(schema: Schema, lhs: Value, rhs: Value, goStructs = false): Comparison {
  const result: Comparison = { added: [], removed: [], modified: [] };
  const leaf = (path: Path, l: Value, r: Value): void => {
    if (l === undefined) result.added.push(path);
    else if (r === undefined) result.removed.push(path);
    else if (!sameValue(l, r)) result.modified.push(path);
  };
  const walk = (ref: TypeRef | undefined, l: Value, r: Value, path: Path, struct: boolean): void => {
    const walked = granular(schema, ref, l, r);
    if (walked === undefined) {
      if (path.length > 0) leaf(path, l, r);
      return;
    }
    if (walked.list) {
      const list = walked.list;
      const left = new Map(itemsByElement(schema.table, list, (l ?? []) as Json[]));
      const right = new Map(itemsByElement(schema.table, list, (r ?? []) as Json[]));
      for (const element of new Set([...left.keys(), ...right.keys()]))
        walk(list.elements, left.get(element), right.get(element), [...path, element], false);
    } else if (walked.map) {
      const map = walked.map;
      const [left, right] = [(l ?? {}) as JsonObject, (r ?? {}) as JsonObject];
      for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
        const struct =
          isNamedField(map, key) && resolveType(schema.table, entryType(map, key)).map?.fields !== undefined;
        walk(entryType(map, key), left[key], right[key], [...path, fieldElement(key)], struct);
      }
    }
    if (path.length === 0 || (goStructs && struct)) return;
    if (l === undefined) result.added.push(path);
    else if (r === undefined) result.removed.push(path);
  };
  walk(schema.type, lhs, rhs, [], false);
  return result;
}
