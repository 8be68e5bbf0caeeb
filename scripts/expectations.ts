// check-templates' expectations file: one section per fieldValidation mode, each entry what one
// Template must do (round-trip, be refused with exactly these issues, or fail with this message),
// and how an outcome differs from it.
import { readFile } from 'node:fs/promises';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What check-templates saw of one Template: `issues` are a refusal's problems, one line each;
 * `warnings` the server's, each once, with the operation and object that drew it.
 */
export interface Observed {
  name: string;
  result: 'ok' | 'refused' | 'failed';
  step: string;
  message: string;
  issues: string[];
  warnings: string[];
}

export interface Expectation {
  result: 'ok' | 'refused' | 'failed';
  step?: string;
  issues?: string[];
  message?: string;
  warnings?: string[];
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * The section of `file` for the mode run, each entry checked; a malformed file is a usage error
 * (`usageError` does not return).
 */
export async function readExpectations(
  file: string,
  mode: string,
  modes: readonly string[],
  usageError: (reason: string) => never,
): Promise<Record<string, Expectation>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return usageError(`--expect ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const wrong = (what: string): never => usageError(`--expect ${file}: ${what}`);
  if (!isObject(parsed)) return wrong('expected an object with a section per mode');
  const other = Object.keys(parsed).find((key) => !modes.includes(key));
  if (other !== undefined)
    wrong(`${JSON.stringify(other)} is not a mode: the sections are Strict, Warn and Ignore`);
  const section = parsed[mode];
  if (!isObject(section)) return wrong(`no "${mode}" section for --field-validation ${mode}`);
  for (const [name, entry] of Object.entries(section)) {
    const at = `${mode}.${name}`;
    if (!isObject(entry) || !['ok', 'refused', 'failed'].includes(entry.result as string))
      wrong(`${at}: "result" must be "ok", "refused" or "failed"`);
    const e = entry as JsonObject;
    if (e.result === 'refused' && !isStrings(e.issues))
      wrong(`${at}: a refusal lists every problem in "issues" (strings)`);
    if (e.result === 'failed' && typeof e.message !== 'string')
      wrong(`${at}: a failure names a part of its error in "message"`);
    if (e.warnings !== undefined && !isStrings(e.warnings)) wrong(`${at}: "warnings" are strings`);
    if (e.step !== undefined && typeof e.step !== 'string') wrong(`${at}: "step" is a string`);
  }
  return section as unknown as Record<string, Expectation>;
}

/** Lines of `want` not in `got` and of `got` not in `want`, counting repeats. */
function difference(want: readonly string[], got: readonly string[]): { missing: string[]; extra: string[] } {
  const extra = [...got];
  const missing: string[] = [];
  for (const line of want) {
    const at = extra.indexOf(line);
    if (at === -1) missing.push(line);
    else extra.splice(at, 1);
  }
  return { missing, extra };
}

/** How `outcome` differs from what is expected: a summary and the lines behind it; none when as expected. */
export function unexpected(
  outcome: Observed,
  expected: Record<string, Expectation>,
): { summary: string; lines: string[] } | undefined {
  const want = expected[outcome.name] ?? { result: 'ok' };
  if (outcome.result !== want.result)
    return { summary: `expected ${want.result}, got ${outcome.result}`, lines: [] };
  if (want.step !== undefined && outcome.step !== want.step)
    return { summary: `expected it at ${want.step}, got ${outcome.step}`, lines: [] };
  const lines: string[] = [];
  const compare = (what: string, wanted: readonly string[], got: readonly string[]): void => {
    const { missing, extra } = difference(wanted, got);
    lines.push(...missing.map((l) => `missing ${what}: ${l}`), ...extra.map((l) => `extra ${what}: ${l}`));
  };
  if (want.result === 'refused') compare('issue', want.issues ?? [], outcome.issues);
  if (want.warnings !== undefined) compare('warning', want.warnings, outcome.warnings);
  const missingText =
    want.result === 'failed' && !outcome.message.includes(want.message ?? '')
      ? `expected an error containing ${JSON.stringify(want.message)}`
      : undefined;
  if (missingText === undefined && lines.length === 0) return undefined;
  const parts = [
    ...(missingText ? [missingText] : []),
    ...(lines.length > 0 ? [`${lines.length} line(s) differ`] : []),
  ];
  return { summary: parts.join('; '), lines };
}
