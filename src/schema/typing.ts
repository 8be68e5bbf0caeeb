// Typing a JSON value against a compact type table by structured-merge-diff's rules, then the
// decode checks (docs/typing.md). Pure: data in, problems out.
import { isRecord } from '../util/json.ts';
import { goQuote, keyElement, valueElement } from './paths.ts';
import { checkDecode, unmarshalReason } from './decode.ts';
import {
  kindKey,
  type DecodeFormat,
  type ListDef,
  type MapDef,
  type ScalarKind,
  type TypeRef,
  type TypeTable,
} from './table.ts';
import {
  ROOT,
  deduce,
  goFieldOf,
  record,
  resolve,
  valueType,
  type Place,
  type TypingProblem,
  type ValueType,
  type Walk,
} from './walk.ts';

/** How to type. */
export interface TypingOptions {
  /** Also check what kube-apiserver refuses while decoding into Go types (built-in kinds only). */
  decode?: boolean;
}

/** Every problem found; `decodeProblems` only count where `problems` is empty. */
export interface TypingResult {
  problems: TypingProblem[];
  decodeProblems: TypingProblem[];
}

type Json = Record<string, unknown>;

function visit(w: Walk, value: unknown, ref: TypeRef, place: Place): void {
  if (value === undefined) return;
  const resolved = resolve(w, ref, place);
  if (resolved === undefined) return;
  const atom = deduce(resolved.def, value);
  // An IntOrString given a map or a list passes typing (schemaconv leaves a schema without a
  // type untyped) and fails decoding.
  if (w.decode && resolved.def.format === 'int-or-string' && typeof value === 'object' && value !== null)
    checkDecode(w, value, 'int-or-string', place);
  // typed/helpers.go handleAtom: a map first, then a scalar, then a list.
  if (atom.map !== undefined) visitMap(w, value, atom.map, place, resolved.name);
  else if (atom.scalar !== undefined) visitScalar(w, value, atom.scalar, atom.format, place);
  else if (atom.list !== undefined) visitList(w, value, atom.list, place);
}

/** `expected string, got number` (typed/validate.go validateScalar, typed/helpers.go mapValue). */
function expected(what: ScalarKind | 'map' | 'list', got: ValueType): string {
  const name = what === 'numeric' ? 'numeric (int or float)' : what === 'untyped' ? 'any scalar' : what;
  return `expected ${name}, got ${got}`;
}

// typed/validate.go validateScalar: types only; integers and floats are both numeric.
function scalarFits(kind: ScalarKind, value: unknown): boolean {
  if (kind === 'untyped') return ['number', 'string', 'boolean'].includes(typeof value);
  return typeof value === (kind === 'numeric' ? 'number' : kind);
}

// The Go type a scalar field has in the built-in kinds' structs.
function goScalarType(kind: Exclude<ScalarKind, 'untyped'>, format: DecodeFormat | undefined): string {
  if (kind === 'string') return 'string';
  if (kind === 'boolean') return 'bool';
  return format === 'int32' || format === 'int64' ? format : 'float64';
}

function visitScalar(
  w: Walk,
  value: unknown,
  kind: ScalarKind,
  format: DecodeFormat | undefined,
  place: Place,
): void {
  if (value === null) return;
  if (!scalarFits(kind, value)) {
    const got = valueType(value);
    // A create or update body is decoded by encoding/json, which names the Go field and type.
    const goType = kind === 'untyped' ? undefined : goScalarType(kind, format);
    const createReason = goType === undefined ? undefined : unmarshalReason(got, goType, goFieldOf(place));
    record(w, 'type', place, expected(kind, got), createReason);
    return;
  }
  if (w.decode && format !== undefined) checkDecode(w, value, format, place);
}

// typed/validate.go visitMapItems and typed/helpers.go mapValue.
function visitMap(w: Walk, value: unknown, map: MapDef, place: Place, name: string | undefined): void {
  if (value === null) return;
  if (!isRecord(value)) {
    record(w, 'type', place, expected('map', valueType(value)));
    return;
  }
  for (const key of Object.keys(value)) {
    const child = value[key];
    const field = map.fields !== undefined && Object.hasOwn(map.fields, key) ? map.fields[key] : undefined;
    const ref = field ?? map.elements;
    const childPlace: Place = { up: place, key, declared: field !== undefined, struct: name };
    if (ref === undefined) {
      record(w, 'undeclared', childPlace, 'field not declared in schema');
      continue;
    }
    visit(w, child, ref, childPlace);
  }
}

