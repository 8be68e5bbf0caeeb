// Dropping what the schema does not declare, for Warn and Ignore. Wrong types stay problems:
// nothing sensible is left to apply.
import { typeObject, type TypingOptions, type TypingResult } from './typing.ts';
import type { TypeTable } from './table.ts';
import type { TypingProblem } from './walk.ts';

/** A copy without the undeclared fields, what was removed, and the problems that remain. */
export interface PruneResult extends TypingResult {
  object: Record<string, unknown>;
  /** The removed fields, one problem each (`kind: 'undeclared'`), in document order. */
  removed: TypingProblem[];
}

/**
 * Types the object and returns a copy without its undeclared fields; other problems are returned as they are.
 *
 * @example
 * const { object, removed, problems } = pruneUndeclared(table, deployment);
 * removed.map((p) => p.path); // ['.spec.triggers']
 */
export function pruneUndeclared(
  table: TypeTable,
  object: Record<string, unknown>,
  options: TypingOptions = {},
): PruneResult {
  const typed = typeObject(table, object, options);
  const removed = typed.problems.filter((p) => p.kind === 'undeclared');
  const problems = typed.problems.filter((p) => p.kind !== 'undeclared');
  // structuredClone keeps every own key, `__proto__` too (a valid ConfigMap key).
  const copy = structuredClone(object);
  for (const { at } of removed) {
    let map = copy;
    for (const step of at.slice(0, -1)) map = map[step] as Record<string, unknown>;
    Reflect.deleteProperty(map, at.at(-1) ?? '');
  }
  return { object: copy, removed, problems, decodeProblems: typed.decodeProblems };
}
