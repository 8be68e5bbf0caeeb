// Object-name validation as the API server words it (k8s.io/apimachinery pkg/util/validation and
// pkg/api/validation/path; OpenShift's ImageStream rule). Which rule a resource uses is part of its
// entry in discovery/resources.ts; docs/wire-reference.md §7 lists them with their sources.
import type { NameRule } from '../types.ts';
import type { FieldError } from './status.ts';

/** docker/distribution's NameTotalLengthMax, which ValidateImageStreamName applies to namespace/name. */
const IMAGE_REPOSITORY_MAX = 255;

const SUBDOMAIN = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1035 = '[a-z]([-a-z0-9]*[a-z0-9])?';
const IMAGE_STREAM = '[a-z0-9]+(?:[._-][a-z0-9]+)*';

const full = (source: string): RegExp => new RegExp(`^${source}$`);

function pathSegment(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const reasons: string[] = [];
  if (name.includes('/')) reasons.push("may not contain '/'");
  if (name.includes('%')) reasons.push("may not contain '%'");
  return reasons;
}

/** The DNS rules: a length limit, a pattern, and apimachinery's text when the pattern fails. */
const DNS_RULES = {
  'dns1123-subdomain': {
    limit: 253,
    pattern: SUBDOMAIN,
    text:
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
      `and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${SUBDOMAIN}')`,
  },
  'dns1123-label': {
    limit: 63,
    pattern: LABEL,
    text:
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and " +
      `end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${LABEL}')`,
  },
  'dns1035-label': {
    limit: 63,
    pattern: DNS1035,
    text:
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic " +
      `character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035}')`,
  },
} as const;

/** library-go imageutil's ParseImageStreamTagName / ParseImageStreamImageName: one separator, both sides set. */
function splitsInTwo(name: string, separator: ':' | '@'): boolean {
  if (separator === ':' && name.includes('@')) return false;
  const parts = name.split(separator);
  return parts.length === 2 && parts.every((part) => part !== '');
}

function imageStreamReasons(name: string, namespace: string): string[] {
  const segment = pathSegment(name);
  if (segment.length > 0) return segment;
  if (!full(IMAGE_STREAM).test(name)) return [`must match "${IMAGE_STREAM}"`];
  return `${namespace}/${name}`.length > IMAGE_REPOSITORY_MAX
    ? [`'namespace/name' cannot be longer than ${IMAGE_REPOSITORY_MAX} characters`]
    : [];
}

function reasons(rule: NameRule, name: string, namespace: string): string[] {
  // The tag and image kinds are validated as path segments; their storage splits the name
  // afterwards (lookupNameError).
  switch (rule) {
    case 'path-segment':
    case 'image-stream-tag':
    case 'image-stream-image':
      return pathSegment(name);
    case 'image-signature':
      return [
        ...pathSegment(name),
        ...(splitsInTwo(name, '@') ? [] : ['name must be of format <imageName>@<signatureName>']),
      ];
    case 'image-stream':
      return imageStreamReasons(name, namespace);
    default:
      return dnsReasons(rule, name);
  }
}

function dnsReasons(rule: keyof typeof DNS_RULES, name: string): string[] {
  const { limit, pattern, text } = DNS_RULES[rule];
  return [
    ...(name.length > limit ? [`must be no more than ${limit} characters`] : []),
    ...(full(pattern).test(name) ? [] : [text]),
  ];
}

/** The field errors `metadata.name` gets under `rule`; empty when the server accepts it. */
export function nameErrors(rule: NameRule, name: string, namespace = ''): FieldError[] {
  return reasons(rule, name, namespace).map((detail) => ({
    type: 'Invalid',
    field: 'metadata.name',
    value: JSON.stringify(name),
    detail,
  }));
}

/**
 * The 400 that openshift-apiserver's ImageStreamTag, ImageTag and ImageStreamImage storages answer
 * for a name they cannot split (their `nameAndTag` / `parseNameAndID`), before anything else happens
 * to a request that names one; undefined for every other resource and for a well-formed name.
 */
export function lookupNameError(rule: NameRule, kind: string, name: string): string | undefined {
  if (rule === 'image-stream-tag' && !splitsInTwo(name, ':'))
    return `${kind}s must be retrieved with <name>:<tag>`;
  if (rule === 'image-stream-image' && !splitsInTwo(name, '@'))
    return `${kind}s must be retrieved with <name>@<id>`;
  return undefined;
}
