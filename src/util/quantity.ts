// Kubernetes' Quantity as apimachinery's quantity.go and suffix.go read it. Typing asks whether a
// value parses; the quota sum asks what it is worth.

/** A Quantity's parts as written. */
export interface Quantity {
  negative: boolean;
  whole: string;
  fraction: string;
  suffix: string;
}

/** Why ParseQuantity refuses a text: ErrFormatWrong or ErrSuffix. */
type QuantityFault = 'format' | 'suffix';

/** ParseQuantity's scan: sign, whole digits, `.` and fraction digits, then the suffix (letters, a sign, digits). */
const QUANTITY = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/;
/** Binary suffixes by their power of 1024 (the quota sum writes its totals with them too). */
export const BINARY: Readonly<Record<string, bigint>> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const INT64_MAX = 2n ** 63n - 1n;
/** One, in the billionths quantities are summed in. */
export const NANO = 1_000_000_000n;
// Past this a power of ten is no amount a quota sums, and too large to compute.
const MAX_EXPONENT = 1000;

// suffixer.interpret: a known suffix, or e/E followed by an int64.
function knownSuffix(suffix: string): boolean {
  if (Object.hasOwn(DECIMAL, suffix) || Object.hasOwn(BINARY, suffix)) return true;
  if (!/^[eE][+-]?[0-9]+$/.test(suffix)) return false;
  const value = BigInt(suffix.slice(1));
  return value <= INT64_MAX && value >= -INT64_MAX - 1n;
}

/**
 * A Quantity's parts, or why apimachinery's ParseQuantity refuses the text. The text is taken as
 * it is: a JSON value's decoding trims it first.
 *
 * @example
 * readQuantity('1.5Gi'); // { negative: false, whole: '1', fraction: '5', suffix: 'Gi' }
 * readQuantity('1.5.2'); // 'format'
 * readQuantity('1ki'); // 'suffix'
 */
export function readQuantity(text: string): Quantity | QuantityFault {
  const match = text === '' ? null : QUANTITY.exec(text);
  if (match === null) return 'format';
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  return knownSuffix(suffix) ? { negative: sign === '-', whole, fraction, suffix } : 'suffix';
}

/**
 * A Quantity's value in billionths, rounded up (away from zero) as resource.Quantity rounds;
 * `undefined` past 10^1000.
 *
 * @example
 * const read = readQuantity('1Ki');
 * if (typeof read !== 'string') quantityNanos(read); // 1024000000000n
 */
export function quantityNanos({ negative, whole, fraction, suffix }: Quantity): bigint | undefined {
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 10n ** BigInt(fraction.length);
  const binary = BINARY[suffix];
  const exponent = binary === undefined ? (DECIMAL[suffix] ?? Number(suffix.slice(1))) : 0;
  if (exponent > MAX_EXPONENT) return undefined;
  if (binary !== undefined) numerator *= 1024n ** binary;
  if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(Math.min(-exponent, MAX_EXPONENT));
  const value = (numerator * NANO + denominator - 1n) / denominator;
  return negative ? -value : value;
}
