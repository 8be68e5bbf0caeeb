// Path elements as the server prints them: structured-merge-diff fieldpath/element.go
// (PathElement.String) with value/value.go (ToString: Go's %q for strings, %v for numbers), and
// sigs.k8s.io/json internal/golang/encoding/json/kubernetes_patch.go for strict-decoding paths.
import { describe, expect, test } from 'vitest';
import {
  fieldElement,
  goQuote,
  indexElement,
  keyElement,
  smdValue,
  strictField,
  strictIndex,
  valueElement,
} from '../../src/schema/paths.ts';

describe('structured-merge-diff path elements', () => {
  test('a field, an index, a set value, keys sorted by name', () => {
    expect(fieldElement('spec')).toBe('.spec');
    expect(indexElement(3)).toBe('[3]');
    expect(valueElement('a')).toBe('[="a"]');
    expect(
      keyElement([
        ['protocol', 'TCP'],
        ['containerPort', 80],
      ]),
    ).toBe('[containerPort=80,protocol="TCP"]');
  });

  test('values: Go-quoted strings, bare numbers and booleans, null', () => {
    expect(smdValue('a"b\\c\nd\te\u0001')).toBe('"a\\"b\\\\c\\nd\\te\\x01"');
    expect(smdValue('é')).toBe('"é"');
    expect([smdValue(80), smdValue(1.5), smdValue(0.00001), smdValue(1234567.5)]).toEqual([
      '80',
      '1.5',
      '1e-05',
      '1.2345675e+06',
    ]);
    expect([smdValue(true), smdValue(null)]).toEqual(['true', 'null']);
  });

  test('Go quoting matches strconv.Quote for the characters JSON carries', () => {
    expect(goQuote('plain')).toBe('"plain"');
    expect(goQuote('\r\u007f')).toBe('"\\r\\x7f"');
    expect(goQuote('\u0007\v')).toBe('"\\a\\v"');
    // Not printable for Go's unicode.IsPrint: a no-break space, a zero-width space, private use.
    expect(goQuote('\u00a0\u200b\ue000\u{f0000}')).toBe('"\\u00a0\\u200b\\ue000\\U000f0000"');
    expect(goQuote('日本😀')).toBe('"日本😀"');
    expect(goQuote('\ud800')).toBe('"\ufffd"');
  });
});

describe('strict-decoding paths', () => {
  test('fields joined by dots without a leading one, elements by index', () => {
    expect(strictIndex(strictField(strictField('', 'spec'), 'containers'), 0)).toBe('spec.containers[0]');
    expect(strictField('spec.containers[0]', 'capabilities')).toBe('spec.containers[0].capabilities');
  });
});
