// Field ownership (metadata.managedFields) as the API server's field manager keeps it: the object
// a server-side apply makes, with each manager's fields and the conflicts that stop an apply, and
// the fields a merge patch takes over (k8s.io/apiserver pkg/endpoints/handlers/fieldmanager).
import { groupVersionOf } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import { foldStringData } from './body.ts';
import { meta } from './fields.ts';
import {
  deleteAt,
  fromFieldsV1,
  leafPaths,
  type Json,
  type JsonObject,
  type ManagedFieldsEntry,
  overlaps,
  type Path,
  pathKey,
  pathText,
  sameValue,
  setAt,
  sortedManagers,
  toFieldsV1,
  valueAt,
} from './fields.ts';
import { StatusError } from './status.ts';

interface Conflict {
  manager: string;
  path: Path;
}

function managerLabel(entry: ManagedFieldsEntry): string {
  const name = JSON.stringify(entry.manager);
  return entry.operation === 'Update' ? `${name} using ${entry.apiVersion}` : name;
}

/** apiserver fieldmanager internal/conflict.go: one line for one conflict, grouped by manager otherwise. */
function conflictMessage(conflicts: { label: string; path: Path }[]): string {
  const [first] = conflicts;
  if (conflicts.length === 1 && first) {
    return `Apply failed with 1 conflict: conflict with ${first.label}: ${pathText(first.path)}`;
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) byManager.set(c.label, [...(byManager.get(c.label) ?? []), c.path]);
  const lines: string[] = [];
  for (const label of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${label}:`);
    for (const path of byManager.get(label) ?? []) lines.push(`- ${pathText(path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

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
 * What applying `config` as `manager` makes of `live` (or of nothing): fields the manager dropped
 * are removed unless another manager owns them, a field another manager owns with a different
 * value is a 409 conflict unless `force` takes it over, and managedFields records the result.
 */
export function appliedObject(
  info: ResourceInfo,
  namespace: string,
  name: string,
  live: JsonObject | undefined,
  config: JsonObject,
  options: { fieldManager: string; force: boolean },
): JsonObject {
  const managers =
    (live ? (meta(live).managedFields as unknown as ManagedFieldsEntry[] | undefined) : undefined) ?? [];
  const mine = managers.find((m) => m.manager === options.fieldManager && m.operation === 'Apply');
  // Each other manager's owned paths, decoded once: removal, conflicts and ownership all read them.
  const others = new Map(managers.filter((m) => m !== mine).map((m) => [m, fromFieldsV1(m.fieldsV1)]));

  const applied = leafPaths(config);
  const previous = mine ? fromFieldsV1(mine.fieldsV1) : [];
  const appliedKeys = new Set(applied.map(pathKey));
  const result: JsonObject = live
    ? structuredClone(live)
    : { apiVersion: config.apiVersion ?? null, kind: config.kind ?? null, metadata: {} };
  if (live) {
    for (const path of previous) {
      if (appliedKeys.has(pathKey(path))) continue;
      const ownedElsewhere = [...others.values()].some((paths) => paths.some((p) => overlaps(p, path)));
      if (!ownedElsewhere) deleteAt(result, path);
    }
  } else {
    const metadata = meta(result);
    metadata.name = name;
    if (info.namespaced) metadata.namespace = namespace;
  }
  for (const path of applied) setAt(result, path, valueAt(config, path) ?? null);

  const conflicts: (Conflict & { label: string; entry: ManagedFieldsEntry })[] = [];
  for (const [entry, paths] of others) {
    for (const owned of paths) {
      if (!applied.some((p) => overlaps(p, owned))) continue;
      if (!sameValue(valueAt(live, owned), valueAt(result, owned))) {
        conflicts.push({ manager: entry.manager, path: owned, label: managerLabel(entry), entry });
      }
    }
  }
  if (conflicts.length > 0 && !options.force) {
    const error = new StatusError(409, 'Conflict', conflictMessage(conflicts), {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${c.label}`,
        field: pathText(c.path),
      })),
    });
    throw error;
  }

  foldStringData(info, result);
  const newManagers: ManagedFieldsEntry[] = [];
  for (const [entry, paths] of others) {
    const lost = new Set(conflicts.filter((c) => c.entry === entry).map((c) => pathKey(c.path)));
    const kept = paths.filter((p) => !lost.has(pathKey(p)));
    if (kept.length > 0) newManagers.push(lost.size > 0 ? { ...entry, fieldsV1: toFieldsV1(kept) } : entry);
  }
  const ownership = managedEntry(info, options.fieldManager, 'Apply', applied);
  const unchangedOwnership = mine !== undefined && sameValue(mine.fieldsV1, ownership.fieldsV1);
  // An entry that owns no field is not kept, and no entries at all means no managedFields: a
  // ServiceAccount applied with its name only has none on kube-apiserver 1.34 (the real tier).
  if (Object.keys(ownership.fieldsV1).length > 0) {
    newManagers.splice(
      mine ? managers.indexOf(mine) : newManagers.length,
      0,
      unchangedOwnership ? mine : ownership,
    );
  }
  if (newManagers.length > 0) meta(result).managedFields = sortedManagers(newManagers) as unknown as Json;
  else delete meta(result).managedFields;
  return result;
}

/**
 * After a merge patch touched `touched` (leaf paths), `manager` owns them as an Update (of the main
 * resource, or of `subresource`) and every other manager loses them; managers left owning nothing
 * are dropped. One entry per manager, operation, apiVersion and subresource, as the server keys them
 * (managedfields/internal/buildmanagerinfo.go). Returns the new managedFields.
 */
export function patchedManagers(
  info: ResourceInfo,
  result: JsonObject,
  manager: string,
  touched: readonly Path[],
  subresource?: string,
): Json {
  const entry = managedEntry(info, manager, 'Update', touched, subresource);
  const sameIdentity = (m: ManagedFieldsEntry): boolean =>
    m.manager === manager &&
    m.operation === 'Update' &&
    m.apiVersion === entry.apiVersion &&
    m.subresource === subresource;
  const live = (meta(result).managedFields as unknown as ManagedFieldsEntry[] | undefined) ?? [];
  const mine = live.find(sameIdentity);
  const managers = live
    .filter((m) => m !== mine)
    .map((m) => ({
      ...m,
      fieldsV1: toFieldsV1(fromFieldsV1(m.fieldsV1).filter((p) => !touched.some((t) => overlaps(t, p)))),
    }));
  const owned = new Map(
    [...(mine ? fromFieldsV1(mine.fieldsV1) : []), ...touched].map((p) => [pathKey(p), p]),
  );
  if (owned.size > 0) managers.push({ ...entry, fieldsV1: toFieldsV1([...owned.values()]) });
  return sortedManagers(managers.filter((m) => Object.keys(m.fieldsV1).length > 0)) as unknown as Json;
}
