// The kinds server-side apply cannot create: the legacy authorization.openshift.io Role and
// RoleBinding proxies answer an apply that would create one with 404 (docs/operations.md).
import type { KubernetesStatus, ResourceRef } from '../types/index.ts';
import { describeRef } from './refs.ts';
const RESOURCES: Readonly<Record<string, string>> = {
  'authorization.openshift.io/v1 Role': 'roles',
  'authorization.openshift.io/v1 RoleBinding': 'rolebindings',
};

/** The resource of a kind create() creates with a POST once an apply found no object; else `undefined`. */
export function resourceCreatedByPost(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): string | undefined {
  return RESOURCES[`${ref.apiVersion} ${ref.kind}`];
}

/**
 * Whether an apply's 404 names this very object in the legacy resource, as a missing namespace's does not.
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

/** The warning create() gives for an object it created with a POST instead. */
export function createdByPostText(
  ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'name' | 'namespace'>,
  dryRun: boolean,
): string {
  return (
    `${describeRef(ref)} ${dryRun ? 'would be created (dry run)' : 'was created'} ` +
    `with a POST: openshift-apiserver cannot create ${ref.apiVersion} ${ref.kind} objects by server-side apply, which answered 404`
  );
}
