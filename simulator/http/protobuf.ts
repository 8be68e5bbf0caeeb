// A small reader of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/):
// enough to turn the messages kubectl sends into plain objects, driven by a schema of field numbers.
// Varints, length-delimited fields (strings, bytes, embedded messages, map entries) and the fixed
// widths are read; groups (wire types 3 and 4, deprecated) are refused.

/** Why a body could not be read as protobuf; the server answers 400 with this text. */
export class ProtobufError extends Error {}

/** One field as it came off the wire, before a schema gives it meaning. */
export interface WireField {
  number: number;
  /** 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
  wireType: 0 | 1 | 2 | 5;
  /** The varint's value, or the fixed-width value as unsigned. */
  value: bigint;
  /** The payload of a length-delimited field; empty otherwise. */
  bytes: Uint8Array;
}

/** Reads a base-128 varint at `offset`: its value (up to 64 bits) and the offset after it. */
export function readVarint(buffer: Uint8Array, offset: number): { value: bigint; next: number } {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    const byte = buffer[offset + i];
    if (byte === undefined) throw new ProtobufError('truncated varint');
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return { value: BigInt.asUintN(64, value), next: offset + i + 1 };
  }
  throw new ProtobufError('varint longer than 10 bytes');
}

function take(buffer: Uint8Array, offset: number, length: number): Uint8Array {
  if (offset + length > buffer.length) throw new ProtobufError('field runs past the end of the message');
  return buffer.subarray(offset, offset + length);
}

function fixed(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] ?? 0);
  return value;
}

/** Splits one message into its fields, in wire order (a repeated field appears once per element). */
export function readFields(buffer: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const tag = readVarint(buffer, offset);
    offset = tag.next;
    const number = Number(tag.value >> 3n);
    const wireType = Number(tag.value & 7n);
    if (number === 0) throw new ProtobufError('field number 0');
    if (wireType === 0) {
      const varint = readVarint(buffer, offset);
      offset = varint.next;
      fields.push({ number, wireType, value: varint.value, bytes: new Uint8Array() });
    } else if (wireType === 2) {
      const length = readVarint(buffer, offset);
      const bytes = take(buffer, length.next, Number(length.value));
      offset = length.next + bytes.length;
      fields.push({ number, wireType, value: BigInt(bytes.length), bytes });
    } else if (wireType === 1 || wireType === 5) {
      const bytes = take(buffer, offset, wireType === 1 ? 8 : 4);
      offset += bytes.length;
      fields.push({ number, wireType, value: fixed(bytes), bytes: new Uint8Array() });
    } else {
      throw new ProtobufError(`unsupported wire type ${wireType} for field ${number}`);
    }
  }
  return fields;
}

/**
 * How to read one field: a scalar, an embedded message, or a map (on the wire, a repeated entry
 * message with the key as field 1 and the value as field 2).
 */
export type FieldType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int64'
  | { message: Schema }
  | { map: 'string' | 'bytes' }
  | { repeated: 'string' | Schema };

/** Field number → JSON name and type, as a `generated.proto` declares them. */
export type Schema = Readonly<Record<number, readonly [name: string, type: FieldType]>>;

export type Decoded = null | boolean | number | string | Decoded[] | { [key: string]: Decoded };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new ProtobufError('a string field is not valid UTF-8', { cause: error });
  }
}

function expectWireType(field: WireField, wireType: WireField['wireType'], name: string): void {
  if (field.wireType !== wireType) {
    throw new ProtobufError(
      `field ${name} (${field.number}) has wire type ${field.wireType}, not ${wireType}`,
    );
  }
}

function scalar(field: WireField, type: 'string' | 'bytes' | 'bool' | 'int64', name: string): Decoded {
  if (type === 'bool' || type === 'int64') {
    expectWireType(field, 0, name);
    return type === 'bool' ? field.value !== 0n : Number(BigInt.asIntN(64, field.value));
  }
  expectWireType(field, 2, name);
  // JSON carries bytes as base64, which is what the API server's JSON encoding of []byte is.
  return type === 'bytes' ? Buffer.from(field.bytes).toString('base64') : text(field.bytes);
}

function mapEntry(field: WireField, valueType: 'string' | 'bytes', name: string): [string, Decoded] {
  expectWireType(field, 2, name);
  let key = '';
  let value: Decoded = '';
  for (const part of readFields(field.bytes)) {
    if (part.number === 1) key = scalar(part, 'string', `${name} key`) as string;
    else if (part.number === 2) value = scalar(part, valueType, `${name} value`);
  }
  return [key, value];
}

/**
 * Decodes one message by `schema` into the object its JSON encoding would be. Fields the schema does
 * not name are skipped, as a proto2 reader skips unknown fields.
 */
export function decodeMessage(buffer: Uint8Array, schema: Schema): Record<string, Decoded> {
  const out: Record<string, Decoded> = {};
  for (const field of readFields(buffer)) {
    const entry = schema[field.number];
    if (!entry) continue;
    const [name, type] = entry;
    if (typeof type === 'string') {
      // Go's generated marshallers write every string and integer field, empty or not; the JSON
      // encoding of the kinds read here omits empty ones (`omitempty`), so those read as absent. The
      // booleans read here are pointers, written only when set: a false on the wire means false.
      const value = scalar(field, type, name);
      if (value !== '' && value !== 0) out[name] = value;
    } else if ('message' in type) {
      expectWireType(field, 2, name);
      out[name] = decodeMessage(field.bytes, type.message);
    } else if ('map' in type) {
      const map = (out[name] ?? {}) as Record<string, Decoded>;
      const [key, value] = mapEntry(field, type.map, name);
      map[key] = value;
      out[name] = map;
    } else {
      const list = (out[name] ?? []) as Decoded[];
      expectWireType(field, 2, name);
      list.push(type.repeated === 'string' ? text(field.bytes) : decodeMessage(field.bytes, type.repeated));
      out[name] = list;
    }
  }
  return out;
}
