// The managedFields an update records (a create, a PUT, a merge patch of the main resource or of
// a subresource), as structured-merge-diff's merge/update.go Updater.Update and the apiserver's
// field manager (k8s.io/apiserver pkg/endpoints/handlers/fieldmanager) keep them; the entry and
// field rules server-side apply (ownership.ts) shares.
import { groupVersionOf } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import { type JsonObject, type ManagedFieldsEntry, meta, SERVER_METADATA, sortedManagers } from './fields.ts';
import {
  difference,
  fieldElement,
  fromFieldsV1,
  type Path,
  sameSet,
  toFieldsV1,
  union,
} from './field-paths.ts';
import { compare } from './typed-diff.ts';
import { type Schema, UNTYPED_SCHEMA } from './typed-fields.ts';

export function managedEntry(
  info: ResourceInfo,
  manager: string,
  operation: 'Apply' | 'Update',
  paths: readonly Path[],
  subresource?: string,
): ManagedFieldsEntry {
  return {
    manager,
    operation,
    apiVersion: groupVersionOf(info),
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(paths),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

/**
 * The entries a field manager of `info`'s group can use: one recorded in another group's version
 * goes, as the kind is not registered there and structured-merge-diff drops a manager whose
 * version it cannot convert to (merge/update.go, IsMissingVersionError;
 * k8s.io/apimachinery pkg/util/managedfields/internal/versionconverter.go). openshift-apiserver's
 * RBAC proxy and kube-apiserver each see the other's (simulator/objects/legacy-rbac.ts).
 */
export function convertible(
  info: ResourceInfo,
  entries: readonly ManagedFieldsEntry[],
): ManagedFieldsEntry[] {
  const groupOf = (apiVersion: string): string =>
    apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  return entries.filter((e) => groupOf(e.apiVersion) === info.group);
}

/** The object's managedFields entries, or none. */
export function entriesOf(object: JsonObject | undefined): ManagedFieldsEntry[] {
  const entries = object ? meta(object).managedFields : undefined;
  return Array.isArray(entries) ? (entries as unknown as ManagedFieldsEntry[]) : [];
}

/**
 * apiserver fieldmanager internal/stripmeta.go: the type and identity fields and the metadata the
 * server sets are nobody's; status is owned through the status subresource only (the strategies'
 * reset fields).
 */
export function ownable(paths: readonly Path[], subresource?: string): Path[] {
  const metadata = fieldElement('metadata');
  return paths.filter((p) => {
    if (subresource === 'status') return p[0] === fieldElement('status');
    if (p.length === 1 && ['apiVersion', 'kind', 'metadata', 'status'].map(fieldElement).includes(p[0] ?? ''))
      return false;
    if (p[0] === fieldElement('status')) return false;
    return !(p[0] === metadata && [...SERVER_METADATA].map(fieldElement).includes(p[1] ?? ''));
  });
}

/**
 * The managedFields after an update (a create, a PUT or a merge patch, of the main resource or of
 * `subresource`) turned `live` (nothing, for a create) into `result`, as Updater.Update records
 * it: `manager` owns what changed or was added, every other manager loses those fields, fields
 * removed are nobody's, and managers left owning nothing are dropped. One entry per manager,
 * operation, apiVersion and subresource, as the server keys them
 * (managedfields/internal/buildmanagerinfo.go).
 */
export function updatedManagers(
  info: ResourceInfo,
  live: JsonObject | undefined,
  result: JsonObject,
  manager: string,
  options: { schema?: Schema | undefined; subresource?: string | undefined } = {},
): ManagedFieldsEntry[] {
  const { subresource } = options;
  const schema = options.schema ?? UNTYPED_SCHEMA;
  // A built-in kind's objects are Go values, where a struct field is never absent; a custom
  // resource's are plain maps, where every map is added with its first field.
  const changes = compare(schema, live ?? {}, result, schema.builtIn === true);
  const changed = ownable(union(changes.modified, changes.added), subresource);
  const entry = managedEntry(info, manager, 'Update', changed, subresource);
  const sameIdentity = (m: ManagedFieldsEntry): boolean =>
    m.manager === manager &&
    m.operation === 'Update' &&
    m.apiVersion === entry.apiVersion &&
    m.subresource === subresource;
  const entries = entriesOf(live);
  const mine = entries.find(sameIdentity);
  const managers = entries
    .filter((m) => m !== mine)
    .map((m) => {
      const paths = fromFieldsV1(m.fieldsV1);
      const kept = difference(difference(paths, changed), changes.removed);
      return sameSet(kept, paths) ? m : { ...m, fieldsV1: toFieldsV1(kept) };
    });
  const owned = union(difference(mine ? fromFieldsV1(mine.fieldsV1) : [], changes.removed), changed);
  if (owned.length > 0) managers.push({ ...entry, fieldsV1: toFieldsV1(owned) });
  return sortedManagers(managers.filter((m) => Object.keys(m.fieldsV1).length > 0));
}
