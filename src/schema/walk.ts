// The walk shared by typing and pruning: where a value sits, and how it is recorded. One place
// carries both path syntaxes, the JSON location and what encoding/json would name it.
import { UNTYPED, type TypeDef, type TypeRef, type TypeTable } from './table.ts';
import { noSuchType, type ProblemKind, type TypingProblem, type ValueType } from './wording.ts';

/** How much to report: every problem, or what kube-apiserver reports. */
export type Report = 'all' | 'server';

export interface Place {
  path: string;
  parent: string;
  strict: string;
  at: readonly (string | number)[];
  /** encoding/json's struct and field stack (struct fields only, no list indexes). */
  goStruct: string;
  goFields: string;
}

export interface Walk {
  table: TypeTable;
  report: Report;
  decode: boolean;
  problems: TypingProblem[];
  decodeProblems: TypingProblem[];
}

export const ROOT: Place = { path: '', parent: '', strict: '', at: [], goStruct: '', goFields: '' };

const UNTYPED_DEF: TypeDef = {
  scalar: 'untyped',
  map: { elements: UNTYPED },
  list: { elements: UNTYPED, listType: 'atomic' },
};

/** A value's type in typing reasons. */
export function valueType(value: unknown): ValueType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'map';
  }
}

export function record(
  w: Walk,
  kind: ProblemKind,
  place: Place,
  reason: string,
  createReason?: string,
): void {
  const problem: TypingProblem = {
    kind,
    path: place.path,
    parent: place.parent,
    strictPath: place.strict,
    at: place.at,
    reason,
    ...(createReason === undefined ? {} : { createReason }),
  };
  (kind === 'decode' ? w.decodeProblems : w.problems).push(problem);
}

/** The type a reference names, with its name when it has one (typed/helpers.go resolveSchema). */
export function resolve(w: Walk, ref: TypeRef, place: Place): { def: TypeDef; name?: string } | undefined {
  if (typeof ref !== 'string') return { def: ref };
  if (ref === UNTYPED) return { def: UNTYPED_DEF };
  const def = w.table.types[ref];
  if (def === undefined) {
    record(w, 'schema', place, noSuchType(ref));
    return undefined;
  }
  return { def, name: ref };
}

/**
 * The part of a type that applies to a value (typed/helpers.go deduceAtom): the value's own kind
 * when the type has it, else the whole type, which then reports the mismatch.
 */
export function deduce(def: TypeDef, value: unknown): TypeDef {
  const type = valueType(value);
  if ((type === 'string' || type === 'number' || type === 'boolean') && def.scalar !== undefined) {
    return def.format === undefined ? { scalar: def.scalar } : { scalar: def.scalar, format: def.format };
  }
  if (type === 'list' && def.list !== undefined) return { list: def.list };
  if (type === 'map' && def.map !== undefined) return { map: def.map };
  return def;
}

/** The Go type name of a definition: `io.k8s.api.apps.v1.DeploymentSpec` → `DeploymentSpec`. */
export function goTypeName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
