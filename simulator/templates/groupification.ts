// OpenShift 3.x wrote its own kinds with a group-less apiVersion (`v1`, the old /oapi endpoint).
// openshift-apiserver's Template processing moves such an object into its group after parameter
// substitution (so a substituted kind counts), "so they can be submitted to modern, aggregated
// servers": openshift/library-go pkg/template/templateprocessing/template.go, which calls
// legacygroupification.OAPIToGroupifiedGVK (pkg/legacyapi/legacygroupification/groupification.go).
// The kinds and groups below are that file's table; a kind outside it, or an apiVersion that
// already has a group, is left as it is.

const GROUPS: Readonly<Record<string, readonly string[]>> = {
  'apps.openshift.io': ['DeploymentConfig', 'DeploymentConfigRollback', 'DeploymentLog', 'DeploymentRequest'],
  'authorization.openshift.io': [
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
    'RoleBindingRestriction',
    'SubjectRulesReview',
    'SelfSubjectRulesReview',
    'ResourceAccessReview',
    'LocalResourceAccessReview',
    'SubjectAccessReview',
    'LocalSubjectAccessReview',
  ],
  'build.openshift.io': ['Build', 'BuildConfig', 'BinaryBuildRequestOptions', 'BuildLog', 'BuildRequest'],
  'image.openshift.io': [
    'Image',
    'ImageSignature',
    'ImageStream',
    'ImageStreamImage',
    'ImageStreamImport',
    'ImageStreamMapping',
    'ImageStreamTag',
  ],
  'network.openshift.io': ['ClusterNetwork', 'EgressNetworkPolicy', 'HostSubnet', 'NetNamespace'],
  'oauth.openshift.io': [
    'OAuthAccessToken',
    'OAuthAuthorizeToken',
    'OAuthClient',
    'OAuthClientAuthorization',
  ],
  'project.openshift.io': ['Project', 'ProjectRequest'],
  'quota.openshift.io': ['ClusterResourceQuota', 'AppliedClusterResourceQuota'],
  'route.openshift.io': ['Route'],
  'security.openshift.io': [
    'SecurityContextConstraints',
    'PodSecurityPolicySubjectReview',
    'PodSecurityPolicySelfSubjectReview',
    'PodSecurityPolicyReview',
  ],
  'template.openshift.io': ['Template'],
  'user.openshift.io': ['Group', 'Identity', 'User', 'UserIdentityMapping'],
};

/** Kinds that have a List kind in the table as well (upstream lists both). */
const WITH_LISTS = new Set([
  'DeploymentConfig',
  'ClusterRoleBinding',
  'ClusterRole',
  'RoleBindingRestriction',
  'RoleBinding',
  'Role',
  'BuildConfig',
  'Build',
  'Image',
  'ImageStream',
  'ImageStreamTag',
  'ClusterNetwork',
  'EgressNetworkPolicy',
  'HostSubnet',
  'NetNamespace',
  'OAuthAccessToken',
  'OAuthAuthorizeToken',
  'OAuthClientAuthorization',
  'OAuthClient',
  'Project',
  'ClusterResourceQuota',
  'AppliedClusterResourceQuota',
  'Route',
  'SecurityContextConstraints',
  'Template',
  'Group',
  'Identity',
  'User',
]);

const GROUP_OF_KIND = new Map<string, string>(
  Object.entries(GROUPS).flatMap(([group, kinds]) =>
    kinds.flatMap((kind) => [
      [kind, group] as const,
      ...(WITH_LISTS.has(kind) ? [[`${kind}List`, group] as const] : []),
    ]),
  ),
);

/** The apiVersion openshift-apiserver gives a rendered object: its group added when it is a legacy OpenShift kind. */
export function groupified(apiVersion: unknown, kind: unknown): unknown {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion.includes('/'))
    return apiVersion;
  const group = GROUP_OF_KIND.get(kind);
  return group === undefined ? apiVersion : `${group}/${apiVersion}`;
}
