// Label syntax as apimachinery checks it, so a bad label is refused before any request rather than
// half-way through a create.
import { isRecord } from '../util/json.ts';
import { isDnsSubdomain } from './names.ts';

const NAME_MAX = 63;
/** Alphanumerics at both ends, `-`, `_` and `.` between. */
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function keyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'has more than one "/"';
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined && !isDnsSubdomain(prefix))
    return `has a prefix that is not a DNS-1123 subdomain of at most 253 characters`;
  if (name === undefined || !isLabelValue(name))
    return `must be at most ${NAME_MAX} characters of alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric, after an optional "prefix/"`;
  return undefined;
}

/** Whether a non-empty string is a valid label value (IsValidLabelValue). */
export function isLabelValue(value: string): boolean {
  return value.length <= NAME_MAX && NAME.test(value);
}

function valueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value === '' || isLabelValue(value)) return undefined;
  return `must be empty or at most ${NAME_MAX} characters of alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric`;
}

/** Every problem of a `labels` option, naming the key (label values are not secret, but stay short). */
export function labelProblems(labels: unknown): string[] {
  if (labels === undefined) return [];
  if (!isRecord(labels)) return ['labels must be an object of label key → value'];
  const issues: string[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const badKey = keyProblem(key);
    if (badKey) issues.push(`label key ${JSON.stringify(key)} ${badKey}`);
    const badValue = valueProblem(value);
    if (badValue) issues.push(`the value of label ${JSON.stringify(key)} ${badValue}`);
  }
  return issues;
}
