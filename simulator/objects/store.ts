// The simulator's object storage and the write semantics of the API server: create, server-side
// apply (its field ownership in ownership.ts), JSON merge patch, update, delete with preconditions
// (docs/wire-reference.md §3, §4, §6).
import { randomBytes, randomUUID } from 'node:crypto';
import { setOwn } from '../../src/util/json.ts';
import { groupVersionOf } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import { checkAppliedIdentity } from './applied-meta.ts';
import { checkBody, foldStringData, specChanged } from './body.ts';
import { checkImmutable } from './immutable.ts';
import { meta, str } from './fields.ts';
import { isObject, type Json, type JsonObject, sameValue } from './fields.ts';
import { updatedManagers } from './managers.ts';
import { appliedObject } from './ownership.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  namespaceNotFound,
  notFound,
  successStatus,
  type Status,
} from './status.ts';
import { canonicaliseQuantities } from './quantity.ts';
import type { Schema } from './typed-fields.ts';
import { allocateRouteHost, keepRouteHost } from './route-host.ts';
import { isNoOpUpdate, updatedObject } from './update.ts';

export interface WriteOptions {
  fieldManager: string;
  dryRun: boolean;
}

export interface ApplyOptions extends WriteOptions {
  force: boolean;
}

export interface DeleteOptions {
  uid?: string;
  resourceVersion?: string;
  propagationPolicy?: string;
  dryRun: boolean;
}

/** The schema a resource's objects are merged and owned by, when its kind has one. */
export type SchemaOf = (info: ResourceInfo) => Schema | undefined;

export class ObjectStore {
  readonly #objects = new Map<string, JsonObject>();
  readonly #schemaOf: SchemaOf;
  #resourceVersion = 1000;

  constructor(schemaOf: SchemaOf = () => undefined) {
    this.#schemaOf = schemaOf;
  }

  #key(info: ResourceInfo, namespace: string, name: string): string {
    return `${info.group}/${info.name}/${info.namespaced ? namespace : ''}/${name}`;
  }

  #nextVersion(): string {
    this.#resourceVersion += 1;
    return String(this.#resourceVersion);
  }

  /**
   * A copy of an object as its kind's Go type holds it: a built-in kind's Quantities in canonical
   * form (quantity.ts); a custom resource's object as it is.
   */
  #decoded(info: ResourceInfo, object: JsonObject): JsonObject {
    const schema = this.#schemaOf(info);
    const copy = structuredClone(object);
    if (schema) canonicaliseQuantities(schema, copy);
    return copy;
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

  /** POST: a plain create, recorded as an Update by `fieldManager`. */
  create(info: ResourceInfo, namespace: string, body: unknown, options: WriteOptions): JsonObject {
    if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
    this.#requireNamespace(info, namespace);
    const object = this.#decoded(info, body);
    checkBody(info, namespace, object, undefined);
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
    const managers = updatedManagers(info, undefined, object, options.fieldManager, {
      schema: this.#schemaOf(info),
    });
    foldStringData(info, object);
    this.#stamp(info, object, options.dryRun);
    allocateRouteHost(info, namespace, object);
    metadata.managedFields = managers as unknown as Json;
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
    checkBody(info, namespace, config, name);
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
    const schema = this.#schemaOf(info);
    const result = appliedObject(info, namespace, name, live, config, { ...options, schema });
    // The merged object (a new one) passes through the kind's Go type after structured-merge-diff.
    if (schema) canonicaliseQuantities(schema, result);
    checkAppliedIdentity(info, name, config, live);
    const hadStringData = isObject(config.stringData);
    if (!live) {
      this.#stamp(info, result, options.dryRun);
      allocateRouteHost(info, namespace, result);
      if (!options.dryRun) this.#objects.set(key, structuredClone(result));
      return { object: result, created: true };
    }
    keepRouteHost(info, live, result);
    checkImmutable(info, name, live, result);
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
    options: WriteOptions & { subresource?: string; decode?: (patched: JsonObject) => JsonObject },
  ): JsonObject {
    if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
    const key = this.#key(info, namespace, name);
    const live = this.#objects.get(key);
    if (!live) throw notFound(info, name);
    const patch = options.subresource === 'status' ? { status: body.status ?? null } : structuredClone(body);
    if (options.subresource !== 'status') delete patch.status;
    const merged = structuredClone(live);
    const merge = (target: JsonObject, source: JsonObject): void => {
      for (const [k, v] of Object.entries(source)) {
        if (v === null) Reflect.deleteProperty(target, k);
        else if (isObject(v) && Object.hasOwn(target, k) && isObject(target[k])) merge(target[k], v);
        else setOwn(target, k, structuredClone(v));
      }
    };
    merge(merged, patch);
    // The patched object is decoded into the kind's type before anything else (handlers/patch.go).
    const result = this.#decoded(info, options.decode ? options.decode(merged) : merged);
    if (options.subresource !== 'status') keepRouteHost(info, live, result);
    foldStringData(info, result);
    // What the patch changed, as decoded: fields dropped while decoding are nobody's.
    meta(result).managedFields = updatedManagers(info, live, result, options.fieldManager, {
      schema: this.#schemaOf(info),
      subresource: options.subresource,
    }) as unknown as Json;
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
    const object = isObject(body) ? this.#decoded(info, body) : body;
    if (isObject(object)) foldStringData(info, object);
    const result = updatedObject(
      info,
      namespace,
      name,
      live,
      object,
      options.fieldManager,
      options.hasStatus,
      this.#schemaOf(info),
    );
    if (live) keepRouteHost(info, live, result);
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
      // k8s.io/apiserver pkg/registry/rest/delete.go BeforeDelete: checked before storage, and
      // named by Kind (errors.NewConflict with the kind as the resource).
      throw conflict(
        { ...info, name: info.kind },
        name,
        `the UID in the precondition (${options.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      );
    }
    const version = str(meta(live).resourceVersion);
    if (options.resourceVersion !== undefined && options.resourceVersion !== version) {
      throw conflict(
        { ...info, name: info.kind },
        name,
        `the ResourceVersion in the precondition (${options.resourceVersion}) does not match the ResourceVersion in record (${version}). The object might have been modified`,
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
