// Object-name validation as the API server words it (k8s.io/apimachinery pkg/util/validation and
// pkg/api/validation/path; OpenShift's ImageStream rule). Which rule a resource uses is part of its
// entry in discovery.ts; docs/wire-reference.md §7 lists them with their sources.
import type { FieldError } from './status.ts';

export type NameRule =
  'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'image-stream' | 'path-segment';

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

function reasons(rule: NameRule, name: string): string[] {
  if (rule === 'path-segment') return pathSegment(name);
  if (rule === 'image-stream') {
    const segment = pathSegment(name);
    if (segment.length > 0) return segment;
    return full(IMAGE_STREAM).test(name) ? [] : [`must match "${IMAGE_STREAM}"`];
  }
  const { limit, pattern, text } = DNS_RULES[rule];
  return [
    ...(name.length > limit ? [`must be no more than ${limit} characters`] : []),
    ...(full(pattern).test(name) ? [] : [text]),
  ];
}

/** The field errors `metadata.name` gets under `rule`; empty when the server accepts it. */
export function nameErrors(rule: NameRule, name: string): FieldError[] {
  return reasons(rule, name).map((detail) => ({
    type: 'Invalid',
    field: 'metadata.name',
    value: JSON.stringify(name),
    detail,
  }));
}
