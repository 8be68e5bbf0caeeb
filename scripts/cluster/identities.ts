// The identities both test servers know (simulator/identities.json), as the real control plane
// needs them: a token-file line each, and RBAC objects that grant exactly the file's rules.
import { readFileSync } from 'node:fs';

export interface ClusterRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  namespaces?: string[];
}

export interface ClusterIdentity {
  context: string;
  user: string;
  groups: string[];
  /** Absent: may do everything (system:masters). */
  rules?: ClusterRule[];
}

interface IdentityFile {
  identities: Omit<ClusterIdentity, 'groups'>[];
}

const file = JSON.parse(
  readFileSync(new URL('../../simulator/identities.json', import.meta.url), 'utf8'),
) as IdentityFile;

/** The admin first (current context), then the file's identities. */
export const IDENTITIES: ClusterIdentity[] = [
  { context: 'cluster', user: 'admin', groups: ['system:masters'] },
  ...file.identities.map((identity) => ({ ...identity, groups: [] })),
];

type RbacObject = Record<string, unknown>;

/**
 * A ClusterRole per identity with rules, bound cluster-wide for its namespace-less rules and by a
 * RoleBinding in each namespace its other rules name.
 */
export function rbacObjects(identity: ClusterIdentity): RbacObject[] {
  if (!identity.rules) return [];
  const subject = { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: identity.user };
  const roleName = (scope: string): string => `otc-test:${identity.user}:${scope}`;
  const role = (scope: string, rules: ClusterRule[]): RbacObject => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: roleName(scope) },
    rules: rules.map(({ verbs, apiGroups, resources }) => ({ verbs, apiGroups, resources })),
  });
  const roleRef = (scope: string): RbacObject => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: roleName(scope),
  });
  const objects: RbacObject[] = [];
  const everywhere = identity.rules.filter((rule) => !rule.namespaces);
  if (everywhere.length > 0) {
    objects.push(role('cluster', everywhere), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: roleName('cluster') },
      roleRef: roleRef('cluster'),
      subjects: [subject],
    });
  }
  const namespaces = new Set(identity.rules.flatMap((rule) => rule.namespaces ?? []));
  for (const namespace of namespaces) {
    const rules = identity.rules.filter((rule) => rule.namespaces?.includes(namespace));
    objects.push(role(namespace, rules), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: roleName(namespace), namespace },
      roleRef: roleRef(namespace),
      subjects: [subject],
    });
  }
  return objects;
}
