// The walk shared by typing and pruning: where a value sits, and how it is recorded. One place
// carries both path syntaxes, the JSON location and what encoding/json would name it.
import { fieldElement, indexElement, strictField, strictIndex } from './paths.ts';
import { UNTYPED, UNTYPED_DEF, type TypeDef, type TypeRef, type TypeTable } from './table.ts';

/** A JSON value's type, as typing reasons name it: no value leaves the typing engine. */
export type ValueType = 'string' | 'number' | 'boolean' | 'map' | 'list' | 'null';

/** What a problem is about; `decode` ones count only after typing passes. */
export type ProblemKind = 'undeclared' | 'type' | 'list' | 'schema' | 'decode' | 'server-set';

/** One problem of one object, with its place in both path syntaxes. */
export interface TypingProblem {
  kind: ProblemKind;
  /** structured-merge-diff's path with its leading dot: `.spec.containers[name="a"].x`. */
  path: string;
  /** The path of the map or list the problem belongs to (`''` for the object itself). */
  parent: string;
  /** apimachinery's strict-decoding path: `spec.containers[0].x`. */
  strictPath: string;
  /** The reason in structured-merge-diff's or apimachinery's words, without values. */
  reason: string;
  /** Where it is in the object: keys and indexes from the root. */
  at: readonly (string | number)[];
  /** For decode problems: the reason a create or update body gets (encoding/json's words). */
  createReason?: string;
}

/** Where a value sits: one link per key or index up to the root; paths are spelled only for problems. */
export interface Place {
  readonly up: Place | undefined;
  /** The map key, or the list index. */
  readonly key: string | number;
  /** A keyed or set element's path element (`[name="x"]`); fields and atomic indexes derive theirs. */
  readonly element?: string | undefined;
  /** A map key the schema declares: encoding/json names it as a struct field. */
  readonly declared?: boolean;
  /** The Go type name of the struct declaring it, where the schema names one. */
  readonly struct?: string | undefined;
}

export const ROOT: Place = { up: undefined, key: '' };

/** structured-merge-diff's path: `.spec.containers[name="a"].ports[0]`. */
export function pathOf(place: Place): string {
  if (place.up === undefined) return '';
  const element =
    place.element ?? (typeof place.key === 'number' ? indexElement(place.key) : fieldElement(place.key));
  return pathOf(place.up) + element;
}

/** Strict decoding's path: fields joined by `.`, every list element by index. */
function strictOf(place: Place): string {
  if (place.up === undefined) return '';
  const up = strictOf(place.up);
  return typeof place.key === 'number' ? strictIndex(up, place.key) : strictField(up, place.key);
}

function atOf(place: Place): (string | number)[] {
  if (place.up === undefined) return [];
  const at = atOf(place.up);
  at.push(place.key);
  return at;
}

/** encoding/json's struct and field stack (declared struct fields only, no list indexes). */
function goStack(place: Place): { struct: string; fields: string } {
  if (place.up === undefined) return { struct: '', fields: '' };
  const up = goStack(place.up);
  if (typeof place.key === 'number' || place.declared !== true) return up;
  // The Go type name: `io.k8s.api.apps.v1.DeploymentSpec` → `DeploymentSpec`.
  const struct =
    place.struct === undefined ? up.struct : place.struct.slice(place.struct.lastIndexOf('.') + 1);
  return { struct, fields: strictField(up.fields, place.key) };
}

/** The Go field encoding/json names in its errors: `Struct.field.path`. */
export function goFieldOf(place: Place): string {
  const { struct, fields } = goStack(place);
  return `${struct}.${fields}`;
}

export interface Walk {
  table: TypeTable;
  decode: boolean;
  problems: TypingProblem[];
  decodeProblems: TypingProblem[];
}

/** A value's type in typing reasons. */
export function valueType(value: unknown): ValueType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'map';
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
    path: pathOf(place),
    parent: place.up === undefined ? '' : pathOf(place.up),
    strictPath: strictOf(place),
    at: atOf(place),
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
  if (def !== undefined) return { def, name: ref };
  record(w, 'schema', place, `schema error: no type found matching: ${ref}`);
  return undefined;
}

/**
 * The part of a type that applies to a value (typed/helpers.go deduceAtom): the value's own kind
 * when the type has it, else the whole type, which then reports the mismatch.
 */
export function deduce(def: TypeDef, value: unknown): TypeDef {
  const type = valueType(value);
  if ((type === 'string' || type === 'number' || type === 'boolean') && def.scalar !== undefined)
    return def.format === undefined ? { scalar: def.scalar } : { scalar: def.scalar, format: def.format };
  if (type === 'list' && def.list !== undefined) return { list: def.list };
  if (type === 'map' && def.map !== undefined) return { map: def.map };
  return def;
}
