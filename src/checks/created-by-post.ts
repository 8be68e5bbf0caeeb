// The kinds server-side apply cannot create. openshift-apiserver serves authorization.openshift.io
// Role and RoleBinding through a proxy to kube-apiserver's RBAC (openshift/openshift-apiserver
// pkg/authorization/apiserver/registry/role/proxy.go, rolebinding/proxy.go): its `Update`, which
// an apply calls, reads the object first and ignores forceAllowCreate, so an apply that would
// create one answers 404, a dry run too; its `Create` works, and later applies update.
// Its `Update` also sends kube-apiserver the managedFields openshift-apiserver's field manager
// made, in authorization.openshift.io/v1, which kube-apiserver cannot convert and drops
// (structured-merge-diff merge/update.go, IsMissingVersionError), while openshift-apiserver drops
// the stored rbac.authorization.k8s.io/v1 ones alike: an apply through it owns nothing afterwards,
// so an apply of the identity alone cannot give up a field, and a replay relinquishes such an
// object by a merge patch that removes the owner label. When kube-apiserver holds no managedFields
// at all (after a create() that changed nothing), openshift-apiserver's field manager first gives
// every field to "before-first-apply" (k8s.io/apimachinery pkg/util/managedfields/internal/
// skipnonapplied.go), and the next apply conflicts with it wherever the conversion made the view
// differ from what was applied (a Role's rules). create() never forces a conflict, so it writes
// these kinds by a merge patch of the rendered object, which the proxy's `Update` takes alike and
// which cannot conflict.
import type { KubernetesStatus } from '../types/index.ts';
import type { ResourceRef } from '../types/index.ts';

const RESOURCES: Readonly<Record<string, string>> = {
  'authorization.openshift.io/v1 Role': 'roles',
  'authorization.openshift.io/v1 RoleBinding': 'rolebindings',
};

/**
 * The resource of a kind server-side apply cannot create (nor dry-run the creation of), which
 * create() creates with a POST once an apply has answered that the object does not exist;
 * `undefined` for every other kind.
 *
 * @example
 * resourceCreatedByPost({ apiVersion: 'authorization.openshift.io/v1', kind: 'RoleBinding' }); // 'rolebindings'
 */
export function resourceCreatedByPost(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): string | undefined {
  return RESOURCES[`${ref.apiVersion} ${ref.kind}`];
}

/**
 * Whether an apply's answer is the proxy's 404 for this very object, which does not exist yet:
 * its Status names the object in the legacy resource (registry/wrapper.go syncStatusError), as
 * a missing namespace's does not.
 *
 * @example
 * const ref = { apiVersion: 'authorization.openshift.io/v1', kind: 'RoleBinding', name: 'a_edit', namespace: 'ns' };
 * const status = { details: { name: 'a_edit', group: 'authorization.openshift.io', kind: 'rolebindings' } };
 * applyFoundNothing(ref, 404, status); // true
 */
export function applyFoundNothing(
  ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'name'>,
  statusCode: number | undefined,
  status: KubernetesStatus | undefined,
): boolean {
  const details = status?.details;
  const resource = resourceCreatedByPost(ref);
  return (
    resource !== undefined &&
    statusCode === 404 &&
    details?.name === ref.name &&
    details.kind === resource &&
    details.group === ref.apiVersion.split('/')[0]
  );
}

/**
 * The warning create() gives for an object it created with a POST instead.
 *
 * @example
 * createdByPostText({ apiVersion: 'authorization.openshift.io/v1', kind: 'RoleBinding', name: 'a_edit', namespace: 'ns' }, false);
 */
export function createdByPostText(
  ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'name' | 'namespace'>,
  dryRun: boolean,
): string {
  return (
    `${ref.kind} "${ref.name}" in namespace "${ref.namespace}" ${dryRun ? 'would be created (dry run)' : 'was created'} ` +
    `with a POST: openshift-apiserver cannot create ${ref.apiVersion} ${ref.kind} objects by server-side apply, which answered 404`
  );
}
