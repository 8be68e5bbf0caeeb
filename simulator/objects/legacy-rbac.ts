// authorization.openshift.io/v1 Role and RoleBinding as openshift-apiserver serves them: no storage
// of their own but a proxy to kube-apiserver's RBAC objects, read at openshift/openshift-apiserver
// 56aa2d96edd725e44ddd7ff13f23e53e6c509828 (pkg/authorization/apiserver/registry/role/proxy.go,
// rolebinding/proxy.go, registry/wrapper.go). One stored rbac.authorization.k8s.io/v1 object is
// visible under both groups. `Create` converts and creates; `Update`, which server-side apply
// calls, reads the object first and ignores forceAllowCreate, so an apply that would create one
// answers 404, dry runs too; `Delete` answers a bare Success Status. Every error of the RBAC calls
// is renamed to the legacy resource (wrapper.go syncStatusError). A merge patch goes through
// `Update` alike. PUT, JSON patches and strategic merge patches, which the library never sends to
// these, are not modelled here (405 and 415).
//
// managedFields: `Update` sends kube-apiserver the entries openshift-apiserver's field manager
// made, and each side drops the other's, as structured-merge-diff drops a manager whose version it
// cannot convert to (merge/update.go, IsMissingVersionError): openshift-apiserver's scheme has no
// rbac.authorization.k8s.io/v1, kube-apiserver's no authorization.openshift.io/v1. So an apply
// through the proxy records, on kube-apiserver, an Update of what it changed and nothing else
// (none at all when it changed nothing), and another manager's entries go; a write whose own
// entries came out empty, as a merge patch that only removes fields, keeps the stored ones
// (kube-apiserver's fieldmanager.go decodeLiveOrNew; its side is modelled in update.ts).
import { infoForObject, RESOURCES } from '../discovery/resources.ts';
import type { TypeTables } from '../discovery/openapi/tables.ts';
import { decodeObjectBody, parseJson, unsupportedMediaType } from '../http/request-body.ts';
import { permits } from '../http/access-review.ts';
import type { Identity, ResourceInfo, Result } from '../types.ts';
import { isObject, type JsonObject, meta, str } from './fields.ts';
import { deleteOptionsFromBody, deleteOptionsFromQuery, dryRunValues } from './options.ts';
import { admitRoleBinding } from './admission.ts';
import { appliedObject } from './ownership.ts';
import { ConversionError, fromRbac, type LegacyKind, toRbac } from './rbac-conversion.ts';
import type { ObjectRequest, Target } from './requests.ts';
import { badRequest, forbidden, invalid, qualifiedResource, StatusError } from './status.ts';
import type { DeleteOptions, ObjectStore, WriteOptions } from './store.ts';
import { decodePatched, decodeWritten, typeApplied } from './typing.ts';
import { convertible, entriesOf, updatedManagers } from './managers.ts';
import { checkTypeMeta } from './update.ts';

const LEGACY_GROUP = 'authorization.openshift.io';

/**
 * What the proxy calls: kube-apiserver's rbac.authorization.k8s.io/v1 Roles and RoleBindings.
 * Errors are Status errors in RBAC's words.
 */
export interface RbacCalls {
  get(kind: LegacyKind, namespace: string, name: string): JsonObject;
  list(kind: LegacyKind, namespace: string | undefined): JsonObject;
  create(kind: LegacyKind, namespace: string, object: JsonObject, options: WriteOptions): JsonObject;
  update(
    kind: LegacyKind,
    namespace: string,
    name: string,
    object: JsonObject,
    options: WriteOptions,
  ): JsonObject;
  delete(kind: LegacyKind, namespace: string, name: string, options: DeleteOptions): void;
}

/**
 * kube-apiserver's RBAC as the proxy reaches it: impersonating the caller
 * (pkg/client/impersonatingclient), so the caller needs the verbs on these resources too.
 */
export interface RbacBackend {
  as(identity: Identity): RbacCalls;
}

