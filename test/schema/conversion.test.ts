// What kube-apiserver refuses while it converts a typed built-in object into its Go type, beyond
// fractions and Quantities: base64 in `format: byte` fields, an IntOrString
// beyond int32, Time and MicroTime values that Go's time.Parse does not take. The fields are found
// by their formats in kube-apiserver 1.34's published v1 document, as the simulator serves it.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { compactTypes } from '../../src/schema/compact.ts';
import { typeObject, type TypingResult } from '../../src/schema/typing.ts';
import { applyRefusal } from '../../simulator/objects/refusals.ts';
import { base64Error } from '../../src/schema/base64.ts';
import { timeError } from '../../src/schema/timestamp.ts';
import { appsV1, deployment } from './tables.ts';

type Json = Record<string, unknown>;

const coreV1 = compactTypes(
  JSON.parse(
    gunzipSync(
      readFileSync(new URL('../../simulator/discovery/openapi/data/api_v1.json.gz', import.meta.url)),
    ).toString('utf8'),
  ),
);

function decoded(object: Json, decode = true): string[] {
  const result: TypingResult = typeObject(coreV1, object, { decode });
  expect(result.problems).toEqual([]);
  return result.decodeProblems.map((p) => `${p.path}: ${p.reason}`);
}

const secret = (more: Json): Json => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, ...more });

describe('format: byte (Secret.data, ConfigMap.binaryData): standard base64 with padding', () => {
  test('plain text in Secret.data, the common mistake, is refused where Go stops reading', () => {
    expect(decoded(secret({ data: { password: 'hunter2!' } }))).toEqual([
      '.data.password: error decoding from json: illegal base64 data at input byte 7',
    ]);
  });

  test('wrapped base64 decodes (\\r and \\n are skipped); missing padding and URL-safe letters do not', () => {
    expect(decoded(secret({ data: { pem: 'aGVs\nbG8g\r\nd29y\nbGQ=\n', empty: '', none: null } }))).toEqual(
      [],
    );
    expect(
      decoded({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c' },
        binaryData: { short: 'aGVsbG8', urlsafe: 'a-_b' },
      }),
    ).toEqual([
      '.binaryData.short: error decoding from json: illegal base64 data at input byte 4',
      '.binaryData.urlsafe: error decoding from json: illegal base64 data at input byte 1',
    ]);
  });

  test('the refusal names the offset, never the value, in the 500 kube-apiserver answers', () => {
    const object = secret({ metadata: { name: 's', namespace: 'demo' }, data: { token: 'not base64' } });
    const refusal = applyRefusal(
      { apiVersion: 'v1', kind: 'Secret', namespace: 'demo', name: 's' },
      typeObject(coreV1, object, { decode: true }),
    );
    expect(refusal).toBe(
      'failed to convert new object (demo/s; /v1, Kind=Secret) to proper version: ' +
        'unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 3',
    );
  });

  test('matches encoding/base64 StdEncoding.Decode at the edges', () => {
    expect(['aGVsbG8=', 'aGVsbA==', 'ab==\n', 'ab=\n=', '', 'a\r\nb\nc\nd'].map(base64Error)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(['a', 'a===', 'ab=', 'ab=x', 'abc=x', 'ab==x', '=', 'é'].map(base64Error)).toEqual([
      0, 1, 3, 2, 4, 4, 0, 0,
    ]);
  });
});

describe('IntOrString beyond int32', () => {
  test('a port or a surge beyond int32 is refused; a plain int32 field takes an overflow silently', () => {
    const object = deployment();
    const spec = object.spec as Json;
    spec.replicas = 3_000_000_000;
    spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2_147_483_648, maxUnavailable: -1 } };
    const result = typeObject(appsV1, object, { decode: true });
    expect(result.problems).toEqual([]);
    expect(result.decodeProblems.map((p) => `${p.path}: ${p.reason}`)).toEqual([
      '.spec.strategy.rollingUpdate.maxSurge: json: cannot unmarshal number into Go value of type int32',
    ]);
  });
});

describe('format: date-time (metav1.Time: RFC 3339; MicroTime: RFC3339Micro)', () => {
  const configMap = (metadata: Json): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata });

  test('creationTimestamp "2024-01-01" is refused; a full timestamp and null are not', () => {
    expect(decoded(configMap({ name: 'c', creationTimestamp: '2024-01-01' }))).toEqual([
      '.metadata.creationTimestamp: parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "T"',
    ]);
    expect(decoded(configMap({ name: 'c', creationTimestamp: '2024-01-01T10:00:00+02:00' }))).toEqual([]);
    expect(decoded(configMap({ name: 'c', creationTimestamp: null }))).toEqual([]);
  });

  test('a number, an empty string, a day out of range', () => {
    expect(decoded(configMap({ name: 'c', creationTimestamp: 1704067200, deletionTimestamp: '' }))).toEqual([
      '.metadata.creationTimestamp: json: cannot unmarshal number into Go value of type string',
      '.metadata.deletionTimestamp: parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "2006"',
    ]);
    expect(decoded(configMap({ name: 'c', creationTimestamp: '2023-02-29T00:00:00Z' }))).toEqual([
      '.metadata.creationTimestamp: parsing time: day out of range',
    ]);
  });

  test("an Event's eventTime is a MicroTime: six fraction digits exactly", () => {
    const event = (eventTime: string): Json => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: {},
      eventTime,
      lastTimestamp: eventTime,
    });
    expect(decoded(event('2024-01-01T10:00:00.123456Z'))).toEqual([]);
    expect(decoded(event('2024-01-01T10:00:00Z'))).toEqual([
      '.eventTime: parsing time as "2006-01-02T15:04:05.000000Z07:00": cannot parse as ".000000"',
    ]);
  });

  test("Go's parser takes more than RFC 3339 strictly: a one-digit hour, a comma, nine digits", () => {
    expect(timeError('2024-01-01T1:00:00Z', false)).toBeUndefined();
    expect(timeError('2024-01-01T10:00:00,123456789Z', false)).toBeUndefined();
    expect(timeError('2024-01-01T10:00:00+24:00', false)).toBeUndefined();
    expect(timeError('2024-01-01t10:00:00z', false)).toBe(
      'parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "T"',
    );
    expect(timeError('2024-01-01T10:00:00Z ', false)).toBe('parsing time: extra text');
    expect(timeError('2024-13-01T10:00:00Z', false)).toBe('parsing time: month out of range');
  });

  test('a custom resource is not decoded into Go types: nothing is checked', () => {
    expect(decoded(secret({ data: { password: 'plain' } }), false)).toEqual([]);
  });
});
