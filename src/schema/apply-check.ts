// What create() does with one rendered object before it applies it, by field validation mode.
// Pure: a table and an object in, a verdict out.
import { pruneUndeclared } from './prune.ts';
import { withoutServerSet } from './server-set.ts';
import { kindKey, type TypeTable } from './table.ts';
import { typeObject } from './typing.ts';
import type { TypingProblem } from './walk.ts';

/** kubectl's `--validate` values, as create() takes them. */
export type ValidationMode = 'Strict' | 'Warn' | 'Ignore';

/** A group-version's compact table and whether its kinds are built in (decoded into Go types). */
export interface GroupVersionSchema {
  table: TypeTable;
  builtIn: boolean;
}

/** The verdict on one object. */
export type ApplyCheck =
  /** The table has no type for the object's kind. */
  | { kind: 'unknown' }
  /** `object` is what to apply; `refused` lists what no mode can apply; `removed` what was dropped. */
  | { kind: 'typed'; object: Record<string, unknown>; refused: TypingProblem[]; removed: TypingProblem[] };

/** Whether the table has a type for the object's `apiVersion` and `kind`. */
function declaresKind(table: TypeTable, object: Record<string, unknown>): boolean {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  return Object.hasOwn(table.kinds, kindKey(apiVersion, kind));
}

/**
 * Types the object against its group-version's schema and says what to apply. Strict refuses any
 * problem; Warn and Ignore drop undeclared fields and server-set metadata (on a copy) and refuse
 * the rest. Decode problems (built-in kinds only) are refused in every mode.
 */
export function checkForApply(
  schema: GroupVersionSchema,
  object: Record<string, unknown>,
  mode: ValidationMode,
): ApplyCheck {
  if (!declaresKind(schema.table, object)) return { kind: 'unknown' };
  const options = { decode: schema.builtIn };
  // Typed without them, so that a malformed managedFields is reported once, as server-set.
  const { object: rest, found } = withoutServerSet(object);
  if (mode === 'Strict') {
    const typed = typeObject(schema.table, rest, options);
    const refused = [...found, ...typed.problems, ...typed.decodeProblems];
    return { kind: 'typed', object, refused, removed: [] };
  }
  const pruned = pruneUndeclared(schema.table, rest, options);
  return {
    kind: 'typed',
    object: pruned.object,
    refused: [...pruned.problems, ...pruned.decodeProblems],
    removed: [...found, ...pruned.removed],
  };
}