/**
 * The simulator's RBAC: its own store, behind the caller's rules. Found in the whole table of
 * resources, as in aggregated mode kube-apiserver serves RBAC and the simulator does not.
 */
export function storeBackend(store: ObjectStore): RbacBackend {
  const rbac = (kind: LegacyKind): ResourceInfo =>
    infoForObject(RESOURCES, { apiVersion: 'rbac.authorization.k8s.io/v1', kind });
  return {
    as: (identity) => {
      const admit = (verb: string, kind: LegacyKind, namespace: string, name?: string): ResourceInfo => {
        const info = rbac(kind);
        const attributes = { verb, group: info.group, resource: info.name, namespace, name };
        if (!permits(identity, attributes))
          throw forbidden(info, name, identity.user, verb, namespace || undefined);
        return info;
      };
      return {
        get: (kind, namespace, name) => store.get(admit('get', kind, namespace, name), namespace, name),
        list: (kind, namespace) => store.list(admit('list', kind, namespace ?? ''), namespace),
        create: (kind, namespace, object, options) => {
          const info = admit('create', kind, namespace);
          if (kind === 'RoleBinding')
            admitRoleBinding(store, RESOURCES, { identity, namespace, object, creating: true });
          return store.create(info, namespace, object, options);
        },
        update: (kind, namespace, name, object, options) => {
          const info = admit('update', kind, namespace, name);
          if (kind === 'RoleBinding')
            admitRoleBinding(store, RESOURCES, { identity, namespace, object, creating: false });
          return store.update(info, namespace, name, object, { ...options, hasStatus: false });
        },
        delete: (kind, namespace, name, options) => {
          store.delete(admit('delete', kind, namespace, name), namespace, name, options);
        },
      };
    },
  };
}

/** The legacy kind a resource is, when openshift-apiserver serves it through this proxy. */
export function proxiedKind(info: Pick<ResourceInfo, 'group' | 'name'>): LegacyKind | undefined {
  if (info.group !== LEGACY_GROUP) return undefined;
  if (info.name === 'roles') return 'Role';
  return info.name === 'rolebindings' ? 'RoleBinding' : undefined;
}

/** syncStatusError: the RBAC group and resource in a Status replaced by the legacy ones. */
function renamed(error: unknown, info: ResourceInfo): unknown {
  if (!(error instanceof StatusError) || error.status.details === undefined) return error;
  const details = error.status.details;
  const old = details.group ? `${details.kind ?? ''}.${details.group}` : (details.kind ?? '');
  const message = (error.status.message ?? '').replace(old, qualifiedResource(info));
  return new StatusError(error.code, error.status.reason ?? '', message, {
    ...details,
    group: info.group,
    kind: info.name,
  });
}

/** The backend's calls, each error renamed to `info`'s resource. */
function renaming(backend: RbacCalls, info: ResourceInfo): RbacCalls {
  const wrap =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return call(...args);
      } catch (error) {
        throw renamed(error, info);
      }
    };
  return {
    get: wrap(backend.get.bind(backend)),
    list: wrap(backend.list.bind(backend)),
    create: wrap(backend.create.bind(backend)),
    update: wrap(backend.update.bind(backend)),
    delete: wrap(backend.delete.bind(backend)),
  };
}

function converted<T>(convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    if (error instanceof ConversionError) throw new StatusError(500, '', error.message);
    throw error;
  }
}

