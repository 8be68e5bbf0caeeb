// The protobuf reader against bytes kubectl v1.34 really sent (test/fixtures/kubectl-protobuf.json
// says how they were captured), and the wire format's edge cases.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decodeKubernetesProtobuf } from '../../../simulator/http/kube-protobuf.ts';
import { decodeMessage, ProtobufError, readFields, readVarint } from '../../../simulator/http/protobuf.ts';

const captured = JSON.parse(
  readFileSync(new URL('../../fixtures/kubectl-protobuf.json', import.meta.url), 'utf8'),
) as Record<'configmap' | 'secret' | 'selfSubjectAccessReview' | 'namespace' | 'serviceAccount', string>;
const bytes = (base64: string): Buffer => Buffer.from(base64, 'base64');
/** A length-delimited field: tag, length, payload (every length here fits one varint byte). */
const field = (number: number, payload: Uint8Array | string): Buffer => {
  const data = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
  return Buffer.concat([Buffer.from([(number << 3) | 2, data.length]), data]);
};
const envelope = (apiVersion: string, kind: string, raw: Uint8Array): Buffer =>
  Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    field(1, Buffer.concat([field(1, apiVersion), field(2, kind)])),
    field(2, raw),
  ]);

describe('what kubectl v1.34 sends', () => {
  test('create configmap --from-literal: the ConfigMap, with the empty strings Go writes left out', () => {
    expect(decodeKubernetesProtobuf(bytes(captured.configmap))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'workers' },
      data: { a: 'b' },
    });
  });

  test('create secret generic --from-literal: data as base64, as its JSON would carry it', () => {
    expect(decodeKubernetesProtobuf(bytes(captured.secret))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'workers' },
      data: { token: Buffer.from('s3cr3t').toString('base64') },
    });
  });

  test('auth can-i: the SelfSubjectAccessReview spec, without the status it also sends', () => {
    expect(decodeKubernetesProtobuf(bytes(captured.selfSubjectAccessReview))).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'workers', verb: 'delete', resource: 'configmaps' } },
    });
  });
});

describe('what kubectl v1.34 sends for namespaces and service accounts', () => {
  test('create namespace: an empty spec stays an object', () => {
    expect(decodeKubernetesProtobuf(bytes(captured.namespace))).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a' },
      spec: {},
    });
  });

  test('create serviceaccount; a false boolean (a pointer in Go, sent only when set) is kept', () => {
    expect(decodeKubernetesProtobuf(bytes(captured.serviceAccount))).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder', namespace: 'workers' },
    });
    const noToken = Buffer.concat([field(1, field(1, 'sa')), Buffer.from([0x20, 0x00])]);
    expect(decodeKubernetesProtobuf(envelope('v1', 'ServiceAccount', noToken))).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'sa' },
      automountServiceAccountToken: false,
    });
  });
});

describe('the wire format', () => {
  test('varints of one to ten bytes, up to 2^64 - 1', () => {
    expect(readVarint(Buffer.from([0x01]), 0)).toEqual({ value: 1n, next: 1 });
    expect(readVarint(Buffer.from([0xac, 0x02]), 0)).toEqual({ value: 300n, next: 2 });
    const max = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(readVarint(max, 0)).toEqual({ value: 2n ** 64n - 1n, next: 10 });
    expect(() => readVarint(Buffer.from([0x80]), 0)).toThrow(ProtobufError);
    expect(() => readVarint(Buffer.alloc(11, 0x80), 0)).toThrow('varint longer than 10 bytes');
  });

  test('fixed-width fields are stepped over; a field past the end and a group are refused', () => {
    const fixed = Buffer.from([0x09, 1, 0, 0, 0, 0, 0, 0, 0, 0x15, 2, 0, 0, 0]);
    expect(readFields(fixed).map((f) => [f.number, f.wireType, f.value])).toEqual([
      [1, 1, 1n],
      [2, 5, 2n],
    ]);
    expect(() => readFields(Buffer.from([0x0a, 0x05, 0x61]))).toThrow(
      'field runs past the end of the message',
    );
    expect(() => readFields(Buffer.from([0x0b]))).toThrow('unsupported wire type 3');
  });

  test('maps are repeated entries (key 1, value 2); an empty bytes value is kept; int64 is signed', () => {
    const message = Buffer.concat([
      field(2, Buffer.concat([field(1, 'a'), field(2, 'xy')])),
      field(2, field(1, 'empty')),
      Buffer.from([0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
    ]);
    expect(decodeMessage(message, { 2: ['data', { map: 'bytes' }], 3: ['n', 'int64'] })).toEqual({
      data: { a: Buffer.from('xy').toString('base64'), empty: '' },
      n: -1,
    });
  });

  test('a body without the k8s\\0 prefix is refused; a kind without a schema is left to the caller', () => {
    expect(() => decodeKubernetesProtobuf(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(ProtobufError);
    expect(decodeKubernetesProtobuf(envelope('v1', 'Pod', field(1, field(1, 'p'))))).toBeUndefined();
    expect(decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', field(1, field(1, 'c'))))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
    });
  });
});
