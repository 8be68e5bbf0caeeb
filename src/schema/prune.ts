// Dropping what the schema does not declare, for Warn and Ignore. Wrong types stay problems:
// nothing sensible is left to apply.
import { setOwn } from '../util/json.ts';
import { typeObject, type TypingOptions, type TypingResult } from './typing.ts';
import type { TypeTable } from './table.ts';
import type { TypingProblem } from './walk.ts';

/** A copy without the undeclared fields, what was removed, and the problems that remain. */
export interface PruneResult extends TypingResult {
  object: Record<string, unknown>;
  /** The removed fields, one problem each (`kind: 'undeclared'`), in document order. */
  removed: TypingProblem[];
}

interface Trie {
  drop: boolean;
  children: Map<string | number, Trie>;
}

function trieOf(problems: readonly TypingProblem[]): Trie {
  const root: Trie = { drop: false, children: new Map() };
  for (const { at } of problems) {
    let node = root;
    for (const step of at) {
      let next = node.children.get(step);
      if (next === undefined) {
        next = { drop: false, children: new Map() };
        node.children.set(step, next);
      }
      node = next;
    }
    node.drop = true;
  }
  return root;
}

function copyWithout(value: unknown, trie: Trie | undefined): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown, i) => copyWithout(item, trie?.children.get(i)));
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const below = trie?.children.get(key);
    if (below?.drop === true) continue;
    setOwn(copy, key, copyWithout(child, below));
  }
  return copy;
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
  const copy = copyWithout(object, removed.length === 0 ? undefined : trieOf(removed)) as Record<
    string,
    unknown
  >;
  return { object: copy, removed, problems, decodeProblems: typed.decodeProblems };
}
