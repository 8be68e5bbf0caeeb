// Whether a `format: byte` string decodes as Go's base64.StdEncoding does (docs/typing.md). Only
// where it stops matters: that offset is what the server's error names.

const ALPHABET = new Set(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'));
const PAD = 0x3d;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The input byte at which Go's `base64.StdEncoding.Decode` refuses the text (decodeQuantum's
 * CorruptInputError), or `undefined`.
 *
 * @example
 * base64Error('aGVsbG8='); // undefined
 * base64Error('aGVs\nbG8='); // undefined: newlines are skipped
 * base64Error('hello'); // 4: a quantum cut short
 */
export function base64Error(text: string): number | undefined {
  const src = Buffer.from(text, 'utf8');
  // Go skips \r and \n anywhere: the offsets of the other bytes, four to a quantum.
  const at: number[] = [];
  src.forEach((byte, offset) => {
    if (byte !== LF && byte !== CR) at.push(offset);
  });
  for (let i = 0; i < at.length; i++) {
    const offset = at[i] ?? 0;
    const byte = src[offset] ?? 0;
    if (ALPHABET.has(byte)) continue;
    if (byte !== PAD || i % 4 < 2) return offset;
    // Padding: `==` after two letters of a quantum, `=` after three, then nothing but newlines.
    let next = i + 1;
    if (i % 4 === 2) {
      const second = at[next];
      if (second === undefined) return src.length;
      if (src[second] !== PAD) return second - 1;
      next++;
    }
    return at[next];
  }
  // A quantum cut short: Go names where it started, newlines not counted back.
  const cut = at.length % 4;
  return cut === 0 ? undefined : src.length - cut;
}
