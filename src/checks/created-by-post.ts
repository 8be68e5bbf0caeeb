// The kinds server-side apply cannot create: the legacy authorization.openshift.io Role and
// RoleBinding proxies answer an apply that would create one with 404 (docs/operations.md).
import type { KubernetesStatus, ResourceRef } from '../types/index.ts';
import { describeRef } from './refs.ts';
const RESOURCES: Readonly<Record<string, string>> = {
  'authorization.openshift.io/v1 Role': 'roles',
  'authorization.openshift.io/v1 RoleBinding': 'rolebindings',
};

/**
 * The resource of a kind create() creates with a POST once an apply found no object; else `undefined`.
 *
 * @example
 * resourceCreatedByPost({ apiVersion: 'authorization.openshift.io/v1', kind: 'RoleBinding' }); // 'rolebindings'
 */
export function resourceCreatedByPost(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): string | undefined {
  return RESOURCES[`${ref.apiVersion} ${ref.kind}`];
}

/**
 * Whether an apply's 404 names this very object in the legacy resource, as a missing namespace's does not.
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
    `${describeRef(ref)} ${dryRun ? 'would be created (dry run)' : 'was created'} ` +
    `with a POST: openshift-apiserver cannot create ${ref.apiVersion} ${ref.kind} objects by server-side apply, which answered 404`
  );
}