// typed/helpers.go getAssociativeKeyDefault: an absent key field may have a default.
function keyDefault(w: Walk, list: ListDef, key: string, place: Place): { value?: unknown; error?: string } {
  const resolved = resolve(w, list.elements, place);
  if (resolved?.def.map === undefined)
    return { error: `couldn't find default value for ${key}: associative list may not have non-map types` };
  const defaults = resolved.def.map.keyDefaults;
  return defaults !== undefined && Object.hasOwn(defaults, key) ? { value: defaults[key] } : {};
}

// typed/helpers.go keyedAssociativeListItemToPathElement: the element's path element or why not.
function keyedElement(
  w: Walk,
  list: ListDef,
  child: unknown,
  place: Place,
): { element?: string; error?: string } {
  if (child === null) return { error: 'associative list with keys may not have a null element' };
  if (!isRecord(child)) return { error: 'associative list with keys may not have non-map elements' };
  const keys = list.keys ?? [];
  const found: (readonly [string, unknown])[] = [];
  for (const key of keys) {
    if (Object.hasOwn(child, key)) {
      found.push([key, child[key]]);
      continue;
    }
    const fallback = keyDefault(w, list, key, place);
    if (fallback.error !== undefined) return { error: fallback.error };
    if (fallback.value !== undefined) found.push([key, fallback.value]);
  }
  if (keys.length > 0 && found.length === 0) {
    const quoted = `[${keys.map(goQuote).join(' ')}]`;
    const error =
      `associative list with keys has an element that omits all key fields ${quoted} ` +
      "(and doesn't have default values for any key fields)";
    return { error };
  }
  return { element: keyElement(found) };
}

// typed/helpers.go setItemToPathElement.
function setElement(child: unknown): { element?: string; error?: string } {
  if (child === null)
    return { error: "associative list without keys has an element that's an explicit null" };
  if (Array.isArray(child)) return { error: 'not supported: associative list with lists as elements' };
  if (isRecord(child)) return { error: "associative list without keys has an element that's a map type" };
  return { element: valueElement(child) };
}

// typed/validate.go visitListItems and typed/helpers.go listValue.
function visitList(w: Walk, value: unknown, list: ListDef, place: Place): void {
  if (value === null) return;
  if (!Array.isArray(value)) {
    record(w, 'type', place, expected('list', valueType(value)));
    return;
  }
  const seen = new Set<string>();
  const items = value as unknown[];
  for (let index = 0; index < items.length; index++) {
    const child = items[index];
    if (list.listType === 'atomic') {
      // An atomic list's elements are spelled by index, when a problem needs it.
      visit(w, child, list.elements, { up: place, key: index });
      continue;
    }
    const { element, error } =
      list.listType === 'map' ? keyedElement(w, list, child, place) : setElement(child);
    if (element === undefined) {
      // Without a path element nothing below it can be reported.
      record(w, 'list', place, `element ${index}: ${error ?? ''}`);
      continue;
    }
    if (seen.has(element)) record(w, 'list', place, `duplicate entries for key ${element}`);
    seen.add(element);
    visit(w, child, list.elements, { up: place, key: index, element });
  }
}

/**
 * Types a JSON value against a type of the table (and with `decode`, the decode checks). Problems
 * name their path in both syntaxes and types, never values.
 */
export function typeValue(
  table: TypeTable,
  value: unknown,
  type: TypeRef,
  options: TypingOptions = {},
): TypingResult {
  const w: Walk = {
    table,
    decode: options.decode ?? false,
    problems: [],
    decodeProblems: [],
  };
  visit(w, value, type, ROOT);
  return { problems: w.problems, decodeProblems: w.decodeProblems };
}

/**
 * Types a rendered object against the type its `apiVersion` and `kind` name, as server-side apply
 * does first. A kind the table lacks is one problem.
 *
 * @example
 * const { problems } = typeObject(table, deployment, { decode: true });
 * for (const p of problems) console.log(`${p.path}: ${p.reason}`);
 * // .spec.template.spec.containers[name="redis"].capabilities: field not declared in schema
 */
export function typeObject(table: TypeTable, object: Json, options: TypingOptions = {}): TypingResult {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const type = table.kinds[kindKey(apiVersion, kind)];
  if (type !== undefined) return typeValue(table, object, type, options);
  // noCorrespondingTypeErr, the kind as GroupVersionKind.String() prints it: `/v1, Kind=Pod`.
  const reason = `no corresponding type for ${apiVersion.includes('/') ? '' : '/'}${apiVersion}, Kind=${kind}`;
  const problem: TypingProblem = { kind: 'schema', path: '', parent: '', strictPath: '', at: [], reason };
  return { problems: [problem], decodeProblems: [] };
}
