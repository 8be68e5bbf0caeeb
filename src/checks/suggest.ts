// "Did you mean ...?" for misspelled option and parameter names.

/** Levenshtein distance, small inputs only (option and parameter names). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate a misspelled name most likely meant: same letters in another case, or one or two edits away. */
export function closest(key: string, candidates: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const limit = key.length <= 4 ? 1 : 2;
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = name.toLowerCase() === lower ? 0 : distance(lower, name.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
