// The typing differential's verdicts: what the server answered a dry-run apply, what the library
// decides for the same object under Strict and Warn (src/schema's checkForApply, create()'s own
// check), and whether the two agree.
import {
  checkForApply,
  typeObject,
  withoutServerSet,
  type GroupVersionSchema,
  type TypingProblem,
} from '../../src/schema/index.ts';
import { serverProblems } from '../../simulator/objects/refusals.ts';
import type { Json } from './mutations.ts';

/** What kube-apiserver answered a dry-run server-side apply. */
export type ServerVerdict =
  | { kind: 'accepted' }
  /** structured-merge-diff could not type the patch: a 500 naming each problem's path. */
  | { kind: 'typing'; problems: { path: string; reason: string }[]; message: string }
  /** The typed patch did not convert into the Go type: a 500 with the decoder's reason. */
  | { kind: 'decode'; message: string }
  /** Anything else: validation, admission, a conflict, a precondition. */
  | { kind: 'other'; status: number; message: string };

const TYPED_PATCH = 'failed to create typed patch object (';
const CONVERT = 'failed to convert new object (';

/** `PATH: reason` with the path's brackets and quotes respected: `.a[name="x: y"].b: reason`. */
function splitProblem(line: string): { path: string; reason: string } {
  if (!line.startsWith('.') && !line.startsWith('[')) return { path: '', reason: line };
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < line.length - 1; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth === 0 && c === ':' && line[i + 1] === ' ')
      return { path: line.slice(0, i), reason: line.slice(i + 2) };
  }
  return { path: '', reason: line };
}

export function serverVerdict(status: number, body: unknown): ServerVerdict {
  if (status === 200 || status === 201) return { kind: 'accepted' };
  const said = (body as { message?: unknown } | undefined)?.message;
  const message = typeof said === 'string' ? said : '';
  if (message.startsWith(TYPED_PATCH)) {
    // The object's identity ends at the first `): `; the problems follow, one or `errors:` lines.
    const rest = message.slice(message.indexOf('): ') + 3);
    const lines = rest.startsWith('errors:\n')
      ? rest
          .split('\n')
          .slice(1)
          .map((l) => l.trim())
      : [rest];
    return { kind: 'typing', problems: lines.filter((l) => l !== '').map(splitProblem), message };
  }
  if (message.startsWith(CONVERT)) return { kind: 'decode', message };
  return { kind: 'other', status, message };
}

/** How the library's Strict verdict compares with the server's answer. */
export type StrictOutcome =
  | 'both accept'
  | 'both refuse'
  /** The library refuses what the server applies. */
  | 'false refusal'
  /** The library applies what the server refuses as untyped or undecodable. */
  | 'miss'
  /** Both refuse, for different paths or reasons. */
  | 'different problem'
  /** The server refused for a reason typing does not cover (validation, admission). */
  | 'server validation'
  /** The library refuses, the server refused for another reason: typing passed there. */
  | 'refused otherwise'
  /** Server-set metadata the library refuses (Strict) or drops (Warn) on purpose. */
  | 'deliberate';

/** How the library's Warn verdict compares: it drops exactly what the server refuses, no more. */
export type WarnOutcome = 'agrees' | 'drops too much' | 'refuses too much' | 'misses' | 'drops other paths';

export interface Verdicts {
  strict: StrictOutcome;
  warn: WarnOutcome;
  detail: string;
}

const words = (text: string): string[] => text.split(/[\s:]+/).filter((w) => w !== '');

/**
 * Whether the server's message gives the engine's reason: the engine never repeats a value (it
 * names its type instead), so its words must appear in the server's, in order, with the values
 * the server quotes between them.
 */
function saysReason(message: string, reason: string): boolean {
  const said = words(message);
  let at = 0;
  for (const word of words(reason)) {
    at = said.indexOf(word, at);
    if (at < 0) return false;
    at++;
  }
  return true;
}

const paths = (problems: readonly { path: string }[]): string =>
  [...new Set(problems.map((p) => p.path))].sort().join(' ');

const sameSet = (a: readonly { path: string }[], b: readonly { path: string }[]): boolean =>
  paths(a) === paths(b);

/**
 * The library's Strict verdict against the server's answer for the same object. `server` types as
 * kube-apiserver reports (the first undeclared key of each map; paths compared with it), `refused`
 * is the library's every problem (each server path must be among them).
 */
