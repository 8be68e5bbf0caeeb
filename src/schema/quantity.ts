// Kubernetes' Quantity grammar, as k8s.io/apimachinery `pkg/api/resource/quantity.go`
// (parseQuantityString, ParseQuantity) and `suffix.go` (newSuffixer, interpret) accept it:
// a sign, digits with an optional fraction, then a decimal SI suffix (n u m k M G T P E), a
// binary one (Ki Mi Gi Ti Pi Ei) or an exponent (e3, E-2). Only whether it parses matters here.
import { QUANTITY_FORMAT, QUANTITY_SUFFIX } from './wording.ts';

const SUFFIX_LETTERS = 'eEinumkKMGTP';
const KNOWN_SUFFIXES = new Set([
  '',
  'n',
  'u',
  'm',
  'k',
  'M',
  'G',
  'T',
  'P',
  'E',
  'Ki',
  'Mi',
  'Gi',
  'Ti',
  'Pi',
  'Ei',
]);
const INT64_MAX = 2n ** 63n - 1n;

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function skipDigits(text: string, from: number): number {
  let at = from;
  while (isDigit(text[at])) at++;
  return at;
}

interface Parts {
  suffix: string;
}

// parseQuantityString: the split of number and suffix, or the format error.
function split(text: string): Parts | string {
  let at = text.startsWith('-') || text.startsWith('+') ? 1 : 0;
  at = skipDigits(text, at);
  if (text[at] === '.') at = skipDigits(text, at + 1);
  if (at === text.length) return { suffix: '' };
  const suffixStart = at;
  while (at < text.length && SUFFIX_LETTERS.includes(text[at] ?? '')) at++;
  if (text[at] === '-' || text[at] === '+') at++;
  at = skipDigits(text, at);
  return at === text.length ? { suffix: text.slice(suffixStart) } : QUANTITY_FORMAT;
}

// suffixer.interpret: a known suffix, or e/E followed by an int64.
function knownSuffix(suffix: string): boolean {
  if (KNOWN_SUFFIXES.has(suffix)) return true;
  if (suffix.length < 2 || !(suffix.startsWith('e') || suffix.startsWith('E'))) return false;
  const exponent = suffix.slice(1);
  if (!/^[+-]?[0-9]+$/.test(exponent)) return false;
  const value = BigInt(exponent);
  return value <= INT64_MAX && value >= -INT64_MAX - 1n;
}

/**
 * Why a Quantity string does not parse, in apimachinery's words, or `undefined` when it parses.
 * The text is what the server reads: a JSON string's content, or a JSON number's text.
 *
 * @example
 * quantityError('1.5.2'); // "quantities must match the regular expression '…'"
 * quantityError('500Mi'); // undefined
 */
export function quantityError(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return QUANTITY_FORMAT;
  if (trimmed === '0') return undefined;
  const parts = split(trimmed);
  if (typeof parts === 'string') return parts;
  // A number without digits (`Ki`, `+.`) is zero there, not an error.
  return knownSuffix(parts.suffix) ? undefined : QUANTITY_SUFFIX;
}
