// authorization.openshift.io/v1 Role and RoleBinding to and from the rbac.authorization.k8s.io/v1
// objects openshift-apiserver stores them as, read at openshift/openshift-apiserver
// 56aa2d96edd725e44ddd7ff13f23e53e6c509828: the external to internal conversions and defaults
// (pkg/authorization/apis/authorization/v1 conversion.go, defaults.go; helpers.go BuildSubjects,
// StringSubjectsFor), then internal to RBAC (apis/authorization/rbacconversion/conversion.go).
import { isObject, type Json, type JsonObject, meta, str } from './fields.ts';

export type LegacyKind = 'Role' | 'RoleBinding';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RECONCILE_PROTECT = 'openshift.io/reconcile-protect';
const AUTO_UPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** A conversion the proxy cannot make: openshift-apiserver returns it as a plain error, a 500. */
export class ConversionError extends Error {}

function strings(value: Json | undefined): string[] | undefined {
  return Array.isArray(value) ? value.map((v) => str(v)) : undefined;
}

/** A Go sets.String listed: deduplicated and sorted. */
function set(value: Json | undefined): string[] {
  return [...new Set(strings(value) ?? [])].sort();
}

/** Metadata as stored: the annotation openshift-apiserver renames on the way (reconcile-protect). */
function convertedMetadata(object: JsonObject, from: string, to: string): JsonObject {
  const metadata = structuredClone(meta(object));
  const annotations = isObject(metadata.annotations) ? metadata.annotations : undefined;
  const value = annotations?.[from];
  if (annotations && (value === 'true' || value === 'false')) {
    Reflect.deleteProperty(annotations, from);
    annotations[to] = value === 'true' ? 'false' : 'true';
  }
  return metadata;
}

/** user/validation ValidateUserName and ValidateGroupName: a path segment without ":" and not "~". */
function plainName(name: string): boolean {
  const pathSegment = name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
  return pathSegment && !name.includes(':') && name !== '~';
}

/** BuildSubjects: the legacy userNames and groupNames as subjects. */
function subjectsFromNames(users: string[], groups: string[]): JsonObject[] {
  const subjects: JsonObject[] = users.map((user) => {
    const parts = user.startsWith(SERVICE_ACCOUNT_PREFIX)
      ? user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')
      : [];
    const [namespace = '', name = ''] = parts;
    if (parts.length === 2 && namespace !== '' && name !== '') {
      return serviceAccount(name, namespace);
    }
    return { kind: plainName(user) ? 'User' : 'SystemUser', name: user };
  });
  for (const group of groups)
    subjects.push({ kind: plainName(group) ? 'Group' : 'SystemGroup', name: group });
  return subjects;
}

/** A ServiceAccount subject, in either group's form: the namespace only when there is one. */
function serviceAccount(name: string, namespace: string): JsonObject {
  return { kind: 'ServiceAccount', ...(namespace ? { namespace } : {}), name };
}

function rbacSubject(subject: Json): JsonObject {
  const { kind, name, namespace } = isObject(subject) ? subject : {};
  switch (str(kind)) {
    case 'ServiceAccount':
      return serviceAccount(str(name), str(namespace));
    case 'User':
    case 'SystemUser':
      return { kind: 'User', apiGroup: RBAC_GROUP, name: str(name) };
    case 'Group':
    case 'SystemGroup':
      return { kind: 'Group', apiGroup: RBAC_GROUP, name: str(name) };
    default:
      throw new ConversionError(`invalid kind for origin subject: "${str(kind)}"`);
  }
}

function legacySubject(subject: Json): JsonObject {
  const { kind, name, namespace } = isObject(subject) ? subject : {};
  switch (str(kind)) {
    case 'ServiceAccount':
      return serviceAccount(str(name), str(namespace));
    case 'User':
      return { kind: plainName(str(name)) ? 'User' : 'SystemUser', name: str(name) };
    case 'Group':
      return { kind: plainName(str(name)) ? 'Group' : 'SystemGroup', name: str(name) };
    default:
      throw new ConversionError(`invalid kind for rbac subject: "${str(kind)}"`);
  }
}

function bindingToRbac(binding: JsonObject): JsonObject {
  const metadata = convertedMetadata(binding, RECONCILE_PROTECT, AUTO_UPDATE);
  const roleRef = isObject(binding.roleRef) ? binding.roleRef : {};
  const roleNamespace = str(roleRef.namespace);
  if (roleNamespace !== '' && roleNamespace !== str(metadata.namespace)) {
    throw new ConversionError(
      `invalid origin role binding ${str(metadata.name)}: attempts to reference role in namespace "${roleNamespace}" instead of current namespace "${str(metadata.namespace)}"`,
    );
  }
  // Convert_v1_RoleBinding_To_authorization_RoleBinding: userNames or groupNames, when either is
  // set at all (an empty list too), replace the subjects.
  const users = strings(binding.userNames);
  const groups = strings(binding.groupNames);
  const subjects =
    users === undefined && groups === undefined
      ? (Array.isArray(binding.subjects) ? binding.subjects : []).map(rbacSubject)
      : subjectsFromNames(users ?? [], groups ?? []).map(rbacSubject);
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata,
    ...(subjects.length > 0 ? { subjects } : {}),
    roleRef: {
      apiGroup: RBAC_GROUP,
      kind: roleNamespace === '' ? 'ClusterRole' : 'Role',
      name: str(roleRef.name),
    },
  };
}

