// PUT (update): the whole object replaced, under kube-apiserver's rules, read at kubernetes/apiserver
// v0.34.1 (20f57a0bb01cd42f50c93489604e05c6f80693d4): pkg/endpoints/handlers/update.go (the name
// and namespace of the body against the URL), pkg/registry/rest/update.go BeforeUpdate (generation,
// uid and creationTimestamp kept from the stored object) and pkg/registry/generic/registry/store.go
// Update (no create on update; resourceVersion as an optimistic lock, required for custom resources).
import { groupVersionOf } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import {
  isObject,
  type Json,
  type JsonObject,
  type ManagedFieldsEntry,
  meta,
  sameValue,
  str,
} from './fields.ts';
import { convertible, entriesOf, updatedManagers } from './managers.ts';
import type { Schema } from './typed-fields.ts';
import { badRequest, conflict, invalid, notFound } from './status.ts';

export const OPTIMISTIC_LOCK =
  'the object has been modified; please apply your changes to the latest version and try again';

/** Custom resources list their verbs in apiextensions-apiserver's fixed order, which starts with delete. */
function isCustomResource(info: ResourceInfo): boolean {
  return info.verbs[0] === 'delete';
}

/** The body's apiVersion and kind must be the URL's resource's, for a create, an apply or an update. */
export function checkTypeMeta(info: ResourceInfo, body: JsonObject): void {
  const expected = groupVersionOf(info);
  if (str(body.apiVersion) !== expected) {
    throw badRequest(
      `the API version in the data (${str(body.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (str(body.kind) !== info.kind) {
    throw badRequest(
      `the kind in the data (${str(body.kind)}) does not match the expected kind (${info.kind})`,
    );
  }
}

/** handlers/update.go checkName: the body must name the object of the URL. */
function checkIdentity(info: ResourceInfo, namespace: string, name: string, body: JsonObject): void {
  checkTypeMeta(info, body);
  const metadata = meta(body);
  const bodyName = str(metadata.name);
  if (bodyName !== name) {
    throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  }
  const bodyNamespace = str(metadata.namespace);
  if (namespace !== '' && bodyNamespace !== '' && bodyNamespace !== namespace) {
    throw badRequest(
      `the namespace of the object (${bodyNamespace}) does not match the namespace on the request (${namespace})`,
    );
  }
}

/**
 * Groups whose strategies refuse an update without resourceVersion (AllowUnconditionalUpdate false):
 * those openshift-apiserver serves (openshift/openshift-apiserver at
 * 56aa2d96edd725e44ddd7ff13f23e53e6c509828, pkg/<group>/apiserver/registry/<resource>/strategy.go).
 * authorization.openshift.io is served by Kubernetes' RBAC storage, which allows it.
 */
const LOCKED_GROUPS = new Set([
  'apps.openshift.io',
  'build.openshift.io',
  'image.openshift.io',
  'route.openshift.io',
  'template.openshift.io',
]);

/** store.go Update: the resourceVersion sent must be the stored one; some kinds may omit it. */
function checkResourceVersion(info: ResourceInfo, name: string, body: JsonObject, live: JsonObject): void {
  const sent = str(meta(body).resourceVersion);
  if (sent === '') {
    if (!isCustomResource(info) && !LOCKED_GROUPS.has(info.group)) return;
    throw invalid({ group: info.group, kind: info.name }, name, [
      {
        type: 'Invalid',
        field: 'metadata.resourceVersion',
        value: '0x0',
        detail: 'must be specified for an update',
      },
    ]);
  }
  if (sent !== str(meta(live).resourceVersion)) throw conflict(info, name, OPTIMISTIC_LOCK);
}

/**
 * Generation moves only when the strategy says the desired state changed: for custom resources any
 * change outside metadata and status, for built-ins a change of `spec` (objects without one, such as
 * ConfigMaps, Secrets and Templates, keep theirs).
 */
function nextGeneration(info: ResourceInfo, live: JsonObject, result: JsonObject): Json {
  const generation = meta(live).generation ?? 1;
  const desired = (o: JsonObject): Json => {
    if (!isCustomResource(info)) return o.spec ?? null;
    const { metadata, status, ...rest } = o;
    return rest;
  };
  return sameValue(desired(live), desired(result)) ? generation : Number(generation) + 1;
}

/**
 * The object a PUT stores in place of `live` (without its new resourceVersion), or the Status error
 * kube-apiserver answers. `live` undefined is a 404: no resource here allows create on update.
 */
export function updatedObject(
  info: ResourceInfo,
  namespace: string,
  name: string,
  live: JsonObject | undefined,
  body: unknown,
  fieldManager: string,
  hasStatus: boolean,
  schema?: Schema,
): JsonObject {
  if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
  const result = structuredClone(body);
  checkIdentity(info, namespace, name, result);
  if (!live) throw notFound(info, name);
  checkResourceVersion(info, name, result, live);
  const metadata = meta(result);
  const stored = meta(live);
  if (info.namespaced) metadata.namespace = namespace;
  const uid = str(metadata.uid);
  if (uid !== '' && uid !== str(stored.uid)) {
    throw invalid({ group: info.group, kind: info.kind }, name, [
      { type: 'Invalid', field: 'metadata.uid', value: JSON.stringify(uid), detail: 'field is immutable' },
    ]);
  }
  for (const key of [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'resourceVersion',
  ]) {
    const value = stored[key];
    if (value === undefined) Reflect.deleteProperty(metadata, key);
    else metadata[key] = value;
  }
  // A resource with a status subresource takes status only there; the main resource keeps it.
  if (hasStatus) {
    if (live.status === undefined) delete result.status;
    else result.status = structuredClone(live.status);
  }
  metadata.generation = nextGeneration(info, live, result);
  const before = { ...live, metadata: { ...stored, managedFields: startingEntries(info, live, result) } };
  // Nothing is tracked on an update of an object that has no managedFields
  // (managedfields/internal/skipnonapplied.go Update).
  const managers = tracked(live, result)
    ? updatedManagers(info, before, result, fieldManager, { schema })
    : [];
  // No entries at all is no managedFields: the field is omitted when empty.
  if (managers.length > 0) metadata.managedFields = managers as unknown as Json;
  else delete metadata.managedFields;
  return result;
}

/**
 * The managedFields an update starts from, as kube-apiserver's field manager decodes them
 * (k8s.io/apimachinery pkg/util/managedfields/internal/fieldmanager.go decodeLiveOrNew,
 * isResetManagedFields): the body's when it carries any, none when it carries an empty list or one
 * empty entry, else (no managedFields in the body) the stored ones; then only those it can convert.
 */
function startingEntries(info: ResourceInfo, live: JsonObject, body: JsonObject): Json {
  const sent = meta(body).managedFields;
  if (
    Array.isArray(sent) &&
    sent.length <= 1 &&
    sent.every((e) => isObject(e) && Object.keys(e).length === 0)
  )
    return [];
  return convertible(info, Array.isArray(sent) ? entriesOf(body) : entriesOf(live)) as unknown as Json;
}

/** Whether the update's field manager tracks it: the entries it decodes are not empty. */
function tracked(live: JsonObject, body: JsonObject): boolean {
  const sent = meta(body).managedFields;
  return Array.isArray(sent) ? entriesOf(body).length > 0 : entriesOf(live).length > 0;
}

/**
 * An update that changes nothing but the time of its managedFields entry is not written
 * (k8s.io/apiserver pkg/endpoints/handlers/fieldmanager/equality.go
 * IgnoreManagedFieldsTimestampsTransformer); one that changes the entries themselves is.
 */
export function isNoOpUpdate(live: JsonObject, result: JsonObject): boolean {
  const withoutManagedFields = (o: JsonObject): JsonObject => {
    const { managedFields, ...metadata } = meta(structuredClone(o));
    return { ...o, metadata };
  };
  // One entry per manager, operation, apiVersion and subresource: ordered by those, untimed.
  const key = (e: ManagedFieldsEntry): string =>
    [e.manager, e.operation, e.apiVersion, e.subresource].join(' ');
  const untimed = (o: JsonObject): Json[] =>
    [...entriesOf(o)]
      .sort((a, b) => key(a).localeCompare(key(b)))
      .map(({ time, ...entry }) => entry as unknown as Json);
  return (
    sameValue(withoutManagedFields(live), withoutManagedFields(result)) &&
    sameValue(untimed(live), untimed(result))
  );
}
