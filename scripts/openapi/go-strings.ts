// Reading the CRD schemas that KubeVirt and CDI keep as YAML inside generated Go sources.

/**
 * The string values of a generated Go `map[string]string` literal (`"key": \`...\``, raw strings
 * joined with `+` around interpreted ones where the text holds a backtick).
 */
export function goStringMap(source: string): Map<string, string> {
  const out = new Map<string, string>();
  const entry = /^\t"([^"]+)":\s*/gm;
  let match: RegExpExecArray | null;
  while ((match = entry.exec(source)) !== null) {
    let at = entry.lastIndex;
    let value = '';
    for (;;) {
      const quote = source[at];
      if (quote === '`') {
        const end = source.indexOf('`', at + 1);
        value += source.slice(at + 1, end);
        at = end + 1;
      } else if (quote === '"') {
        const end = /"(?:[^"\\]|\\.)*"/y;
        end.lastIndex = at;
        const literal = end.exec(source)?.[0] ?? '""';
        value += JSON.parse(literal) as string;
        at += literal.length;
      } else break;
      const joiner = /\s*\+\s*/y;
      joiner.lastIndex = at;
      if (!joiner.test(source)) break;
      at = joiner.lastIndex;
    }
    out.set(match[1] ?? '', value);
    entry.lastIndex = at;
  }
  return out;
}
