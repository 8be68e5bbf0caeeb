// The pre-flight's pure decisions: which dry-run refusals come from the batch itself (a dry run sees
// only the live cluster, not earlier objects of the batch), and which dry runs may be sent again.
import { RequestError } from '../errors.ts';
import type { KubernetesStatus, ResourceRef } from '../types/index.ts';
import { groupOf } from './names.ts';
import { describeRef } from './refs.ts';

type Ref = Pick<ResourceRef, 'apiVersion' | 'kind' | 'name' | 'namespace'>;

const ROLE_API_VERSIONS = ['rbac.authorization.k8s.io/v1', 'authorization.openshift.io/v1'];
const ROLE_BINDINGS = ROLE_API_VERSIONS.map((apiVersion) => `${apiVersion} RoleBinding`);

/** The ServiceAccount admission plugin's refusal of a Pod whose ServiceAccount does not exist. */
const SERVICE_ACCOUNT_MISSING =
  /error looking up service account ([^/\s]+)\/([^:\s]+): serviceaccount "[^"]*" not found/;

/**
 * The Role a RoleBinding's 404 names (RBAC's escalation check, possibly worded in the binding's
 * resource); the binding's own name there would be the binding itself missing.
 */
function missingRole(refused: Ref, status: KubernetesStatus | undefined): string | undefined {
  const details = status?.details;
  const name = details?.name;
  if (typeof name !== 'string' || name === refused.name) return undefined;
  const rbac =
    details?.group === 'rbac.authorization.k8s.io' &&
    (details.kind === 'roles' || details.kind === 'rolebindings');
  const legacy = details?.group === 'authorization.openshift.io' && details.kind === 'rolebindings';
  return rbac || legacy ? name : undefined;
}

/**
 * The earlier object of the batch whose absence the refusal names: a Pod's ServiceAccount (403) or a
 * RoleBinding's Role (404). A later one is not: the real writes would be refused too.
 */
export function batchPrerequisite(
  refused: Ref,
  statusCode: number | undefined,
  status: KubernetesStatus | undefined,
  earlier: readonly Ref[],
): Ref | undefined {
  const same = (ref: Ref, kinds: readonly string[], name: string): boolean =>
    kinds.includes(`${ref.apiVersion} ${ref.kind}`) &&
    ref.name === name &&
    ref.namespace === refused.namespace;
  if (statusCode === 403 && refused.apiVersion === 'v1' && refused.kind === 'Pod') {
    const found = SERVICE_ACCOUNT_MISSING.exec(status?.message ?? '');
    const [, namespace, name] = found ?? [];
    if (name === undefined || namespace !== refused.namespace) return undefined;
    return earlier.find((ref) => same(ref, ['v1 ServiceAccount'], name));
  }
  if (statusCode === 404 && ROLE_BINDINGS.includes(`${refused.apiVersion} ${refused.kind}`)) {
    const name = missingRole(refused, status);
    const roles = ROLE_API_VERSIONS.map((apiVersion) => `${apiVersion} Role`);
    return name === undefined ? undefined : earlier.find((ref) => same(ref, roles, name));
  }
  return undefined;
}

/** API groups whose storages have not always honoured `dryRun` (docs/requirements.md). */
const DRY_RUN_NOT_HONOURED = new Set(['image.openshift.io']);

/** Whether a dry run whose connection was lost may be sent again: only where it is known to write nothing. */
export function dryRunResendable(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): boolean {
  return !DRY_RUN_NOT_HONOURED.has(groupOf(ref.apiVersion));
}

/**
 * The webhook a dry run's 400 names as not supporting dry runs (its `sideEffects`): the object itself
 * is not refused, its dry run could not be made.
 */
export function dryRunUnsupportedBy(
  statusCode: number | undefined,
  status: KubernetesStatus | undefined,
): string | undefined {
  if (statusCode !== 400) return undefined;
  return /^admission webhook "([^"]+)" does not support dry run$/.exec(status?.message ?? '')?.[1];
}

/** The warning for an object whose dry run a webhook could not take: it is applied unverified. */
export function unverifiedText(
  ref: Pick<ResourceRef, 'kind' | 'name' | 'namespace'>,
  webhook: string,
): string {
  return (
    `${describeRef(ref)} is applied unverified: admission webhook "${webhook}" ` +
    'does not support dry run, so the dry run stopped there and the checks of that webhook and after it come at the write'
  );
}

/** Kinds whose dry run wrote their image stream on some servers, which their version does not tell apart. */
const DRY_RUN_WRITES = new Set(['image.openshift.io/v1 ImageStreamTag', 'image.openshift.io/v1 ImageTag']);

/** Whether a dry run of this kind may write on some servers, so that it is not sent. */
export function dryRunMayWrite(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): boolean {
  return DRY_RUN_WRITES.has(`${ref.apiVersion} ${ref.kind}`);
}

/** The warning for an object create() does not dry-run because its dry run may write. */
export function notDryRunText(ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'name' | 'namespace'>): string {
  return (
    `${describeRef(ref)} is applied unverified: it is not dry-run, since ` +
    `openshift-apiserver before openshift/openshift-apiserver#511 writes the image stream on a dry run of ${ref.apiVersion} ${ref.kind}`
  );
}

/**
 * A dry run the server answered with any refusal (a 500 included) stored nothing: its outcome is
 * `'refused'`; with `cause`, what was found about it since.
 */
export function refusedDryRun(error: RequestError, cause: unknown = error.cause): RequestError {
  if (error.statusCode === undefined || (error.outcome !== 'unknown' && cause === error.cause)) return error;
  const detail = error.message.slice(`${error.step} ${error.target}: `.length);
  return new RequestError(error.step, error.target, detail, {
    statusCode: error.statusCode,
    code: error.code,
    outcome: 'refused',
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    ...(error.status === undefined ? {} : { status: error.status }),
    resource: error.resource,
    notFound: error.notFound,
    cause,
  });
}
