// What kube-apiserver refuses right after typing, while it converts the typed object into its Go
// types (built-in kinds only; sources and what is not checked: docs/typing.md).
import { readQuantity } from '../util/quantity.ts';
import { base64Error } from './base64.ts';
import type { DecodeFormat } from './table.ts';
import { goFieldOf, record, valueType, type Place, type ValueType, type Walk } from './walk.ts';
import { timeError } from './timestamp.ts';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// k8s.io/apimachinery pkg/api/resource/quantity.go ErrFormatWrong, ErrSuffix.
export const QUANTITY_FORMAT =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

/**
 * Why a Quantity string (a JSON string's content or a number's text) does not parse, or `undefined`.
 */
export function quantityError(text: string): string | undefined {
  const read = readQuantity(text.trim());
  if (read === 'format') return QUANTITY_FORMAT;
  return read === 'suffix' ? QUANTITY_SUFFIX : undefined;
}

const GO_JSON_TYPE: Record<ValueType, string> = {
  string: 'string',
  number: 'number',
  boolean: 'bool',
  map: 'object',
  list: 'array',
  null: 'null',
};

/**
 * encoding/json's UnmarshalTypeError without the literal: into a struct field where `goField`
 * (`Struct.field.path`) is given, else into a plain Go value (metav1.Time's string, IntOrString's int32).
 */
export function unmarshalReason(got: ValueType, goType: string, goField?: string): string {
  const into = goField === undefined ? 'Go value' : `Go struct field ${goField}`;
  return `json: cannot unmarshal ${GO_JSON_TYPE[got]} into ${into} of type ${goType}`;
}

/** A decode problem whose reason is the same for an apply and for a create or update body. */
function refuse(w: Walk, place: Place, reason: string): void {
  record(w, 'decode', place, reason, reason);
}

function checkInteger(w: Walk, value: unknown, width: 'int32' | 'int64', place: Place): void {
  if (typeof value === 'number' && !Number.isInteger(value)) {
    // runtime/converter.go fromUnstructured for an apply; encoding/json for a create body.
    const createReason = unmarshalReason('number', width, goFieldOf(place));
    record(w, 'decode', place, `cannot convert float64 to ${width}`, createReason);
  }
}

// intstr.go UnmarshalJSON: a string, else json.Unmarshal into an int32 (whole and in range).
function checkIntOrString(w: Walk, value: unknown, place: Place): void {
  if (typeof value === 'string') return;
  if (typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX)
    return;
  refuse(w, place, unmarshalReason(valueType(value), 'int32'));
}

// sliceFromUnstructured: the string through encoding/json into a []byte, which base64-decodes it.
function checkBytes(w: Walk, value: unknown, place: Place): void {
  if (typeof value !== 'string') return;
  const at = base64Error(value);
  if (at === undefined) return;
  // encoding/base64 CorruptInputError, which runtime/converter.go wraps for an apply.
  const illegal = `illegal base64 data at input byte ${at}`;
  record(w, 'decode', place, `error decoding from json: ${illegal}`, illegal);
}

// metav1.Time and MicroTime UnmarshalJSON: a JSON string that time.Parse takes.
function checkTime(w: Walk, value: unknown, micro: boolean, place: Place): void {
  if (typeof value !== 'string') {
    refuse(w, place, unmarshalReason(valueType(value), 'string'));
    return;
  }
  const reason = timeError(value, micro);
  if (reason !== undefined) refuse(w, place, reason);
}

/**
 * Records what the Go type of a scalar of this format cannot hold (a `decode` problem), if anything.
 */
export function checkDecode(w: Walk, value: unknown, format: DecodeFormat, place: Place): void {
  switch (format) {
    case 'int32':
    case 'int64':
      checkInteger(w, value, format, place);
      break;
    case 'quantity': {
      const reason = quantityError(String(value));
      if (reason !== undefined) refuse(w, place, reason);
      break;
    }
    case 'int-or-string':
      checkIntOrString(w, value, place);
      break;
    case 'byte':
      checkBytes(w, value, place);
      break;
    case 'date-time':
    case 'micro-time':
      checkTime(w, value, format === 'micro-time', place);
  }
}
