// Hiding what an error, a warning or a debug line must never carry: every occurrence of a
// secret, also the start of one a cut leaves at the end, and every string of a Status body.
import type { KubernetesStatus } from '../types/index.ts';
import type { ValidationProblem } from '../types/problems.ts';
import { goQuote, goQuoteToAscii } from './quote.ts';

/** Values this long are hidden anywhere; a shorter one (a PIN) only as a whole quoted string. */
const MIN_ANYWHERE_LENGTH = 4;

/** The shortest start of a secret that a cut may not leave behind. */
const MIN_SECRET_PREFIX = 8;

// A quote (maybe JSON-escaped) that opens a string, not one closing a word; then one that closes it.
const OPENS = String.raw`(?<=(?:^|[\s:=(\[{,"])\\?["'\x60])`;
const CLOSES = String.raw`(?=\\?["'\x60](?:$|[\s:,.;!?)\]}"\\]))`;

/** Hides secrets in a text; one made by `makeRedactor` also lists them, so a cut can check its end. */
export type Redactor = ((text: string) => string) & { readonly secrets?: readonly string[] };

const unicodeEscape = (unit: string, upper: boolean): string => {
  const hex = (unit.codePointAt(0) ?? 0).toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
};

/** Every form a value reaches a message in: raw, base64 (std and URL, padded or not), JSON-escaped, Go-quoted. */
function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  const url = base64.replace(/\+/g, '-').replace(/\//g, '_');
  const json = JSON.stringify(value).slice(1, -1);
  return [
    value,
    base64,
    base64.replace(/=+$/, ''),
    url,
    url.replace(/=+$/, ''),
    json,
    json.replace(/[^\0-\x7f]/g, (unit) => unicodeEscape(unit, false)),
    json.replace(/[^\0-\x7f]/g, (unit) => unicodeEscape(unit, true)),
    json.replace(/[<>&\u2028\u2029]/g, (unit) => unicodeEscape(unit, false)),
    // On printable ASCII and line breaks Go quotes as JSON does: a PEM key is not walked rune by rune.
    ...(/^[\x20-\x7e\n\r\t]*$/.test(value)
      ? []
      : [goQuote(value).slice(1, -1), goQuoteToAscii(value).slice(1, -1)]),
  ];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * A redactor of these values in every form `formsOf` lists, the longest first.
 *
 * @example
 * const redact = makeRedactor(['hunter2', '123']);
 * redact('denied: "hunter2" / "aHVudGVyMg==" / pin "123" in 1234'); // 'denied: "[redacted]" / "[redacted]" / pin "[redacted]" in 1234'
 */
export function makeRedactor(secrets: Iterable<string>): Redactor {
  const values = [...new Set(secrets)].filter((s) => s !== '');
  const long = new Set<string>();
  const short = new Set<string>();
  for (const value of values) {
    const into = value.length >= MIN_ANYWHERE_LENGTH ? long : short;
    for (const form of formsOf(value)) into.add(form);
  }
  const anywhere = [...long].sort((a, b) => b.length - a.length);
  const quoted =
    short.size === 0
      ? undefined
      : new RegExp(
          `${OPENS}(?:${[...short]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|')})${CLOSES}`,
          'g',
        );
  if (anywhere.length === 0 && quoted === undefined) return (text) => text;
  const redact = (text: string): string => {
    let out = text;
    for (const form of anywhere) if (out.includes(form)) out = out.split(form).join('[redacted]');
    return quoted ? out.replace(quoted, '[redacted]') : out;
  };
  return Object.assign(redact, { secrets: anywhere });
}

/** The first `max` characters of a redacted text, hiding the start of a known secret a cut leaves at its end. */
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
