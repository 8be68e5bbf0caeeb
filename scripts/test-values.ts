// Deterministic stand-ins for OpenShift's `expression` generator: `[class]{N}` becomes N characters
// of the class taken in order, so a check names the same objects on every run. The classes are the
// generator's own (openshift/library-go pkg/template/generator/expressionvalue.go).
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const NUMERALS = '0123456789';
const SYMBOLS = '~!@#$%^&*()-_+={}[]\\|<,>.?/"\';:`';
const ASCII = ALPHABET + NUMERALS + SYMBOLS;
const PIECE = /\[([a-zA-Z0-9\-\\]+)\]\{([0-9]+)\}/g;
const RANGE = /\\[wdaA]|[a-zA-Z0-9]-[a-zA-Z0-9]|[a-zA-Z0-9]/g;

function characters(spec: string): string {
  let out = '';
  for (const [token] of spec.matchAll(RANGE)) {
    if (token === '\\w') out += ALPHABET + NUMERALS + '_';
    else if (token === '\\d') out += NUMERALS;
    else if (token === '\\a') out += ALPHABET + NUMERALS;
    else if (token === '\\A') out += SYMBOLS;
    else if (token.length === 3)
      out += ASCII.slice(ASCII.indexOf(token[0] ?? ''), ASCII.indexOf(token[2] ?? '') + 1);
    else out += token;
  }
  return [...new Set(out)].join('') || 'x';
}

/** The expression with every `[class]{N}` replaced by the first N characters of the class, cycling. */
export function testValue(expression: string): string {
  return expression.replace(PIECE, (_piece, spec: string, count: string) => {
    const pool = characters(spec);
    return Array.from({ length: Number(count) }, (_, i) => pool[i % pool.length]).join('');
  });
}
