// Authorization: the simulator's RBAC-style rules, used both to admit requests and to answer
// SelfSubjectAccessReview (authorization.k8s.io/v1), which `kubectl auth can-i` creates. The review
// reads the same rules as the request path, so what it says is what the next request meets.
import { isObject, type JsonObject } from '../objects/fields.ts';
import type { Identity } from '../types.ts';
import { badRequest, invalid } from '../objects/status.ts';

/** What a request (or a reviewed request) asks to do, as the authorizer sees it. */
export interface Attributes {
  verb: string;
  group: string;
  /** `pods` or `pods/status`. */
  resource: string;
  /** '' at the cluster scope. */
  namespace: string;
  name: string | undefined;
}

/**
 * Requests every authenticated user may make whatever their rules: OpenShift and Kubernetes bind
 * `system:basic-user` (which allows creating SelfSubjectAccessReviews) to `system:authenticated`.
 */
function grantedToEveryone(attributes: Attributes): boolean {
  return (
    attributes.verb === 'create' &&
    attributes.group === 'authorization.k8s.io' &&
    attributes.resource === 'selfsubjectaccessreviews'
  );
}

/** Whether `identity` may do what `attributes` describe; a user without rules may do everything. */
export function permits(identity: Identity, attributes: Attributes): boolean {
  if (!identity.rules || grantedToEveryone(attributes)) return true;
  const { verb, group, resource, namespace, name } = attributes;
  return identity.rules.some(
    (rule) =>
      (rule.verbs.includes(verb) || rule.verbs.includes('*')) &&
      (rule.apiGroups.includes(group) || rule.apiGroups.includes('*')) &&
      (rule.resources.includes(resource) || rule.resources.includes('*')) &&
      (!rule.namespaces || rule.namespaces.includes(namespace) || rule.namespaces.includes('*')) &&
      (!rule.resourceNames || (name !== undefined && rule.resourceNames.includes(name))),
  );
}

function text(object: JsonObject, key: string): string {
  const value = object[key];
  return typeof value === 'string' ? value : '';
}

/** The reviewed request, refused as kube-apiserver's validation does when the spec names neither kind. */
function reviewedAttributes(spec: JsonObject): Attributes | undefined {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (isObject(resource) === isObject(nonResource)) {
    // pkg/apis/authorization/validation: ValidateSelfSubjectAccessReviewSpec.
    throw invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' }, '', [
      {
        type: 'Invalid',
        field: 'spec.resourceAttributes',
        value: isObject(resource) ? '"{...}"' : 'null',
        detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ]);
  }
  if (!isObject(resource)) return undefined;
  const subresource = text(resource, 'subresource');
  const name = text(resource, 'name');
  return {
    verb: text(resource, 'verb'),
    group: text(resource, 'group'),
    resource:
      subresource === '' ? text(resource, 'resource') : `${text(resource, 'resource')}/${subresource}`,
    namespace: text(resource, 'namespace'),
    name: name === '' ? undefined : name,
  };
}

/**
 * Answers a SelfSubjectAccessReview for `identity`: the spec sent back with `status.allowed`.
 * Non-resource URLs are allowed only to a user without rules (the simulator's rules name resources).
 * A denial carries no reason, as the RBAC authorizer gives none.
 *
 * @example
 * reviewAccess({ user: 'admin' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
 *   spec: { resourceAttributes: { verb: 'delete', resource: 'configmaps', namespace: 'workers' } } });
 * // → { ..., status: { allowed: true } }
 */
export function reviewAccess(identity: Identity, body: unknown): JsonObject {
  if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
  const spec = isObject(body.spec) ? body.spec : {};
  const attributes = reviewedAttributes(spec);
  const allowed = attributes === undefined ? identity.rules === undefined : permits(identity, attributes);
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed },
  };
}
