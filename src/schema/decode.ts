// What kube-apiserver refuses right after typing, while it converts the typed object into its Go
// types (built-in kinds only; sources and what is not checked: docs/typing.md).
import { base64Error } from './base64.ts';
import { quantityError } from './quantity.ts';
import type { DecodeFormat } from './table.ts';
import { goFieldOf, record, valueType, type Place, type Walk } from './walk.ts';
import {
  base64Reason,
  cannotConvertFraction,
  goFieldReason,
  goValueReason,
  illegalBase64,
  intOrStringReason,
} from './wording.ts';
import { timeError } from './timestamp.ts';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function checkInteger(w: Walk, value: unknown, width: 'int32' | 'int64', place: Place): void {
  if (typeof value === 'number' && !Number.isInteger(value)) {
    const goField = goFieldOf(place);
    record(w, 'decode', place, cannotConvertFraction(width), goFieldReason('number', goField, width));
  }
}

// intstr.go UnmarshalJSON: a string, else json.Unmarshal into an int32 (whole and in range).
function checkIntOrString(w: Walk, value: unknown, place: Place): void {
  if (typeof value === 'string') return;
  if (typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX)
    return;
  const reason = intOrStringReason(valueType(value));
  record(w, 'decode', place, reason, reason);
}

// sliceFromUnstructured: the string through encoding/json into a []byte, which base64-decodes it.
function checkBytes(w: Walk, value: unknown, place: Place): void {
  if (typeof value !== 'string') return;
  const at = base64Error(value);
  if (at !== undefined) record(w, 'decode', place, base64Reason(at), illegalBase64(at));
}

// metav1.Time and MicroTime UnmarshalJSON: a JSON string that time.Parse takes.
function checkTime(w: Walk, value: unknown, micro: boolean, place: Place): void {
  if (typeof value !== 'string') {
    const reason = goValueReason(valueType(value), 'string');
    record(w, 'decode', place, reason, reason);
    return;
  }
  const reason = timeError(value, micro);
  if (reason !== undefined) record(w, 'decode', place, reason, reason);
}

/**
 * Records what the Go type of a scalar of this format cannot hold (a `decode` problem), if anything.
 *
 * @example
 * checkDecode(walk, 'hunter2!', 'byte', place);
 * walk.decodeProblems[0]?.reason; // 'error decoding from json: illegal base64 data at input byte 7'
 */
export function checkDecode(w: Walk, value: unknown, format: DecodeFormat, place: Place): void {
  switch (format) {
    case 'int32':
    case 'int64':
      checkInteger(w, value, format, place);
      break;
    case 'quantity': {
      const reason = quantityError(String(value));
      if (reason !== undefined) record(w, 'decode', place, reason, reason);
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
