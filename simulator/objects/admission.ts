// What kube-apiserver decides inside a write, beyond the request's own RBAC check, dry runs the
// same (only storage is skipped: k8s.io/apiserver pkg/registry/generic/registry/dryrun.go):
// - an apply that would create is authorized as a create too (pkg/endpoints/handlers/patch.go,
//   createAuthorizerAttributes);
// - the ServiceAccount admission plugin refuses a new Pod whose ServiceAccount does not exist
//   (kubernetes plugin/pkg/admission/serviceaccount/admission.go); `default` is taken to exist, as
//   the ServiceAccount controller makes it in every namespace;
// - RBAC's escalation check on a RoleBinding for a caller without `bind` on its Role: the Role is
//   read (404 when missing, worded as kube-apiserver 1.34 words it) and its rules must be ones the caller holds
//   (kubernetes pkg/registry/rbac/rolebinding/policybased/storage.go). A ClusterRole is not judged.
import { infoForObject } from '../discovery/resources.ts';
import { permits } from '../http/access-review.ts';
import type { Identity, ResourceInfo } from '../types.ts';
import { isObject, type Json, type JsonObject, meta, str } from './fields.ts';
import { forbidden, notFound, StatusError } from './status.ts';
import type { ObjectStore } from './store.ts';

/** One write as admission sees it: who, into which namespace, the object, and whether it creates. */
export interface Admitted {
  identity: Identity;
  namespace: string;
  object: JsonObject;
  creating: boolean;
}

function strings(value: Json | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A new Pod's ServiceAccount must exist; the refusal names it (a 403, as the plugin answers). */
export function admitPod(store: ObjectStore, resources: readonly ResourceInfo[], write: Admitted): void {
  if (!write.creating || !isObject(write.object.spec)) return;
  const spec = write.object.spec;
  const account = str(spec.serviceAccountName) || str(spec.serviceAccount) || 'default';
  if (account === 'default') return;
  const info = infoForObject(resources, { apiVersion: 'v1', kind: 'ServiceAccount' });
  if (store.peek(info, write.namespace, account) !== undefined) return;
  const pod = str(meta(write.object).name);
  const why = `error looking up service account ${write.namespace}/${account}: serviceaccount "${account}" not found`;
  throw new StatusError(403, 'Forbidden', `pods "${pod}" is forbidden: ${why}`, { name: pod, kind: 'pods' });
}

/** RBAC's escalation check of a RoleBinding, as `write.identity`: `bind`, or every rule held. */
export function admitRoleBinding(
  store: ObjectStore,
  resources: readonly ResourceInfo[],
  write: Admitted,
): void {
  const { identity, namespace, object } = write;
  const roleRef = isObject(object.roleRef) ? object.roleRef : {};
  const role = str(roleRef.name);
  // A user without rules stands for system:masters, whom the check lets through.
  if (!identity.rules || str(roleRef.kind) !== 'Role') return;
  const bind = { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'roles', namespace, name: role };
  if (permits(identity, bind)) return;
  const info = infoForObject(resources, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' });
  const found = store.peek(info, namespace, role);
  const binding = infoForObject(resources, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
  });
  // kube-apiserver 1.34 words the missing Role in the binding's resource (checked on the real tier).
  if (found === undefined) throw notFound(binding, role);
  const rules = Array.isArray(found.rules) ? found.rules.filter(isObject) : [];
  const held = rules.every((rule) =>
    strings(rule.verbs).every((verb) =>
      (strings(rule.apiGroups).length > 0 ? strings(rule.apiGroups) : ['']).every((group) =>
        strings(rule.resources).every((resource) =>
          permits(identity, { verb, group, resource, namespace, name: undefined }),
        ),
      ),
    ),
  );
  if (held) return;
  const denied = forbidden(binding, str(meta(object).name), identity.user, 'bind', namespace);
  const why = `user "${identity.user}" is attempting to grant RBAC permissions not currently held`;
  throw new StatusError(403, 'Forbidden', `${denied.status.message?.split(': ')[0] ?? ''}: ${why}`, {
    ...denied.status.details,
  });
}