/** SetDefaults_PolicyRule, then Convert_api_PolicyRules_To_rbac_PolicyRules for one rule. */
function rbacRules(rule: Json): JsonObject[] {
  if (!isObject(rule)) return [];
  const restricted = rule.attributeRestrictions !== undefined && rule.attributeRestrictions !== null;
  if (restricted) return [];
  let apiGroups = strings(rule.apiGroups);
  const verbs = set(rule.verbs);
  const resources = set(rule.resources);
  const resourceNames = set(rule.resourceNames);
  const nonResourceURLs = set(rule.nonResourceURLs);
  const oldAllowAll =
    apiGroups === undefined &&
    strings(rule.verbs)?.join() === '*' &&
    strings(rule.resources)?.join() === '*' &&
    resourceNames.length === 0 &&
    nonResourceURLs.length === 0;
  if (oldAllowAll) apiGroups = ['*'];
  if (resources.length > 0 && (apiGroups ?? []).length === 0) apiGroups = [''];
  const list = (key: string, values: string[] | undefined): JsonObject =>
    values && values.length > 0 ? { [key]: values } : {};
  const resourcePart = {
    ...list('apiGroups', apiGroups),
    ...list('resources', resources),
    ...list('resourceNames', resourceNames),
  };
  const isResourceRule = Object.keys(resourcePart).length > 0;
  if (isResourceRule && nonResourceURLs.length > 0) {
    return [
      { verbs, ...resourcePart },
      { verbs, nonResourceURLs },
    ];
  }
  return [{ verbs, ...resourcePart, ...list('nonResourceURLs', nonResourceURLs) }];
}

function roleToRbac(role: JsonObject): JsonObject {
  const rules = (Array.isArray(role.rules) ? role.rules : []).flatMap(rbacRules);
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'Role',
    metadata: convertedMetadata(role, RECONCILE_PROTECT, AUTO_UPDATE),
    rules,
  };
}

/** What openshift-apiserver sends kube-apiserver for a legacy object (namespace already set). */
export function toRbac(kind: LegacyKind, object: JsonObject): JsonObject {
  return kind === 'Role' ? roleToRbac(object) : bindingToRbac(object);
}

/** StringSubjectsFor: users (service accounts as user names) and groups, null when none. */
function subjectNames(namespace: string, subjects: JsonObject[]): { userNames: Json; groupNames: Json } {
  const users: string[] = [];
  const groups: string[] = [];
  for (const subject of subjects) {
    const name = str(subject.name);
    const kind = str(subject.kind);
    if (kind === 'ServiceAccount') {
      const saNamespace = str(subject.namespace) || namespace;
      if (saNamespace !== '') users.push(`${SERVICE_ACCOUNT_PREFIX}${saNamespace}:${name}`);
    } else if (kind === 'User' || kind === 'SystemUser') users.push(name);
    else if (kind === 'Group' || kind === 'SystemGroup') groups.push(name);
  }
  return { userNames: users.length > 0 ? users : null, groupNames: groups.length > 0 ? groups : null };
}

function bindingFromRbac(binding: JsonObject): JsonObject {
  const metadata = convertedMetadata(binding, AUTO_UPDATE, RECONCILE_PROTECT);
  const namespace = str(metadata.namespace);
  const subjects = (Array.isArray(binding.subjects) ? binding.subjects : []).map(legacySubject);
  const roleRef = isObject(binding.roleRef) ? binding.roleRef : {};
  const roleKind = str(roleRef.kind);
  if (roleKind !== 'Role' && roleKind !== 'ClusterRole') {
    throw new ConversionError(`invalid kind "${roleKind}" for rbac role ref "${str(roleRef.name)}"`);
  }
  return {
    apiVersion: 'authorization.openshift.io/v1',
    kind: 'RoleBinding',
    metadata,
    ...subjectNames(namespace, subjects),
    subjects,
    roleRef: roleKind === 'Role' ? { namespace, name: str(roleRef.name) } : { name: str(roleRef.name) },
  };
}

/** Convert_rbac_PolicyRules_To_authorization_PolicyRules, then Convert_authorization_PolicyRule_To_v1. */
function legacyRule(rule: Json): JsonObject {
  const source = isObject(rule) ? rule : {};
  const apiGroups = strings(source.apiGroups);
  const resourceNames = set(source.resourceNames);
  const nonResourceURLs = set(source.nonResourceURLs);
  return {
    verbs: set(source.verbs),
    ...(apiGroups && apiGroups.length > 0 ? { apiGroups } : {}),
    resources: set(source.resources),
    ...(resourceNames.length > 0 ? { resourceNames } : {}),
    ...(nonResourceURLs.length > 0 ? { nonResourceURLs } : {}),
  };
}

function roleFromRbac(role: JsonObject): JsonObject {
  return {
    apiVersion: 'authorization.openshift.io/v1',
    kind: 'Role',
    metadata: convertedMetadata(role, AUTO_UPDATE, RECONCILE_PROTECT),
    rules: (Array.isArray(role.rules) ? role.rules : []).map(legacyRule),
  };
}

/** The legacy view of a stored RBAC object, as openshift-apiserver answers it. */
export function fromRbac(kind: LegacyKind, object: JsonObject): JsonObject {
  return kind === 'Role' ? roleFromRbac(object) : bindingFromRbac(object);
}
