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

/** encoding/json's names of the JSON types typing names otherwise. */
const GO_JSON_TYPE: Partial<Record<ValueType, string>> = { boolean: 'bool', map: 'object', list: 'array' };

/**
 * encoding/json's UnmarshalTypeError without the literal: into a struct field where `goField`
 * (`Struct.field.path`) is given, else into a plain Go value (metav1.Time's string, IntOrString's int32).
 */
export function unmarshalReason(got: ValueType, goType: string, goField?: string): string {
  const into = goField === undefined ? 'Go value' : `Go struct field ${goField}`;
  return `json: cannot unmarshal ${GO_JSON_TYPE[got] ?? got} into ${into} of type ${goType}`;
}

/**
 * What the Go type of a scalar of this format cannot hold: one reason, or the reasons for an
 * apply and for a create or update body where they differ.
 */
function refusal(value: unknown, format: DecodeFormat, place: Place): string | [string, string] | undefined {
  switch (format) {
    case 'int32':
    case 'int64':
      // runtime/converter.go fromUnstructured for an apply; encoding/json for a create body.
      if (typeof value !== 'number' || Number.isInteger(value)) return undefined;
      return [`cannot convert float64 to ${format}`, unmarshalReason('number', format, goFieldOf(place))];
    case 'quantity':
      return quantityError(String(value));
    case 'int-or-string': {
      // intstr.go UnmarshalJSON: a string, else json.Unmarshal into an int32 (whole and in range).
      if (typeof value === 'string') return undefined;
      const int32 =
        typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
      return int32 ? undefined : unmarshalReason(valueType(value), 'int32');
    }
    case 'byte': {
      // sliceFromUnstructured: the string through encoding/json into a []byte, which base64-decodes
      // it; encoding/base64 CorruptInputError, which runtime/converter.go wraps for an apply.
      const at = typeof value === 'string' ? base64Error(value) : undefined;
      if (at === undefined) return undefined;
      const illegal = `illegal base64 data at input byte ${at}`;
      return [`error decoding from json: ${illegal}`, illegal];
    }
    case 'date-time':
    case 'micro-time':
      // metav1.Time and MicroTime UnmarshalJSON: a JSON string that time.Parse takes.
      if (typeof value === 'string') return timeError(value, format === 'micro-time');
      return unmarshalReason(valueType(value), 'string');
  }
}

/** Records what the Go type of a scalar of this format cannot hold (a `decode` problem), if anything. */
export function checkDecode(w: Walk, value: unknown, format: DecodeFormat, place: Place): void {
  const reason = refusal(value, format, place);
  if (reason === undefined) return;
  const [apply, create] = typeof reason === 'string' ? [reason, reason] : reason;
  record(w, 'decode', place, apply, create);
}
