// A Quantity field's value as kube-apiserver decodes it (src/util/quantity.ts), refused in its words.
import { readQuantity } from '../util/quantity.ts';
import { QUANTITY_FORMAT, QUANTITY_SUFFIX } from './wording.ts';

/**
 * Why a Quantity string (a JSON string's content or a number's text) does not parse, or `undefined`.
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