/** The create handler's checks of a body: its type meta, and its namespace filled from the URL. */
function legacyBody(info: ResourceInfo, namespace: string, body: unknown): JsonObject {
  if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
  const object = structuredClone(body);
  checkTypeMeta(info, object);
  const metadata = meta(object);
  if (str(metadata.namespace) !== '' && str(metadata.namespace) !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  metadata.namespace = namespace;
  return object;
}

/** A request for a proxied Role or RoleBinding, answered as openshift-apiserver answers it. */
export function proxyRequest(
  backend: RbacBackend,
  tables: TypeTables,
  target: Target,
  request: ObjectRequest,
  identity: Identity,
): Result {
  const { info, namespace, name } = target;
  const kind = proxiedKind(info);
  if (kind === undefined || target.subresource) throw new Error(`${info.name} is not proxied`);
  const rbac = renaming(backend.as(identity), info);
  const { method, query } = request;
  const view = (object: JsonObject): JsonObject => converted(() => fromRbac(kind, object));
  if (method === 'GET' && name === undefined) {
    const list = rbac.list(kind, namespace || undefined);
    const items = Array.isArray(list.items) ? list.items.filter(isObject).map(view) : [];
    return { code: 200, body: { ...list, kind: `${kind}List`, apiVersion: `${LEGACY_GROUP}/v1`, items } };
  }
  if (name === undefined) {
    if (method !== 'POST') throw methodNotAllowed();
    const dryRun = dryRunValues(query, 'CreateOptions');
    const fieldValidation = query.get('fieldValidation');
    const decoded = decodeWritten(
      tables.forKind(info),
      info,
      decodeObjectBody(request.contentType, request.bytes),
      fieldValidation,
    );
    const body = legacyBody(info, namespace, decoded.body);
    const options = { fieldManager: query.get('fieldManager') ?? managerOf(request), dryRun };
    const created = rbac.create(
      kind,
      namespace,
      converted(() => toRbac(kind, body)),
      options,
    );
    return { code: 201, body: view(created), warnings: decoded.warnings };
  }
  if (method === 'GET') return { code: 200, body: view(rbac.get(kind, namespace, name)) };
  if (method === 'DELETE') {
    const text = request.bytes.toString('utf8');
    const options =
      text.trim() === '' ? deleteOptionsFromQuery(query) : deleteOptionsFromBody(parseJson(text));
    rbac.delete(kind, namespace, name, options);
    return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' } };
  }
  if (method === 'PATCH' && request.contentType === 'application/merge-patch+json') {
    const { object, warnings } = mergePatchThrough(rbac, tables, { ...target, name }, kind, request);
    return { code: 200, body: view(object), warnings };
  }
  if (method === 'PATCH')
    return { code: 200, body: view(applyThrough(rbac, tables, { ...target, name }, kind, request)) };
  throw methodNotAllowed();
}

function methodNotAllowed(): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

/** kube-apiserver names an unnamed writer after its user agent's program name. */
function managerOf(request: ObjectRequest): string {
  return (request.userAgent ?? 'unknown').split('/')[0] ?? 'unknown';
}

/**
 * The stored object's legacy view. Its managedFields are kube-apiserver's, which openshift-
 * apiserver's field manager decodes and then drops (`convertible`); before-first-apply comes only
 * when there were none at all.
 */
function legacyLive(rbac: RbacCalls, kind: LegacyKind, namespace: string, name: string): JsonObject {
  return converted(() => fromRbac(kind, rbac.get(kind, namespace, name)));
}

/**
 * A JSON merge patch through `Update` (handlers/patch.go jsonPatcher on the legacy view): the
 * patched view decoded, its managedFields those openshift-apiserver's field manager records for
 * the change, the result converted and written as an update by the same field manager.
 */
function mergePatchThrough(
  rbac: RbacCalls,
  tables: TypeTables,
  target: Target & { name: string },
  kind: LegacyKind,
  request: ObjectRequest,
): { object: JsonObject; warnings: string[] } {
  const { info, namespace, name } = target;
  const { query } = request;
  const dryRun = dryRunValues(query, 'PatchOptions');
  const fieldManager = query.get('fieldManager') ?? managerOf(request);
  const patch = parseJson(request.bytes.toString('utf8'));
  const live = legacyLive(rbac, kind, namespace, name);
  const patched = mergedJson(live, patch);
  // ObjectMeta's maps are omitempty: one the patch emptied is absent from the Go object.
  for (const key of ['labels', 'annotations']) {
    const map = meta(patched)[key];
    if (isObject(map) && Object.keys(map).length === 0) Reflect.deleteProperty(meta(patched), key);
  }
  const decoded = decodePatched(tables.forKind(info), info, patched, query.get('fieldValidation'));
  const schema = tables.forKind(info);
  // Encoded as nil when empty (managedfields/internal/managedfields.go encodeManagedFields), so
  // kube-apiserver keeps its own.
  // Not tracked when the object has no entries at all (managedfields/internal/skipnonapplied.go).
  const decodedEntries = entriesOf(live);
  const base = {
    ...live,
    metadata: { ...meta(live), managedFields: convertible(info, decodedEntries) as never },
  };
  // Its field manager compares the objects after decoding, where userNames and groupNames, when
  // set, have replaced the subjects (conversion.go): a ServiceAccount subject without a namespace
  // gains one there, so the subjects count as changed even when the patch left the view as it was.
  const effective = converted(() => fromRbac(kind, toRbac(kind, decoded.body)));
  const entries =
    decodedEntries.length === 0 ? [] : updatedManagers(info, base, effective, fieldManager, { schema });
  if (entries.length > 0) meta(decoded.body).managedFields = entries as never;
  else delete meta(decoded.body).managedFields;
  const object = rbac.update(
    kind,
    namespace,
    name,
    converted(() => toRbac(kind, decoded.body)),
    {
      fieldManager,
      dryRun,
    },
  );
  return { object, warnings: decoded.warnings };
}

/** RFC 7386: `patch` merged into a copy of `target`; a null removes its key. */
function mergedJson(target: JsonObject, patch: unknown): JsonObject {
  if (!isObject(patch)) throw badRequest('the body of the request was in an unknown format');
  const merged = structuredClone(target);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(merged, key);
    else if (isObject(value)) merged[key] = mergedJson(isObject(merged[key]) ? merged[key] : {}, value);
    else merged[key] = structuredClone(value);
  }
  return merged;
}

