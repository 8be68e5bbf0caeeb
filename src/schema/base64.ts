// Whether a `format: byte` string decodes as Go's base64.StdEncoding does (docs/typing.md). Only
// where it stops matters: that offset is what the server's error names.

const ALPHABET = new Set(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'));
const PAD = 0x3d;
const LF = 0x0a;
const CR = 0x0d;

interface Quantum {
  next: number;
  error?: number;
}

function isNewline(byte: number | undefined): boolean {
  return byte === LF || byte === CR;
}

function skipNewlines(src: Uint8Array, from: number): number {
  let at = from;
  while (at < src.length && isNewline(src[at])) at++;
  return at;
}

// decodeQuantum: where padding starts, the rest must be padding and newlines only.
function afterPadding(src: Uint8Array, start: number, j: number): Quantum {
  let si = start;
  if (j === 0 || j === 1) return { next: si, error: si - 1 };
  if (j === 2) {
    si = skipNewlines(src, si);
    if (si === src.length) return { next: si, error: src.length };
    if (src[si] !== PAD) return { next: si, error: si - 1 };
    si++;
  }
  si = skipNewlines(src, si);
  return si < src.length ? { next: si, error: si } : { next: si };
}

// decodeQuantum: four alphabet bytes, newlines skipped, or where and why it stops.
function quantum(src: Uint8Array, start: number): Quantum {
  let si = start;
  for (let j = 0; j < 4; j++) {
    if (si === src.length) return j === 0 ? { next: si } : { next: si, error: si - j };
    const byte = src[si] ?? 0;
    si++;
    if (ALPHABET.has(byte)) continue;
    if (isNewline(byte)) {
      j--;
      continue;
    }
    if (byte !== PAD) return { next: si, error: si - 1 };
    return afterPadding(src, si, j);
  }
  return { next: si };
}

/**
 * The input byte at which Go's `base64.StdEncoding.Decode` refuses the text, or `undefined`.
 *
 * @example
 * base64Error('aGVsbG8='); // undefined
 * base64Error('aGVs\nbG8='); // undefined: newlines are skipped
 * base64Error('hello'); // 4: a quantum cut short
 */
export function base64Error(text: string): number | undefined {
  const src = Buffer.from(text, 'utf8');
  let si = 0;
  while (si < src.length) {
    const step = quantum(src, si);
    if (step.error !== undefined) return step.error;
    if (step.next === si) break;
    si = step.next;
  }
  return undefined;
}
