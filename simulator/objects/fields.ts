// Field ownership for server-side apply, a reduced structured-merge-diff: every leaf of an applied
// configuration is a field, lists are atomic (one field each), and ownership is recorded per manager
// as FieldsV1 in metadata.managedFields (docs/wire-reference.md §3).
import { isDeepStrictEqual } from 'node:util';
import { setOwn } from '../../src/util/json.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, Json>;
export type Path = readonly string[];

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object's metadata, created empty when it has none, so callers may write into it. */
export function meta(object: JsonObject): JsonObject {
  if (!isObject(object.metadata)) object.metadata = {};
  return object.metadata;
}

export function str(value: Json | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** Fields the server sets or derives: never owned, never taken from an applied configuration. */
export const SERVER_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

/** The leaf paths of a configuration, without identity, server-set metadata and status. */
export function leafPaths(config: JsonObject): Path[] {
  const out: Path[] = [];
  const walk = (node: JsonObject, prefix: Path): void => {
    for (const [key, value] of Object.entries(node)) {
      if (prefix.length === 0 && (key === 'apiVersion' || key === 'kind' || key === 'status')) continue;
      if (prefix.length === 1 && prefix[0] === 'metadata' && SERVER_METADATA.has(key)) continue;
      if (value === null) continue;
      const path = [...prefix, key];
      if (isObject(value) && Object.keys(value).length > 0) walk(value, path);
      else out.push(path);
    }
  };
  walk(config, []);
  return out;
}

/** The leaf paths of a status written through the status subresource, under `status`. */
export function statusPaths(status: Json | undefined): Path[] {
  return isObject(status) ? leafPaths({ written: status }).map(([, ...rest]) => ['status', ...rest]) : [];
}

export function pathKey(path: Path): string {
  return JSON.stringify(path);
}

/** `.data.key` as structured-merge-diff prints a path. */
export function pathText(path: Path): string {
  return path.map((p) => `.${p}`).join('');
}

export function valueAt(root: Json | undefined, path: Path): Json | undefined {
  let node = root;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

export function setAt(root: JsonObject, path: Path, value: Json): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    const child = Object.hasOwn(node, key) ? node[key] : undefined;
    if (!isObject(child)) setOwn(node, key, {});
    node = node[key] as JsonObject;
  }
  const last = path[path.length - 1];
  if (last !== undefined) setOwn(node, last, structuredClone(value));
}

/** Removes a field and the maps it leaves empty (top-level keys and metadata stay). */
export function deleteAt(root: JsonObject, path: Path): void {
  const parents: JsonObject[] = [];
  let node: Json | undefined = root;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node)) return;
    parents.push(node);
    node = node[key];
  }
  const last = path[path.length - 1];
  if (!isObject(node) || last === undefined) return;
  Reflect.deleteProperty(node, last);
  for (let depth = path.length - 2; depth >= 1; depth--) {
    const parent = parents[depth];
    const key = path[depth];
    if (!parent || key === undefined) break;
    const child = parent[key];
    if (!isObject(child) || Object.keys(child).length > 0) break;
    if (depth === 1 && path[0] === 'metadata') break;
    Reflect.deleteProperty(parent, key);
  }
}

export function overlaps(a: Path, b: Path): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function toFieldsV1(paths: readonly Path[]): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      const fieldKey = `f:${key}`;
      if (!isObject(node[fieldKey])) node[fieldKey] = {};
      node = node[fieldKey];
    }
  }
  return root;
}

export function fromFieldsV1(fields: Json | undefined): Path[] {
  const out: Path[] = [];
  const walk = (node: Json | undefined, prefix: Path): void => {
    if (!isObject(node)) return;
    const keys = Object.keys(node).filter((k) => k.startsWith('f:'));
    if (keys.length === 0 && prefix.length > 0) out.push(prefix);
    for (const key of keys) walk(node[key], [...prefix, key.slice(2)]);
  };
  walk(fields, []);
  return out;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

export function sameValue(a: Json | undefined, b: Json | undefined): boolean {
  return isDeepStrictEqual(a, b);
}

/**
 * The order kube-apiserver writes managedFields in: operation (Apply before Update), then time,
 * manager, apiVersion and subresource (k8s.io/apimachinery pkg/util/managedfields/internal/
 * managedfields.go, sortEncodedManagedFields). Times have whole seconds, so text order is time order.
 */
export function sortedManagers(entries: readonly ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const keys = (e: ManagedFieldsEntry): string[] => [
    e.operation,
    e.time,
    e.manager,
    e.apiVersion,
    e.subresource ?? '',
  ];
  const order = (a: ManagedFieldsEntry, b: ManagedFieldsEntry): number => {
    const [x, y] = [keys(a), keys(b)];
    const i = x.findIndex((k, n) => k !== y[n]);
    return i < 0 ? 0 : (x[i] ?? '') < (y[i] ?? '') ? -1 : 1;
  };
  return [...entries].sort(order);
}