/**
 * Server-side apply through `Update`: the stored object read first (a 404 when there is none), the
 * patch applied to its legacy view, the result converted and written as an update by the same
 * field manager with the entries openshift-apiserver's field manager made. The view keeps none of
 * kube-apiserver's entries: an apply through the proxy never conflicts.
 */
function applyThrough(
  rbac: RbacCalls,
  tables: TypeTables,
  target: Target & { name: string },
  kind: LegacyKind,
  request: ObjectRequest,
): JsonObject {
  const { info, namespace, name } = target;
  const { query } = request;
  if (request.contentType !== 'application/apply-patch+yaml') {
    throw unsupportedMediaType(['application/apply-patch+yaml']);
  }
  const dryRun = dryRunValues(query, 'PatchOptions');
  const fieldManager = query.get('fieldManager') ?? '';
  if (fieldManager === '') {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      { type: 'Required', field: 'fieldManager', detail: 'is required for apply patch' },
    ]);
  }
  const live = legacyLive(rbac, kind, namespace, name);
  const config = parseJson(request.bytes.toString('utf8'));
  typeApplied(tables.forKind(info), info, config);
  if (!isObject(config)) throw badRequest('the body of the request was in an unknown format');
  checkTypeMeta(info, config);
  const force = query.get('force') === 'true';
  const schema = tables.forKind(info);
  // Run inside the proxy's Update (objInfo.UpdatedObject), so its refusal is renamed too: a
  // conflict's Status names no resource, and the legacy one ends up before its message.
  let result: JsonObject;
  try {
    result = appliedObject(info, namespace, name, live, config, { fieldManager, force, schema });
  } catch (error) {
    throw renamed(error, info);
  }
  return rbac.update(
    kind,
    namespace,
    name,
    converted(() => toRbac(kind, result)),
    { fieldManager, dryRun },
  );
}
