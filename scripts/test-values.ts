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

/**
 * The parameters the real-tier tests give a published Template: each generated parameter without a
 * value gets its test value, so both servers and every run render the same names, and
 * APPLICATION_USER (required by part of the corpus) is `tester`.
 */
export function corpusParameters(template: { parameters?: unknown }): Record<string, string> {
  const declared = Array.isArray(template.parameters)
    ? (template.parameters as Record<string, unknown>[])
    : [];
  const values: Record<string, string> = {};
  for (const p of declared) {
    const name = typeof p.name === 'string' ? p.name : '';
    const generated = typeof p.generate === 'string' && p.generate !== '';
    if (generated && !(typeof p.value === 'string' && p.value !== ''))
      values[name] = testValue(typeof p.from === 'string' ? p.from : '');
    if (name === 'APPLICATION_USER') values[name] = 'tester';
  }
  return values;
}
