// Every sentence the typing engine says, in the server's words; where the server prints a value,
// these name its type instead: no value leaves here.
import { goQuote } from './paths.ts';

/** A JSON value's type, as typing reasons name it. */
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

// typed/validate.go visitMapItems.
export const UNDECLARED = 'field not declared in schema';

// The numeric sentence of typed/validate.go validateScalar; the others follow it.
const EXPECTED: Record<string, string> = {
  string: 'string',
  numeric: 'numeric (int or float)',
  boolean: 'boolean',
  untyped: 'any scalar',
  map: 'map',
  list: 'list',
};

/** `expected string, got number` (typed/validate.go validateScalar, typed/helpers.go mapValue). */
export function expected(what: string, got: ValueType): string {
  return `expected ${EXPECTED[what] ?? what}, got ${got}`;
}

// typed/helpers.go keyedAssociativeListItemToPathElement and setItemToPathElement.
export const KEYED_NULL = 'associative list with keys may not have a null element';
export const KEYED_NOT_MAP = 'associative list with keys may not have non-map elements';
export const SET_MAP = "associative list without keys has an element that's a map type";
export const SET_LIST = 'not supported: associative list with lists as elements';
export const SET_NULL = "associative list without keys has an element that's an explicit null";
export const KEY_NOT_MAP_TYPE = 'associative list may not have non-map types';

/** Go's `%q` of a []string: `["containerPort" "protocol"]`. */
function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/** An element whose key fields are all absent (keyedAssociativeListItemToPathElement). */
export function omitsKeys(keys: readonly string[]): string {
  return (
    `associative list with keys has an element that omits all key fields ${goQuoteList(keys)} ` +
    "(and doesn't have default values for any key fields)"
  );
}

/** `element 3: …`: how typed/validate.go visitListItems reports an element it cannot key. */
export function elementReason(index: number, reason: string): string {
  return `element ${index}: ${reason}`;
}

/** `duplicate entries for key [name="a"]` (typed/validate.go visitListItems). */
export function duplicateKey(element: string): string {
  return `duplicate entries for key ${element}`;
}

/** noCorrespondingTypeErr, the kind as GroupVersionKind.String() prints it: `/v1, Kind=Pod`. */
export function noCorrespondingType(apiVersion: string, kind: string): string {
  const group = apiVersion.includes('/') ? '' : '/';
  return `no corresponding type for ${group}${apiVersion}, Kind=${kind}`;
}

/** typed/helpers.go resolveSchema. */
export function noSuchType(name: string): string {
  return `schema error: no type found matching: ${name}`;
}

// k8s.io/apimachinery pkg/api/resource/quantity.go ErrFormatWrong, ErrSuffix.
export const QUANTITY_FORMAT =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

/** k8s.io/apimachinery pkg/runtime/converter.go fromUnstructured: a fraction for an integer. */
export function cannotConvertFraction(width: 'int32' | 'int64'): string {
  return `cannot convert float64 to ${width}`;
}

const GO_JSON_TYPE: Record<ValueType, string> = {
  string: 'string',
  number: 'number',
  boolean: 'bool',
  map: 'object',
  list: 'array',
  null: 'null',
};

/** encoding/json's UnmarshalTypeError without the literal: IntOrString given a non-int32. */
export function intOrStringReason(got: ValueType): string {
  return goValueReason(got, 'int32');
}

/**
 * encoding/json's UnmarshalTypeError into a plain Go value (metav1.Time's string, say).
 *
 * @example
 * goValueReason('number', 'string'); // 'json: cannot unmarshal number into Go value of type string'
 */
export function goValueReason(got: ValueType, goType: string): string {
  return `json: cannot unmarshal ${GO_JSON_TYPE[got]} into Go value of type ${goType}`;
}

/**
 * encoding/base64 CorruptInputError: where a `format: byte` string stops decoding.
 *
 * @example
 * illegalBase64(7); // 'illegal base64 data at input byte 7'
 */
export function illegalBase64(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

/**
 * The same, as runtime/converter.go sliceFromUnstructured wraps it after typing.
 *
 * @example
 * base64Reason(7); // 'error decoding from json: illegal base64 data at input byte 7'
 */
export function base64Reason(offset: number): string {
  return `error decoding from json: ${illegalBase64(offset)}`;
}

/** encoding/json's UnmarshalTypeError for a struct field, without the literal. */
export function goFieldReason(got: ValueType, goField: string, width: string): string {
  return `json: cannot unmarshal ${GO_JSON_TYPE[got]} into Go struct field ${goField} of type ${width}`;
}
