// Hiding what an error, a warning or a debug line must never carry: every occurrence of a
// secret, also the start of one a cut leaves at the end, and every string of a Status body.
import type { KubernetesStatus } from '../outcome.ts';
import type { ValidationProblem } from '../types/problems.ts';

/** Replaces every occurrence of a sensitive value; shorter values than this are not worth hiding. */
const MIN_SECRET_LENGTH = 4;

/** The shortest start of a secret that a cut may not leave behind. */
const MIN_SECRET_PREFIX = 8;

/** Hides secrets in a text; one made by `makeRedactor` also lists them, so a cut can check its end. */
export type Redactor = ((text: string) => string) & { readonly secrets?: readonly string[] };

export function makeRedactor(secrets: Iterable<string>): Redactor {
  const values = [...new Set(secrets)]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  const redact = (text: string): string => {
    let out = text;
    for (const value of values) out = out.split(value).join('[redacted]');
    return out;
  };
  return Object.assign(redact, { secrets: values });
}

/**
 * The first `max` characters of an already redacted text. A whole secret cannot survive there,
 * but the cut may fall inside one the redaction missed (a server that echoed it cut or escaped
 * differently): the start of any secret the redactors know that the cut leaves at its end is
 * hidden too.
 */
export function cutText(text: string, max: number, ...redactors: Redactor[]): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  for (const secret of redactors.flatMap((r) => r.secrets ?? [])) {
    for (let n = Math.min(secret.length - 1, cut.length); n >= MIN_SECRET_PREFIX; n--) {
      if (cut.endsWith(secret.slice(0, n))) {
        cut = `${cut.slice(0, -n)}[redacted]`;
        break;
      }
    }
  }
  return cut;
}

function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)]));
  }
  return value;
}

export function redactStatus(status: KubernetesStatus, redact: Redactor): KubernetesStatus {
  return redactDeep(status, redact) as KubernetesStatus;
}

/** A problem with its text and path passed through `redact` (a path may quote a Secret-bound key). */
export function redactProblem(problem: ValidationProblem, redact: Redactor): ValidationProblem {
  const text = redact(problem.text);
  return problem.path === undefined ? { ...problem, text } : { ...problem, text, path: redact(problem.path) };
}
