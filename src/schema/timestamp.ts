// Whether a `format: date-time` value parses as Go's `time.Parse` parses it into metav1.Time or
// MicroTime, which takes more than RFC 3339 does (docs/typing.md); errors without the quoted text.
import { goQuote } from './paths.ts';

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

// time/format.go parse up to the seconds: each layout element, the text it takes (getnum: two
// digits, or one or two where the element is not zero-padded), and the range of its number. Any
// two-digit day is taken here; it is checked against its month at the end.
const ELEMENTS: readonly (readonly [string, RegExp, string?, number?, number?])[] = [
  ['2006', /^[0-9]{4}/],
  ['-', /^-/],
  ['01', /^[0-9]{2}/, 'month', 1, 12],
  ['-', /^-/],
  ['02', /^[0-9]{2}/],
  ['T', /^T/],
  ['15', /^[0-9]{1,2}/, 'hour', 0, 23],
  [':', /^:/],
  ['04', /^[0-9]{2}/, 'minute', 0, 59],
  [':', /^:/],
  ['05', /^[0-9]{2}/, 'second', 0, 59],
];

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function outOfRange(what: string): string {
  return `parsing time: ${what} out of range`;
}

function twoDigits(text: string): number | undefined {
  return /^[0-9]{2}$/.test(text) ? Number(text) : undefined;
}

/**
 * Why Go's `time.Parse` refuses the text under RFC 3339 (RFC3339Micro for MicroTime), or `undefined`.
 *
 * @example
 * timeError('2024-01-01T10:00:00Z', false); // undefined
 * timeError('2024-01-01', false); // 'parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "T"'
 */
export function timeError(text: string, micro: boolean): string | undefined {
  const cannot = (element: string): string =>
    `parsing time as ${goQuote(micro ? RFC3339_MICRO : RFC3339)}: cannot parse as ${goQuote(element)}`;
  let rest = text;
  for (const [element, pattern, what, min = 0, max = 99] of ELEMENTS) {
    const taken = pattern.exec(rest)?.[0];
    if (taken === undefined) return cannot(element);
    rest = rest.slice(taken.length);
    if (what !== undefined && (Number(taken) < min || Number(taken) > max)) return outOfRange(what);
  }
  if (micro) {
    // stdFracSecond0 (`.000000`): exactly six places after a period or comma; atoi takes a sign.
    const places = rest.length < 7 ? undefined : /^[.,]([+-]?[0-9]*)$/.exec(rest.slice(0, 7))?.[1];
    if (places === undefined) return cannot('.000000');
    if (Number(places) < 0) return outOfRange('fractional second');
    rest = rest.slice(7);
  } else {
    // The stdSecond case: a fraction the layout does not name is taken, any number of digits.
    rest = rest.replace(/^[.,][0-9]+/, '');
  }
  // stdISO8601ColonTZ (`Z07:00`): `Z`, or a sign, hours, a colon and minutes; ranges first.
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else {
    if (rest.length < 6 || rest[3] !== ':') return cannot('Z07:00');
    const hours = twoDigits(rest.slice(1, 3));
    // Go reads the minutes only when the hours were digits.
    const minutes = hours === undefined ? undefined : twoDigits(rest.slice(4, 6));
    if ((hours ?? 0) > 24) return outOfRange('time zone offset hour');
    if ((minutes ?? 0) > 60) return outOfRange('time zone offset minute');
    if (hours === undefined || minutes === undefined || !/^[+-]/.test(rest)) return cannot('Z07:00');
    rest = rest.slice(6);
  }
  if (rest !== '') return 'parsing time: extra text';
  // The date is fixed-width once parsed: the year, the month and the day are where the layout has them.
  const [year = 0, month = 1, day = 0] = [text.slice(0, 4), text.slice(5, 7), text.slice(8, 10)].map(Number);
  return day < 1 || day > daysIn(month, year) ? outOfRange('day') : undefined;
}
