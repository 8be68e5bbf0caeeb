// Go's string quoting, which server messages and structured-merge-diff paths print values in: the
// typing engine words its problems with it, and redaction hides a secret in that form too.

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/**
 * Go's `%q` of a string (strconv.Quote, appendEscapedRune).
 *
 * @example
 * goQuote('päss"1'); // '"päss\\"1"'
 */
export function goQuote(text: string): string {
  return quote(text, false);
}

/**
 * Go's `%+q` of a string (strconv.QuoteToASCII): as `%q`, every rune past ASCII escaped too.
 *
 * @example
 * goQuoteToAscii('päss'); // '"p\\u00e4ss"'
 */
export function goQuoteToAscii(text: string): string {
  return quote(text, true);
}

function quote(text: string, ascii: boolean): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) out += short;
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (PRINTABLE.test(char) && !(ascii && code >= 0x80)) out += char;
    // encoding/json reads a lone surrogate as U+FFFD, which prints as itself.
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}
