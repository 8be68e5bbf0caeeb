// A Quantity as kube-apiserver stores it after decoding it into a built-in kind's Go type, read at
// k8s.io/apimachinery v0.34.4 `pkg/api/resource/quantity.go` (ParseQuantity, CanonicalizeBytes,
// MarshalJSON) and `amount.go` (AsCanonicalBytes, AsCanonicalBase1024Bytes): the value rounded up
// to a nano, in its suffix family (decimal SI, binary SI or an exponent), with the smallest integer
// mantissa whose exponent is a multiple of three (of ten for a binary suffix). A string
// ParseQuantity finds canonical already is written back as it was sent. Its value is what quota
// admission sums: the simulator's own reading, never the library's (src/util/quantity.ts).

import type { TypeRef } from '../../src/schema/table.ts';
import { setOwn } from '../../src/util/json.ts';
import { isObject, type Json } from './fields.ts';
import { atomOf, entryType, resolveType, type Schema } from './typed-fields.ts';

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const INT64_MAX = 2n ** 63n - 1n;
/** quantity.go maxInt64Factors: the digits a value may have to stay on the int64 fast path. */
const MAX_INT64_FACTORS = 18;

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A parsed Quantity: `unscaled × 10^scale`, exact, with the suffix family it was written in. */
interface Amount {
  unscaled: bigint;
  scale: number;
  format: Format;
}

interface Parts {
  negative: boolean;
  num: string;
  denom: string;
  suffix: string;
}

// quantity.go parseQuantityString: sign, digits, fraction, suffix.
function split(text: string): Parts | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = match;
  // Leading zeros of the number and trailing zeros of the fraction do not count.
  const num = whole.replace(/^0+/, '') || '0';
  const denom = fraction.replace(/0+$/, '');
  return { negative: sign === '-', num, denom, suffix };
}

// suffix.go interpret: the base, exponent and format a suffix stands for.
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix))
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix] ?? 0, format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix))
    return { base: 2, exponent: BINARY_SUFFIXES[suffix] ?? 0, format: 'BinarySI' };
  if (/^[eE][+-]?\d+$/.test(suffix))
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  return undefined;
}

/** ParseQuantity's int64 fast path, which keeps the sent string when it is canonical already. */
function keepsText(parts: Parts, base: 2 | 10, exponent: number, format: Format): boolean {
  const { num, denom } = parts;
  let value: bigint;
  if (format === 'BinarySI') {
    if (exponent < 0 || denom !== '') return false;
    const precision = 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1;
    value = BigInt(num || '0');
    if (precision < 0 || value * 2n ** BigInt(exponent) > INT64_MAX) return false;
    return exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  const scale = exponent - denom.length;
  const shifted = num + denom;
  if (MAX_INT64_FACTORS - shifted.length < 0 || scale < -9 || base !== 10) return false;
  value = BigInt(shifted || '0');
  return value <= INT64_MAX && scale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
}

function parse(text: string): { amount: Amount; keep: boolean } | undefined {
  const parts = split(text);
  const meaning = parts && interpret(parts.suffix);
  if (!parts || !meaning) return undefined;
  const { base, exponent, format } = meaning;
  let unscaled = BigInt(parts.num + parts.denom || '0');
  let scale = -parts.denom.length;
  if (base === 10) scale += exponent;
  else unscaled *= 2n ** BigInt(exponent);
  // Rounded up (away from zero) to a nano: some resources asked for are some resources given.
  if (scale < -9 && unscaled !== 0n) {
    const divisor = 10n ** BigInt(-9 - scale);
    unscaled = (unscaled + divisor - 1n) / divisor;
    scale = -9;
  }
  // A binary quantity is capped at the int64 maximum.
  const over =
    scale >= 0 ? unscaled * 10n ** BigInt(scale) > INT64_MAX : unscaled > INT64_MAX * 10n ** BigInt(-scale);
  if (format === 'BinarySI' && over) {
    unscaled = INT64_MAX;
    scale = 0;
  }
  if (parts.negative) unscaled = -unscaled;
  return { amount: { unscaled, scale, format }, keep: keepsText(parts, base, exponent, format) };
}

/** The value without factors of ten, then with its exponent lowered to a multiple of three. */
function decimalCanonical(unscaled: bigint, scale: number): { mantissa: bigint; exponent: number } {
  let mantissa = unscaled;
  let exponent = scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent -= 1;
  }
  return { mantissa, exponent };
}

