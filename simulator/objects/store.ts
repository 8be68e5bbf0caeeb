// The simulator's object storage and the write semantics of the API server: create, server-side
// apply with field ownership, JSON merge patch, delete with preconditions (docs/wire-reference.md §3, §4, §6).
import { randomBytes, randomUUID } from 'node:crypto';
import { groupVersionOf, type ResourceInfo } from '../discovery/resources.ts';
import { nameErrors } from './names.ts';
import {
  deleteAt,
  fromFieldsV1,
  isObject,
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
  toFieldsV1,
  valueAt,
} from './fields.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  namespaceNotFound,
  notFound,
  StatusError,
  successStatus,
  type Status,
} from './status.ts';
import { checkTypeMeta, isNoOpUpdate, updatedObject } from './update.ts';

export interface WriteOptions {
  fieldManager: string;
  dryRun: boolean;
}

export interface ApplyOptions extends WriteOptions {
  force: boolean;
}

export interface DeleteOptions {
  uid?: string;
  propagationPolicy?: string;
  dryRun: boolean;
}

interface Conflict {
  manager: string;
  path: Path;
}

function meta(object: JsonObject): JsonObject {
  if (!isObject(object.metadata)) object.metadata = {};
  return object.metadata;
}

function str(value: Json | undefined): string {
  return typeof value === 'string' ? value : '';
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

function specChanged(before: JsonObject, after: JsonObject): boolean {
  const strip = (o: JsonObject): JsonObject => {
    const { metadata, status, ...rest } = o;
    return rest;
  };
  return !sameValue(strip(before), strip(after));
}

/** Secrets keep `stringData` write-only: merged into base64 `data` and never stored. */
function foldStringData(info: ResourceInfo, object: JsonObject): void {
  if (info.group !== '' || info.name !== 'secrets') return;
  const stringData = object.stringData;
  if (isObject(stringData)) {
    const data = isObject(object.data) ? object.data : {};
    for (const [key, value] of Object.entries(stringData)) {
      data[key] = Buffer.from(str(value), 'utf8').toString('base64');
    }
    object.data = data;
  }
  delete object.stringData;
  if (typeof object.type !== 'string' || object.type === '') object.type = 'Opaque';
}

export class ObjectStore {
  readonly #objects = new Map<string, JsonObject>();
  #resourceVersion = 1000;

  #key(info: ResourceInfo, namespace: string, name: string): string {
    return `${info.group}/${info.name}/${info.namespaced ? namespace : ''}/${name}`;
  }

  #nextVersion(): string {
    this.#resourceVersion += 1;
    return String(this.#resourceVersion);
  }

  namespaceExists(namespace: string): boolean {
    return this.#objects.has(`/namespaces//${namespace}`);
  }

  #requireNamespace(info: ResourceInfo, namespace: string): void {
    if (info.namespaced && !this.namespaceExists(namespace)) throw namespaceNotFound(namespace);
  }

  /** Reads one object; a copy, so callers can never change what is stored. */
  get(info: ResourceInfo, namespace: string, name: string): JsonObject {
    const stored = this.#objects.get(this.#key(info, namespace, name));
    if (!stored) throw notFound(info, name);
    return structuredClone(stored);
  }

  peek(info: ResourceInfo, namespace: string, name: string): JsonObject | undefined {
    const stored = this.#objects.get(this.#key(info, namespace, name));
    return stored ? structuredClone(stored) : undefined;
  }

  list(info: ResourceInfo, namespace: string | undefined): JsonObject {
    const prefix = `${info.group}/${info.name}/${info.namespaced && namespace ? namespace : ''}`;
    const items = [...this.#objects.entries()]
      .filter(([key]) =>
        info.namespaced && !namespace
          ? key.startsWith(`${info.group}/${info.name}/`)
          : key.startsWith(`${prefix}/`),
      )
      .map(([, object]) => structuredClone(object));
    return {
      kind: `${info.kind}List`,
      apiVersion: groupVersionOf(info),
      metadata: { resourceVersion: String(this.#resourceVersion) },
      items,
    };
  }

  count(): number {
    return this.#objects.size;
  }

  #checkBody(info: ResourceInfo, namespace: string, body: JsonObject, urlName: string | undefined): void {
    checkTypeMeta(info, body);
    const metadata = meta(body);
    if (metadata.managedFields !== undefined && metadata.managedFields !== null) {
      throw badRequest('metadata.managedFields must be nil');
    }
    if (info.namespaced) {
      const bodyNamespace = str(metadata.namespace);
      if (bodyNamespace !== '' && bodyNamespace !== namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      metadata.namespace = namespace;
    } else {
      delete metadata.namespace;
    }
    if (urlName !== undefined) {
      const bodyName = str(metadata.name);
      if (bodyName !== '' && bodyName !== urlName) {
        throw badRequest(
          `the name of the object (${bodyName}) does not match the name on the URL (${urlName})`,
        );
      }
      metadata.name = urlName;
    }
    const name = str(metadata.name);
    if (name !== '') {
      const errors = nameErrors(info.nameRule, name, info.namespaced ? namespace : '');
      if (errors.length > 0) throw invalid({ group: info.group, kind: info.kind }, name, errors);
    }
  }

  #stamp(info: ResourceInfo, object: JsonObject, dryRun: boolean): void {
    const metadata = meta(object);
    metadata.uid = randomUUID();
    metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    metadata.generation = 1;
    if (!dryRun) metadata.resourceVersion = this.#nextVersion();
    // Stands in for virt-controller, which gives every VirtualMachine a status soon after creation.
    if (info.kind === 'VirtualMachine' && !isObject(object.status)) {
      object.status = { printableStatus: 'Stopped', ready: false };
    }
  }

  #entry(
    info: ResourceInfo,
    manager: string,
    operation: 'Apply' | 'Update',
    paths: readonly Path[],
  ): ManagedFieldsEntry {
    return {
      manager,
      operation,
      apiVersion: groupVersionOf(info),
      time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(paths),
    };
  }

  /** POST: a plain create, recorded as an Update by `fieldManager`. */
  create(info: ResourceInfo, namespace: string, body: unknown, options: WriteOptions): JsonObject {
    if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
    this.#requireNamespace(info, namespace);
    const object = structuredClone(body);
    this.#checkBody(info, namespace, object, undefined);
    const metadata = meta(object);
    let name = str(metadata.name);
    const generateName = str(metadata.generateName);
    if (name === '' && generateName !== '') {
      name = generateName + randomBytes(4).toString('hex').slice(0, 5);
      metadata.name = name;
    }
    if (name === '') {
      throw invalid({ group: info.group, kind: info.kind }, '', [
        { type: 'Required', field: 'metadata.name', detail: 'name or generateName is required' },
      ]);
    }
    if (this.#objects.has(this.#key(info, namespace, name))) throw alreadyExists(info, name);
    const paths = leafPaths(object);
    foldStringData(info, object);
    this.#stamp(info, object, options.dryRun);
    metadata.managedFields = [this.#entry(info, options.fieldManager, 'Update', paths)] as unknown as Json;
    if (!options.dryRun) this.#objects.set(this.#key(info, namespace, name), structuredClone(object));
    return object;
  }

  /** PATCH with `application/apply-patch+yaml`: server-side apply. */
  apply(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    options: ApplyOptions,
  ): { object: JsonObject; created: boolean } {
    if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
    this.#requireNamespace(info, namespace);
    const config = structuredClone(body);
    this.#checkBody(info, namespace, config, name);
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
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

    const hadStringData = isObject(config.stringData);
    foldStringData(info, result);
    const newManagers: ManagedFieldsEntry[] = [];
    for (const [entry, paths] of others) {
      const lost = new Set(conflicts.filter((c) => c.entry === entry).map((c) => pathKey(c.path)));
      const kept = paths.filter((p) => !lost.has(pathKey(p)));
      if (kept.length > 0) newManagers.push(lost.size > 0 ? { ...entry, fieldsV1: toFieldsV1(kept) } : entry);
    }
    const ownership = this.#entry(info, options.fieldManager, 'Apply', applied);
    const unchangedOwnership = mine !== undefined && sameValue(mine.fieldsV1, ownership.fieldsV1);
    newManagers.splice(
      mine ? managers.indexOf(mine) : newManagers.length,
      0,
      unchangedOwnership ? mine : ownership,
    );
    meta(result).managedFields = newManagers as unknown as Json;

    if (!live) {
      this.#stamp(info, result, options.dryRun);
      if (!options.dryRun) this.#objects.set(key, structuredClone(result));
      return { object: result, created: true };
    }
    const changed = hadStringData || !sameValue(result, live);
    if (changed && !options.dryRun) {
      const metadata = meta(result);
      if (specChanged(live, result)) metadata.generation = Number(metadata.generation ?? 1) + 1;
      metadata.resourceVersion = this.#nextVersion();
      this.#objects.set(key, structuredClone(result));
    }
    return { object: result, created: false };
  }

  /** PATCH with `application/merge-patch+json` (RFC 7386), recorded as an Update by `fieldManager`. */
  mergePatch(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    options: WriteOptions & { subresource?: string },
  ): JsonObject {
    if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
    if (!live) throw notFound(info, name);
    const patch = options.subresource === 'status' ? { status: body.status ?? null } : structuredClone(body);
    if (options.subresource !== 'status') delete patch.status;
    const result = structuredClone(live);
    const merge = (target: JsonObject, source: JsonObject): void => {
      for (const [k, v] of Object.entries(source)) {
        if (v === null) Reflect.deleteProperty(target, k);
        else if (isObject(v) && isObject(target[k])) merge(target[k], v);
        else target[k] = structuredClone(v);
      }
    };
    merge(result, patch);
    foldStringData(info, result);
    const touched = options.subresource === 'status' ? [] : leafPaths(patch);
    const managers = ((meta(result).managedFields as unknown as ManagedFieldsEntry[] | undefined) ?? []).map(
      (m) => ({
        ...m,
        fieldsV1: toFieldsV1(fromFieldsV1(m.fieldsV1).filter((p) => !touched.some((t) => overlaps(t, p)))),
      }),
    );
    if (touched.length > 0) managers.push(this.#entry(info, options.fieldManager, 'Update', touched));
    meta(result).managedFields = managers.filter((m) => Object.keys(m.fieldsV1).length > 0);
    if (!sameValue(result, live) && !options.dryRun) {
      if (specChanged(live, result)) meta(result).generation = Number(meta(result).generation ?? 1) + 1;
      meta(result).resourceVersion = this.#nextVersion();
      this.#objects.set(key, structuredClone(result));
    }
    return result;
  }

  /**
   * PUT: the whole object replaced under kube-apiserver's update rules (update.ts); `hasStatus` when
   * the resource has a status subresource, which alone may change status.
   */
  update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    options: WriteOptions & { hasStatus: boolean },
  ): JsonObject {
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
    const object = isObject(body) ? structuredClone(body) : body;
    if (isObject(object)) foldStringData(info, object);
    const result = updatedObject(
      info,
      namespace,
      name,
      live,
      object,
      options.fieldManager,
      options.hasStatus,
    );
    if (!live || isNoOpUpdate(live, result)) return structuredClone(live ?? result);
    if (!options.dryRun) {
      meta(result).resourceVersion = this.#nextVersion();
      this.#objects.set(key, structuredClone(result));
    }
    return result;
  }

  /** DELETE: a Status or the object by kind, 404 when absent, 409 on a UID precondition mismatch. */
  delete(info: ResourceInfo, namespace: string, name: string, options: DeleteOptions): JsonObject | Status {
    const policy = options.propagationPolicy;
    if (policy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(policy)) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        {
          type: 'Unsupported',
          field: 'propagationPolicy',
          value: JSON.stringify(policy),
          detail: 'supported values: "Foreground", "Background", "Orphan", "nil"',
        },
      ]);
    }
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
    if (!live) throw notFound(info, name);
    const uid = str(meta(live).uid);
    if (options.uid !== undefined && options.uid !== uid) {
      const registryKey = `/registry/${info.group === '' ? '' : `${info.group}/`}${info.name}/${info.namespaced ? `${namespace}/` : ''}${name}`;
      throw conflict(
        info,
        name,
        `StorageError: invalid object, Code: 4, Key: ${registryKey}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${options.uid}, UID in object meta: ${uid}`,
      );
    }
    const finalizers = Array.isArray(meta(live).finalizers) ? (meta(live).finalizers as Json[]) : [];
    if (finalizers.length > 0 || policy === 'Foreground') {
      const updated = structuredClone(live);
      const metadata = meta(updated);
      metadata.deletionTimestamp ??= new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      metadata.deletionGracePeriodSeconds = 0;
      if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) {
        metadata.finalizers = [...finalizers, 'foregroundDeletion'];
      }
      if (!options.dryRun) {
        metadata.resourceVersion = this.#nextVersion();
        // No dependents exist here, so the garbage collector would drop foregroundDeletion at once.
        if (finalizers.length === 0) this.#objects.delete(key);
        else this.#objects.set(key, structuredClone(updated));
      }
      return updated;
    }
    if (!options.dryRun) {
      this.#objects.delete(key);
      // The namespace controller empties a deleted namespace; here that happens at once.
      if (info.group === '' && info.name === 'namespaces') this.#dropNamespaceContents(name);
    }
    return info.deleteReturnsObject ? structuredClone(live) : successStatus(info, name, uid);
  }

  #dropNamespaceContents(namespace: string): void {
    for (const key of [...this.#objects.keys()]) {
      if (key.split('/')[2] === namespace) this.#objects.delete(key);
    }
  }

  /** Control API: stores an object as if created by `manager`, for seeding. */
  seed(info: ResourceInfo, namespace: string, object: JsonObject, manager = 'simulator-seed'): JsonObject {
    const name = str(meta(object).name);
    const existing = this.#objects.get(this.#key(info, namespace, name));
    if (existing) this.#objects.delete(this.#key(info, namespace, name));
    return this.create(info, namespace, object, { fieldManager: manager, dryRun: false });
  }

  /** Control API: replaces a stored object's status, as a controller would. */
  setStatus(info: ResourceInfo, namespace: string, name: string, status: Json): void {
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
    if (!live) throw notFound(info, name);
    live.status = structuredClone(status);
    meta(live).resourceVersion = this.#nextVersion();
  }
}
