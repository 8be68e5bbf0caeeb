// Path elements as the server prints them, in structured-merge-diff's syntax (`.field`,
// `[name="x"]`, `[="v"]`, `[3]`) and strict decoding's (`a.b[0]`); sources in docs/typing.md.

export { goQuote } from '../util/quote.ts';
import { goQuote } from '../util/quote.ts';

// Go's `%v` of a float64 (strconv's 'g' with the shortest precision): shortest digits, exponent
// form below 1e-4 or from 1e6, the exponent with at least two digits.
function goFloat(n: number): string {
  const [mantissa = '', exponentText = '0'] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}

/** A value inside a path element: strings Go-quoted, others bare; whole numbers as the int64 they decode to. */
export function smdValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(smdValue).join(',')}]`;
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${k}=${smdValue(v)}`)
    .join('');
}

/** `.name`: a field. */
export function fieldElement(name: string): string {
  return `.${name}`;
}

/** `[3]`: an element of an atomic list. */
export function indexElement(index: number): string {
  return `[${index}]`;
}

/** `[="v"]`: an element of a set. */
export function valueElement(value: unknown): string {
  return `[=${smdValue(value)}]`;
}

/** `[containerPort=80,protocol="TCP"]`: an element of a keyed list, keys sorted by name. */
export function keyElement(keys: readonly (readonly [string, unknown])[]): string {
  const sorted = [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `[${sorted.map(([name, value]) => `${name}=${smdValue(value)}`).join(',')}]`;
}

/** The strict-decoding path one field further down. */
export function strictField(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** The strict-decoding path one list element further down. */
export function strictIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}
