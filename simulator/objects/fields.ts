// The JSON of stored objects and their managedFields entries (docs/wire-reference.md §3): the
// helpers every write rule shares. Field paths and sets are field-paths.ts; the typed walks that
// make them, typed-fields.ts and typed-diff.ts.
import { isDeepStrictEqual } from 'node:util';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, Json>;
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

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  /** Absent on an Apply entry whose apply changed nothing of the object. */
  time?: string;
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
    e.time ?? '',
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
