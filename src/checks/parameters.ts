// How a parameter value given as a number or a boolean becomes the text the Template receives.

/** `"true"`/`"false"` for booleans, decimal text for numbers. */
export function parameterText(value: string | number | boolean): string {
  if (typeof value === 'number') return decimalText(value);
  return typeof value === 'string' ? value : String(value);
}

/**
 * The digits `String()` gives, written out positionally: `String()` switches to exponent notation
 * from 1e21 and below 1e-6, and `1e+21` in a name or a quantity is not the number a user meant.
 */
function decimalText(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = '', lead = '', fraction = '', exponent = '0'] = match;
  const digits = lead + fraction;
  // Where the decimal point falls, counted in digits from the left.
  const point = 1 + Number(exponent);
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}0.${'0'.repeat(-point)}${digits}`;
}
