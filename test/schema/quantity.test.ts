// Kubernetes' Quantity grammar: k8s.io/apimachinery pkg/api/resource/quantity.go
// (parseQuantityString, ParseQuantity, ErrFormatWrong, ErrSuffix) and suffix.go (interpret).
import { describe, expect, test } from 'vitest';
import { QUANTITY_FORMAT, QUANTITY_SUFFIX, quantityError } from '../../src/schema/decode.ts';

describe('quantityError', () => {
  test.each(['0', '1', '500m', '1.5', '0.5Gi', '128Mi', '1e3', '1E-2', '+1', '-2k', '.5', '1.', 'Ki', ' 2 '])(
    '%j parses',
    (text) => {
      expect(quantityError(text)).toBeUndefined();
    },
  );

  test.each([
    ['1.5.2', QUANTITY_FORMAT],
    ['', QUANTITY_FORMAT],
    ['1Qi', QUANTITY_FORMAT],
    ['1ki', QUANTITY_SUFFIX],
    ['1e', QUANTITY_SUFFIX],
    ['1mi', QUANTITY_SUFFIX],
    ['1e99999999999999999999', QUANTITY_SUFFIX],
    ['true', QUANTITY_FORMAT],
    ['5%', QUANTITY_FORMAT],
    ['1 Gi', QUANTITY_FORMAT],
  ])('%j: %s', (text, reason) => {
    expect(quantityError(text)).toBe(reason);
  });
});
