// A Quantity field's value as kube-apiserver decodes it (resource.Quantity UnmarshalJSON trims it,
// then ParseQuantity reads it: src/util/quantity.ts), refused in apimachinery's words.
import { readQuantity } from '../util/quantity.ts';
import { QUANTITY_FORMAT, QUANTITY_SUFFIX } from './wording.ts';

/**
 * Why a Quantity string does not parse, in apimachinery's words, or `undefined` when it parses.
 * The text is what the server reads: a JSON string's content, or a JSON number's text.
 *
 * @example
 * quantityError('1.5.2'); // "quantities must match the regular expression '…'"
 * quantityError('500Mi'); // undefined
 */
export function quantityError(text: string): string | undefined {
  const read = readQuantity(text.trim());
  if (read === 'format') return QUANTITY_FORMAT;
  return read === 'suffix' ? QUANTITY_SUFFIX : undefined;
}