export function strictOutcome(
  schema: GroupVersionSchema,
  object: Json,
  server: ServerVerdict,
): { outcome: StrictOutcome; refused: TypingProblem[]; detail: string } {
  const check = checkForApply(schema, object, 'Strict');
  const refused = check.kind === 'typed' ? check.refused : [];
  const serverSet = refused.filter((p) => p.kind === 'server-set');
  const said = `library: ${refused.map((p) => `${p.path}: ${p.reason}`).join('; ') || 'applies'}`;
  const answer =
    server.kind === 'accepted'
      ? 'server: applied'
      : `server: ${server.kind === 'other' ? `${server.status} ` : ''}${server.message}`;
  const detail = `${said} | ${answer}`;
  if (serverSet.length > 0) return { outcome: 'deliberate', refused, detail };
  if (server.kind === 'accepted')
    return { outcome: refused.length > 0 ? 'false refusal' : 'both accept', refused, detail };
  if (server.kind === 'other')
    return { outcome: refused.length > 0 ? 'refused otherwise' : 'server validation', refused, detail };
  if (refused.length === 0) return { outcome: 'miss', refused, detail };
  const decodes = refused.filter((p) => p.kind === 'decode');
  if (server.kind === 'decode') {
    const typing = refused.filter((p) => p.kind !== 'decode');
    const named = decodes.some((p) => saysReason(server.message, p.reason));
    return { outcome: typing.length === 0 && named ? 'both refuse' : 'different problem', refused, detail };
  }
  const { object: rest } = withoutServerSet(object);
  // The simulator's reading of kube-apiserver's early stops, held to the server here too.
  const asServer = {
    problems: serverProblems(typeObject(schema.table, rest, { decode: schema.builtIn }).problems),
  };
  const known = new Set(refused.map((p) => p.path));
  const agree =
    sameSet(asServer.problems, server.problems) && server.problems.every((p) => known.has(p.path));
  return { outcome: agree ? 'both refuse' : 'different problem', refused, detail };
}

/**
 * The library's Warn verdict against the server's Strict answer for the same object, and what the
 * library would then apply (`warned`, when it differs from the object; the caller sends it and
 * passes the answer as `applied`): Warn must drop exactly the undeclared fields the server refuses,
 * refuse whatever else the server refuses, and apply what the server applies unchanged.
 */
export function warnOutcome(
  schema: GroupVersionSchema,
  object: Json,
  server: ServerVerdict,
): { verdict: (applied: ServerVerdict | undefined) => WarnOutcome; warned: Json | undefined } {
  const check = checkForApply(schema, object, 'Warn');
  if (check.kind !== 'typed') return { verdict: () => 'agrees', warned: undefined };
  const { refused, removed } = check;
  const undeclared = removed.filter((p) => p.kind === 'undeclared');
  const warned = removed.length > 0 && refused.length === 0 ? check.object : undefined;
  const sentOk = (applied: ServerVerdict | undefined): boolean =>
    applied === undefined || applied.kind === 'accepted' || applied.kind === 'other';
  const verdict = (applied: ServerVerdict | undefined): WarnOutcome => {
    if (!sentOk(applied)) return 'misses';
    if (server.kind === 'accepted') {
      if (refused.length > 0) return 'refuses too much';
      return undeclared.length > 0 ? 'drops too much' : 'agrees';
    }
    if (
      server.kind === 'typing' &&
      server.problems.every((p) => p.reason === 'field not declared in schema')
    ) {
      if (refused.length > 0) return 'refuses too much';
      // The server names the first undeclared key of a map; every one it names must be dropped,
      // and nothing the server would not refuse.
      const dropped = new Set(undeclared.map((p) => p.path));
      const parents = new Set(server.problems.map((p) => p.path.slice(0, p.path.lastIndexOf('.'))));
      if (!server.problems.every((p) => dropped.has(p.path))) return 'drops other paths';
      return undeclared.every((p) => parents.has(p.parent)) ? 'agrees' : 'drops too much';
    }
    if (server.kind === 'typing' || server.kind === 'decode') return refused.length > 0 ? 'agrees' : 'misses';
    return 'agrees';
  };
  return { verdict, warned };
}
