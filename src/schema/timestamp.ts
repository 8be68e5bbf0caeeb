// Whether a `format: date-time` value parses as Go's `time.Parse` parses it into metav1.Time or
// MicroTime, which takes more than RFC 3339 does (docs/typing.md); errors without the quoted text.
import { goQuote } from './paths.ts';

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

interface Cursor {
  rest: string;
}

type Step = string | undefined;

function isDigit(text: string, at: number): boolean {
  const char = text[at];
  return char !== undefined && char >= '0' && char <= '9';
}

// time/format.go getnum: two digits, or one where the layout element is not zero-padded.
function getnum(c: Cursor, fixed: boolean): number | undefined {
  if (!isDigit(c.rest, 0)) return undefined;
  const width = isDigit(c.rest, 1) ? 2 : 1;
  if (width === 1 && fixed) return undefined;
  const value = Number(c.rest.slice(0, width));
  c.rest = c.rest.slice(width);
  return value;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isSeparator(char: string | undefined): boolean {
  return char === '.' || char === ',';
}

class Parse {
  readonly c: Cursor;
  readonly layout: string;
  constructor(text: string, layout: string) {
    this.c = { rest: text };
    this.layout = layout;
  }

  cannot(element: string): string {
    return `parsing time as ${goQuote(this.layout)}: cannot parse as ${goQuote(element)}`;
  }

  literal(char: string): Step {
    if (!this.c.rest.startsWith(char)) return this.cannot(char);
    this.c.rest = this.c.rest.slice(1);
    return undefined;
  }

  number(element: string, fixed: boolean, limit: number, what: string): number | string {
    const value = getnum(this.c, fixed);
    if (value === undefined) return this.cannot(element);
    return value >= limit ? outOfRange(what) : value;
  }

  year(): number | string {
    const digits = this.c.rest.slice(0, 4);
    if (!/^[0-9]{4}$/.test(digits)) return this.cannot('2006');
    this.c.rest = this.c.rest.slice(4);
    return Number(digits);
  }

  // The stdSecond case: a fraction the layout does not name is taken, any number of digits.
  looseFraction(): Step {
    const { rest } = this.c;
    if (!(isSeparator(rest[0]) && isDigit(rest, 1))) return undefined;
    let end = 2;
    while (isDigit(rest, end)) end++;
    this.c.rest = rest.slice(end);
    return undefined;
  }

  // stdFracSecond0 (`.000000`): exactly six places after a period or comma; atoi takes a sign.
  microFraction(): Step {
    const { rest } = this.c;
    const places = rest.slice(1, 7);
    if (rest.length < 7 || !isSeparator(rest[0]) || !/^[+-]?[0-9]*$/.test(places))
      return this.cannot('.000000');
    if (places.startsWith('-') && Number(places.slice(1)) > 0) return outOfRange('fractional second');
    this.c.rest = rest.slice(7);
    return undefined;
  }

  // stdISO8601ColonTZ (`Z07:00`): `Z`, or a sign, hours, a colon and minutes; ranges first.
  zone(): Step {
    const { rest } = this.c;
    if (rest.startsWith('Z')) {
      this.c.rest = rest.slice(1);
      return undefined;
    }
    if (rest.length < 6 || rest[3] !== ':') return this.cannot('Z07:00');
    const hours = getnum({ rest: rest.slice(1, 3) }, true);
    // Go reads the minutes only when the hours were digits.
    const minutes = hours === undefined ? undefined : getnum({ rest: rest.slice(4, 6) }, true);
    if ((hours ?? 0) > 24) return outOfRange('time zone offset hour');
    if ((minutes ?? 0) > 60) return outOfRange('time zone offset minute');
    if (hours === undefined || minutes === undefined || !(rest.startsWith('+') || rest.startsWith('-')))
      return this.cannot('Z07:00');
    this.c.rest = rest.slice(6);
    return undefined;
  }
}

function outOfRange(what: string): string {
  return `parsing time: ${what} out of range`;
}

function firstError(steps: readonly (() => Step)[]): Step {
  for (const step of steps) {
    const error = step();
    if (error !== undefined) return error;
  }
  return undefined;
}

/**
 * Why Go's `time.Parse` refuses the text under RFC 3339 (RFC3339Micro for MicroTime), or `undefined`.
 *
 * @example
 * timeError('2024-01-01T10:00:00Z', false); // undefined
 * timeError('2024-01-01', false); // 'parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "T"'
 */
export function timeError(text: string, micro: boolean): string | undefined {
  const p = new Parse(text, micro ? RFC3339_MICRO : RFC3339);
  const date: number[] = [];
  const keep = (value: number | string): Step => {
    if (typeof value === 'string') return value;
    date.push(value);
    return undefined;
  };
  const error = firstError([
    () => keep(p.year()),
    () => p.literal('-'),
    () => keep(p.number('01', true, 13, 'month')),
    () => (date[1] === 0 ? outOfRange('month') : undefined),
    () => p.literal('-'),
    () => keep(p.number('02', true, 100, 'day')),
    () => p.literal('T'),
    () => keep(p.number('15', false, 24, 'hour')),
    () => p.literal(':'),
    () => keep(p.number('04', true, 60, 'minute')),
    () => p.literal(':'),
    () => keep(p.number('05', true, 60, 'second')),
    () => (micro ? p.microFraction() : p.looseFraction()),
    () => p.zone(),
    () => (p.c.rest === '' ? undefined : 'parsing time: extra text'),
  ]);
  if (error !== undefined) return error;
  const [year = 0, month = 1, day = 0] = date;
  return day < 1 || day > daysIn(month, year) ? outOfRange('day') : undefined;
}
