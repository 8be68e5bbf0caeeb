// Object-name rules as the API server applies them per kind. The library refuses a name before any
// request only when the server would refuse it too; docs/api-notes.md has the table with sources.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** Whether `name` is a DNS-1123 subdomain, at most 253 characters (also a label key's prefix). */
export const isDnsSubdomain = (name: string): boolean => name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
/** docker/distribution's repository name component, which OpenShift requires of ImageStream names. */
const IMAGE_STREAM_NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;

export type NameRule =
  | 'dns1123-subdomain'
  | 'dns1123-label'
  | 'dns1035-label'
  | 'image-stream'
  | 'image-stream-tag'
  | 'image-stream-image'
  | 'image-signature'
  | 'path-segment';

/** docker/distribution's limit on a whole repository name, here `namespace/name` of an ImageStream. */
const IMAGE_REPOSITORY_MAX = 255;

/** Kinds (as `group/Kind`, core group empty) whose rule is not the DNS-1123 subdomain of most kinds. */
const SPECIAL_RULES: Readonly<Record<string, NameRule>> = {
  '/Service': 'dns1035-label',
  '/Namespace': 'dns1123-label',
  // RBAC's kinds, in either group, are path segments: the rule of every group not in SUBDOMAIN_GROUPS.
  'template.openshift.io/Template': 'path-segment',
  // Every image.openshift.io name is a path segment; these kinds' storages also split it.
  'image.openshift.io/ImageStream': 'image-stream',
  'image.openshift.io/ImageStreamImport': 'image-stream',
  'image.openshift.io/ImageStreamTag': 'image-stream-tag',
  'image.openshift.io/ImageTag': 'image-stream-tag',
  'image.openshift.io/ImageStreamImage': 'image-stream-image',
  'image.openshift.io/ImageSignature': 'image-signature',
};

/** Groups whose kinds all use the DNS-1123 subdomain rule unless listed above. */
const SUBDOMAIN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'networking.k8s.io',
  'policy',
  'autoscaling',
  'route.openshift.io',
  'build.openshift.io',
  'apps.openshift.io',
  'template.openshift.io',
  // Custom resources: apiextensions-apiserver validates every CR name as a DNS-1123 subdomain.
  'kubevirt.io',
  'cdi.kubevirt.io',
  'instancetype.kubevirt.io',
  'monitoring.coreos.com',
]);

export function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
}

/** The rule the server applies to names of this kind; `path-segment` where no rule is known. */
function nameRuleFor(apiVersion: string, kind: string): NameRule {
  const group = groupOf(apiVersion);
  return (
    SPECIAL_RULES[`${group}/${kind}`] ?? (SUBDOMAIN_GROUPS.has(group) ? 'dns1123-subdomain' : 'path-segment')
  );
}

function pathSegmentProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return `may not be "${name}"`;
  if (name.includes('/')) return 'may not contain "/"';
  if (name.includes('%')) return 'may not contain "%"';
  return undefined;
}

/** Exactly one separator with text on both sides, as library-go parses the name (a tag's has no `@`). */
function splitsInTwo(name: string, separator: ':' | '@'): boolean {
  if (separator === ':' && name.includes('@')) return false;
  const parts = name.split(separator);
  return parts.length === 2 && parts.every((part) => part !== '');
}

/** Per rule: whether a name passes it, and the shape a refusal names. */
const RULES: Readonly<
  Record<Exclude<NameRule, 'path-segment' | 'image-stream'>, [(name: string) => boolean, string]>
> = {
  'dns1123-subdomain': [
    isDnsSubdomain,
    'a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", at most 253 characters',
  ],
  'dns1123-label': [
    (name) => name.length <= 63 && DNS1123_LABEL.test(name),
    'a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters',
  ],
  'dns1035-label': [
    (name) => name.length <= 63 && DNS1035_LABEL.test(name),
    'a DNS-1035 label: starts with a lowercase letter; lowercase letters, digits and "-", at most 63 characters',
  ],
  'image-stream-tag': [
    (name) => splitsInTwo(name, ':'),
    'STREAM:TAG: one ":" with text on both sides, no "@"',
  ],
  'image-stream-image': [(name) => splitsInTwo(name, '@'), 'STREAM@ID: one "@" with text on both sides'],
  'image-signature': [(name) => splitsInTwo(name, '@'), 'IMAGE@SIGNATURE: one "@" with text on both sides'],
};

/**
 * Why the server would refuse `name` for this kind, or undefined when it would accept it.
 * `namespace`, when known, is checked with the name where the server checks both together.
 */
export function nameProblem(
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
): string | undefined {
  const rule = nameRuleFor(apiVersion, kind);
  if (rule === 'path-segment') return pathSegmentProblem(name);
  if (rule === 'image-stream') return pathSegmentProblem(name) ?? imageStreamProblem(name, namespace);
  const [valid, shape] = RULES[rule];
  // A DNS rule's pattern already excludes what a path segment may not hold.
  const segment = rule.startsWith('dns') ? undefined : pathSegmentProblem(name);
  return segment ?? (valid(name) ? undefined : `is not a valid name for this kind (${shape})`);
}

function imageStreamProblem(name: string, namespace: string | undefined): string | undefined {
  if (!IMAGE_STREAM_NAME.test(name))
    return 'is not a valid ImageStream name (lowercase letters and digits, separated by single ".", "_" or "-")';
  if (namespace !== undefined && `${namespace}/${name}`.length > IMAGE_REPOSITORY_MAX)
    return `is too long for an ImageStream in namespace "${namespace}" ("namespace/name" may have at most ${IMAGE_REPOSITORY_MAX} characters)`;
  return undefined;
}
