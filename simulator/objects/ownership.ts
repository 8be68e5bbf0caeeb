// Server-side apply as the API server's field manager runs it (k8s.io/apiserver
// pkg/endpoints/handlers/fieldmanager, structured-merge-diff merge/update.go Updater.Apply): the
// object an apply makes, with each manager's fields and the conflicts that stop an apply. What an
// update records is managers.ts.
import type { ResourceInfo } from '../types.ts';
import { foldStringData } from './body.ts';
import {
  isObject,
  type Json,
  type JsonObject,
  type ManagedFieldsEntry,
  meta,
  SERVER_METADATA,
  sameValue,
  sortedManagers,
} from './fields.ts';
import {
  difference,
  fieldElement,
  fromFieldsV1,
  intersection,
  type Path,
  pathText,
  sameSet,
  toFieldsV1,
  union,
} from './field-paths.ts';
import { compare, merge } from './typed-diff.ts';
import { removeItems, type Schema, toFieldSet, UNTYPED_SCHEMA, withNamedFields } from './typed-fields.ts';
import { convertible, entriesOf, managedEntry, ownable, updatedManagers } from './managers.ts';
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

/** A copy without nulls: the simulator stores, and owns, no null a configuration carries. */
function withoutNulls(value: Json): Json {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(withoutNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** The configuration without status and the metadata the server sets: what an apply owns. */
function appliedConfiguration(config: JsonObject): JsonObject {
  const { status, ...rest } = config;
  if (isObject(rest.metadata)) {
    rest.metadata = Object.fromEntries(
      Object.entries(rest.metadata).filter(([k]) => !SERVER_METADATA.has(k)),
    );
  }
  return rest;
}

/** What kept the named fields of an object through an apply: its type and identity fields. */
const IDENTITY: Path[] = [[fieldElement('apiVersion')], [fieldElement('kind')], [fieldElement('metadata')]];

/**
 * What applying `config` as `manager` makes of `live` (or of nothing), as structured-merge-diff's
 * merge/update.go Updater.Apply does: the configuration merged over the live object by its schema,
 * the fields the manager applied last time and no longer does removed unless another manager
 * owns them (prune), a field another manager owns that the apply changes or adds a 409 conflict
 * unless `force` takes it over, and managedFields recording the result.
 */
export function appliedObject(
  info: ResourceInfo,
  namespace: string,
  name: string,
  live: JsonObject | undefined,
  config: JsonObject,
  options: { fieldManager: string; force: boolean; schema?: Schema | undefined },
): JsonObject {
  const schema = options.schema ?? UNTYPED_SCHEMA;
  // An object without managedFields is first given to "before-first-apply", an Update of every
  // field it has (k8s.io/apimachinery pkg/util/managedfields/internal/skipnonapplied.go Apply).
  // Entries in a version this server cannot convert to are then dropped (convertible).
  const managers =
    live && entriesOf(live).length === 0
      ? updatedManagers(info, undefined, live, 'before-first-apply', { schema })
      : convertible(info, entriesOf(live));
  const mine = managers.find((m) => m.manager === options.fieldManager && m.operation === 'Apply');
  // Each other manager's owned paths, decoded once: pruning, conflicts and ownership all read them.
  const others = new Map(managers.filter((m) => m !== mine).map((m) => [m, fromFieldsV1(m.fieldsV1)]));
  const configuration = appliedConfiguration(config);
  // A null is owned, as on a cluster, but not stored: a cluster's decoding makes it the Go type's
  // zero value or default, which the simulator does not model.
  const owned = ownable(toFieldSet(schema, configuration));
  const applied = withoutNulls(configuration) as JsonObject;
  const identity = { name, ...(info.namespaced ? { namespace } : {}) };
  const base = live ?? {
    apiVersion: config.apiVersion ?? null,
    kind: config.kind ?? null,
    metadata: identity,
  };
  let result = merge(schema, schema.type, base, applied) as JsonObject;
  if (mine) {
    const last = withNamedFields(schema, fromFieldsV1(mine.fieldsV1));
    const kept = withNamedFields(schema, union(owned, IDENTITY, ...others.values()));
    result = removeItems(schema, result, difference(last, kept)) as JsonObject;
  }
  // What the apply changed matters to the other managers only: an apply alone needs no diff.
  const changes = others.size > 0 ? compare(schema, live, result) : { added: [], removed: [], modified: [] };
  const touched = union(changes.modified, changes.added);
  const conflicts: (Conflict & { label: string; entry: ManagedFieldsEntry })[] = [];
  for (const [entry, paths] of others) {
    for (const path of intersection(paths, touched))
      conflicts.push({ manager: entry.manager, path, label: managerLabel(entry), entry });
  }
  if (conflicts.length > 0 && !options.force) {
    throw new StatusError(409, 'Conflict', conflictMessage(conflicts), {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${c.label}`,
        field: pathText(c.path),
      })),
    });
  }

  foldStringData(info, result);
  const newManagers: ManagedFieldsEntry[] = [];
  for (const [entry, paths] of others) {
    const lost = conflicts.filter((c) => c.entry === entry).map((c) => c.path);
    const kept = difference(difference(paths, lost), changes.removed);
    if (kept.length > 0)
      newManagers.push(sameSet(kept, paths) ? entry : { ...entry, fieldsV1: toFieldsV1(kept) });
  }
  const ownership = managedEntry(info, options.fieldManager, 'Apply', owned);
  // An apply that changes nothing of the object leaves its manager's time as it was, none for a new
  // one (k8s.io/apimachinery pkg/util/managedfields/internal/managedfieldsupdater.go Apply).
  const bare = (o: JsonObject): JsonObject => ({ ...o, metadata: { ...meta(o), managedFields: null } });
  if (live && sameValue(bare(live), bare(result))) {
    if (mine?.time === undefined) delete ownership.time;
    else ownership.time = mine.time;
  }
  const unchangedOwnership = mine !== undefined && sameValue(mine.fieldsV1, ownership.fieldsV1);
  // An entry that owns no field is not kept, and no entries at all means no managedFields: a
  // ServiceAccount applied with its name only has none on kube-apiserver 1.34 (the real tier).
  if (owned.length > 0) {
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