/** Whole when the value is an integer: AsScale(0)'s exact result. */
function integerValue(amount: Amount): bigint | undefined {
  if (amount.scale >= 0) return amount.unscaled * 10n ** BigInt(amount.scale);
  const divisor = 10n ** BigInt(-amount.scale);
  return amount.unscaled % divisor === 0n ? amount.unscaled / divisor : undefined;
}

function suffixFor(table: Record<string, number>, exponent: number): string {
  return Object.keys(table).find((s) => table[s] === exponent) ?? '';
}

function canonical(amount: Amount): string {
  if (amount.unscaled === 0n) return '0';
  let format = amount.format;
  const whole = integerValue(amount);
  if (format === 'BinarySI' && (whole === undefined || (whole > -1024n && whole < 1024n)))
    format = 'DecimalSI';
  if (format === 'BinarySI' && whole !== undefined) {
    let mantissa = whole;
    let exponent = 0;
    while (mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      exponent += 10;
    }
    return `${mantissa}${suffixFor(BINARY_SUFFIXES, exponent)}`;
  }
  const { mantissa, exponent } = decimalCanonical(amount.unscaled, amount.scale);
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${suffixFor(DECIMAL_SUFFIXES, exponent)}`;
}

/**
 * A Quantity as kube-apiserver writes it back (always a string), or `undefined` when the text
 * does not parse (typing has refused such a body already).
 *
 * @example
 * canonicalQuantity('0.5'); // '500m'
 * canonicalQuantity('1.5Gi'); // '1536Mi'
 * canonicalQuantity(2); // '2'
 */
export function canonicalQuantity(value: string | number): string | undefined {
  const text = String(value).trim();
  if (text === '0') return '0';
  const parsed = parse(text);
  if (!parsed) return undefined;
  return parsed.keep ? text : canonical(parsed.amount);
}

/**
 * A Quantity's value in billionths, rounded up as ParseQuantity rounds, or `undefined` when it
 * does not parse: what ResourceQuota admission compares and sums (quota.ts).
 *
 * @example
 * quantityNanos('1Ki'); // 1024000000000n
 */
export function quantityNanos(value: unknown): bigint | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const parsed = parse(String(value).trim());
  if (!parsed) return undefined;
  const { unscaled, scale } = parsed.amount;
  return scale >= -9 ? unscaled * 10n ** BigInt(scale + 9) : unscaled / 10n ** BigInt(-9 - scale);
}

/**
 * A built-in kind's object as its Go type writes it back: every value whose schema type is
 * `io.k8s.apimachinery.pkg.api.resource.Quantity` made canonical, in place. A custom resource's
 * object is not decoded into Go types, so `builtIn` false leaves it as it is.
 *
 * @example
 * canonicaliseQuantities(schema, pod); // a container's cpu "0.5" is now "500m"
 */
export function canonicaliseQuantities(schema: Schema & { builtIn?: boolean }, value: Json): void {
  if (schema.builtIn !== true) return;
  const walk = (node: Json, ref: TypeRef | undefined): Json => {
    const def = resolveType(schema.table, ref);
    if (def.format === 'quantity' && (typeof node === 'string' || typeof node === 'number'))
      return canonicalQuantity(node) ?? node;
    const atom = atomOf(def, node);
    if (Array.isArray(node) && atom.list) {
      const elements = atom.list.elements;
      node.forEach((item, index) => (node[index] = walk(item, elements)));
    } else if (isObject(node) && atom.map) {
      const map = atom.map;
      for (const [key, child] of Object.entries(node)) {
        const written = walk(child, entryType(map, key));
        if (written !== child) setOwn(node, key, written);
      }
    }
    return node;
  };
  walk(value, schema.type);
}
