// Server-set metadata in a server-side apply body, where kube-apiserver looks at it:
// - `managedFields` as a list of maps (even an empty one) is a 400 before the patch is even typed
//   (apimachinery managedfields/internal/structuredmerge.go Apply; unstructured.go GetManagedFields
//   reads anything else as none, which typing then refuses);
// - a `uid` on create is a 409 once the patch is applied (apiserver endpoints/handlers/patch.go
//   applyPatch: "uid mismatch"), and one unlike the live object's a 422 (rest/update.go
//   BeforeUpdate → ValidateObjectMetaUpdate);
// - a `resourceVersion` is cleared on create (etcd3 store PrepareObjectForStorage) and a
//   precondition on an existing object (registry/generic/registry/store.go Update: a 409).
import type { ResourceInfo } from '../types.ts';
import { isObject, meta, str, type JsonObject } from './fields.ts';
import { badRequest, conflict, invalid } from './status.ts';
import { OPTIMISTIC_LOCK } from './update.ts';

/** The 400 a body with `metadata.managedFields` gets, before typing. */
export function refuseManagedFields(body: unknown): void {
  const metadata = isObject(body) && isObject(body.metadata) ? body.metadata : {};
  const entries = metadata.managedFields;
  if (Array.isArray(entries) && entries.every(isObject)) {
    throw badRequest('metadata.managedFields must be nil');
  }
}

/** The uid and resourceVersion of an applied configuration checked against the live object. */
export function checkAppliedIdentity(
  info: ResourceInfo,
  name: string,
  config: JsonObject,
  live: JsonObject | undefined,
): void {
  const metadata = meta(config);
  const uid = str(metadata.uid);
  if (live === undefined) {
    if (uid !== '') {
      throw conflict(
        info,
        name,
        `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
      );
    }
    return;
  }
  const version = str(metadata.resourceVersion);
  if (version !== '' && version !== str(meta(live).resourceVersion))
    throw conflict(info, name, OPTIMISTIC_LOCK);
  if (uid !== '' && uid !== str(meta(live).uid)) {
    const immutable = {
      type: 'Invalid',
      field: 'metadata.uid',
      value: JSON.stringify(uid),
      detail: 'field is immutable',
    } as const;
    // BeforeUpdate's common checks and the strategy's ValidateUpdate both find it: two causes.
    throw invalid({ group: info.group, kind: info.kind }, name, [immutable, immutable]);
  }
}
