// Seeded mutations of rendered objects for the typing differential (typing-differential.test.ts):
// the places of an object its schema gives a type to, and one mutation of one class at one of them.
// Every choice comes from one seeded generator, so a run names the same cases every time.
import {
  UNTYPED,
  type DecodeFormat,
  type MapDef,
  type TypeDef,
  type TypeRef,
  type TypeTable,
} from '../../src/schema/table.ts';

export const CLASSES = [
  'wrong-type',
  'undeclared',
  'keyed-list',
  'int-or-string',
  'quantity',
  'base64',
  'timestamp',
  'server-set',
] as const;
export type MutationClass = (typeof CLASSES)[number];

export type Json = Record<string, unknown>;
export type At = (string | number)[];

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

const UNTYPED_DEF: TypeDef = {
  scalar: 'untyped',
  map: { elements: UNTYPED },
  list: { elements: UNTYPED, listType: 'atomic' },
};

function defOf(table: TypeTable, ref: TypeRef): TypeDef | undefined {
  if (typeof ref !== 'string') return ref;
  return ref === UNTYPED ? UNTYPED_DEF : table.types[ref];
}

const isMap = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A place of the object and the type its schema gives it. */
export type Slot =
  | { kind: 'map'; at: At; map: MapDef }
  | { kind: 'list'; at: At; def: TypeDef; value: unknown[] }
  | { kind: 'scalar'; at: At; def: TypeDef; value: unknown }
  /** A field (or a key of a map of such values) the object does not have, of a checked format. */
  | { kind: 'absent'; at: At; format: DecodeFormat };

const CHECKED: readonly DecodeFormat[] = ['quantity', 'int-or-string', 'byte', 'date-time', 'micro-time'];

/** A key for a new entry of a map whose values all have one format: one the server's checks accept. */
const ELEMENT_KEY: Partial<Record<DecodeFormat, string>> = { quantity: 'memory', byte: 'extra-key' };

function absent(table: TypeTable, at: At, ref: TypeRef, depth: number, out: Slot[]): void {
  const def = defOf(table, ref);
  if (def === undefined) return;
  if (def.format !== undefined && CHECKED.includes(def.format)) {
    out.push({ kind: 'absent', at, format: def.format });
    return;
  }
  if (def.map === undefined || depth >= 2) return;
  for (const [key, child] of Object.entries(def.map.fields ?? {}))
    absent(table, [...at, key], child, depth + 1, out);
  const elements = def.map.elements === undefined ? undefined : defOf(table, def.map.elements);
  const key = elements?.format === undefined ? undefined : ELEMENT_KEY[elements.format];
  if (elements?.format !== undefined && key !== undefined)
    out.push({ kind: 'absent', at: [...at, key], format: elements.format });
}

/** Every typed place of the value (and the checked-format fields it could have), depth first. */
export function slotsOf(
  table: TypeTable,
  value: unknown,
  ref: TypeRef,
  at: At = [],
  out: Slot[] = [],
): Slot[] {
  const def = defOf(table, ref);
  if (def === undefined || value === undefined) return out;
  // A null stands for the field's absence (creationTimestamp: null, as `oc get` printed it).
  if (value === null) {
    if (def.format !== undefined && CHECKED.includes(def.format))
      out.push({ kind: 'absent', at, format: def.format });
    return out;
  }
  if (isMap(value) && def.map !== undefined) {
    out.push({ kind: 'map', at, map: def.map });
    for (const [key, child] of Object.entries(value)) {
      const childRef = def.map.fields?.[key] ?? def.map.elements;
      if (childRef !== undefined) slotsOf(table, child, childRef, [...at, key], out);
    }
    for (const [key, child] of Object.entries(def.map.fields ?? {}))
      if (!Object.hasOwn(value, key)) absent(table, [...at, key], child, 0, out);
    const elements = def.map.elements === undefined ? undefined : defOf(table, def.map.elements);
    const key = elements?.format === undefined ? undefined : ELEMENT_KEY[elements.format];
    if (key !== undefined && elements?.format !== undefined && !Object.hasOwn(value, key))
      out.push({ kind: 'absent', at: [...at, key], format: elements.format });
  } else if (Array.isArray(value) && def.list !== undefined) {
    out.push({ kind: 'list', at, def, value });
    value.forEach((item: unknown, i) => slotsOf(table, item, def.list?.elements ?? UNTYPED, [...at, i], out));
  } else if (!isMap(value) && !Array.isArray(value)) {
    out.push({ kind: 'scalar', at, def, value });
  }
  return out;
}

function get(object: unknown, at: At): unknown {
  let value = object;
  for (const step of at) value = (value as Record<string | number, unknown> | undefined)?.[step];
  return value;
}

/** Sets the value at `at` on the (cloned) object, making the maps on the way. */
function set(object: Json, at: At, value: unknown): void {
  let node: Record<string | number, unknown> = object;
  for (const [i, step] of at.entries()) {
    if (i === at.length - 1) {
      node[step] = value;
      return;
    }
    const next = node[step];
    if (typeof next !== 'object' || next === null) node[step] = {};
    node = node[step] as Record<string | number, unknown>;
  }
}

/** One case: the mutated object and what was done where. */
export interface Mutation {
  class: MutationClass;
  /** What was done, as `what at .path`: the case's name in the report. */
  what: string;
  object: Json;
}

// Identity fields, whose change makes a different request, not a different body; and the maps
// create() writes its owner label into, which it replaces when they are not maps.
const IDENTITY = /^(apiVersion|kind|metadata(\.(name|namespace|labels))?)$/;
const dotted = (at: At): string => at.map(String).join('.');
const show = (at: At): string => `.${dotted(at)}`;

const OTHER_TYPE: Record<string, unknown[]> = {
  string: [42, true, { a: 'b' }, ['x'], null],
  number: ['7', true, 1.5, { a: 1 }, 2147483648, -1e20],
  boolean: ['true', 1, ['x']],
  map: ['text', 3, ['x'], null],
  list: ['text', 3, { a: 'b' }, null],
};

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  return isMap(value) ? 'map' : typeof value;
}

// Names an undeclared field could have: one that looks like a real field, one that is a near miss.
const NEW_FIELDS = ['extraField', 'zz-unknown', 'Spec', 'replica', 'x_y'];
const NEW_VALUES: unknown[] = ['v', 3, true, { nested: 'v' }, ['v'], null];

const VALUES: Record<string, unknown[]> = {
  'int-or-string': [8080, '8080', 'http', '25%', 1.5, true, -1, 2147483648, '', { a: 1 }, ['x'], 0],
  quantity: [
    '1',
    '500m',
    '1.5Gi',
    '1e3',
    '2Ki',
    '0.5',
    1,
    0.25,
    'abc',
    '12x',
    '',
    '+1',
    '1E',
    '1e',
    '0x10',
    '1.2.3',
    'Mi',
    ' 1',
    '1Mi ',
    '9223372036854775807Ki',
    '1e400',
    true,
    '.5',
    '5.',
    '1ki',
  ],
  byte: [
    'aGVsbG8=',
    'aGVsbG8',
    'not base64!',
    'aGVs\nbG8=',
    '-_-_',
    '',
    '====',
    'a',
    'aGVsbG8==',
    'YQ',
    5,
    true,
  ],
  'date-time': [
    '2024-01-02T03:04:05Z',
    '2024-01-02T03:04:05.123Z',
    '2024-01-02T03:04:05+01:00',
    '2024-01-02',
    '2024-01-02 03:04:05Z',
    'not a time',
    '',
    0,
    true,
    '2024-13-01T00:00:00Z',
    '2024-01-02T03:04:05z',
    '2024-02-30T00:00:00Z',
    '2024-01-02T24:00:00Z',
    '2024-01-02T03:04:05.999999999999Z',
    '10000-01-01T00:00:00Z',
    '2024-01-02t03:04:05Z',
    '2024-01-02T03:04:05-00:00',
    '2024-01-02T3:04:05Z',
    '2024-01-02T03:04:05+0100',
    '2024-01-02T03:04:05+24:00',
    '2024-01-02T03:04:05,5Z',
    '2024-01-02T03:04:05.Z',
    '2024-1-2T3:4:5Z',
  ],
};
VALUES['micro-time'] = VALUES['date-time'] ?? [];

const FORMAT_OF: Partial<Record<MutationClass, readonly DecodeFormat[]>> = {
  'int-or-string': ['int-or-string'],
  quantity: ['quantity'],
  base64: ['byte'],
  timestamp: ['date-time', 'micro-time'],
};

function formatOf(slot: Slot): DecodeFormat | undefined {
  if (slot.kind === 'absent') return slot.format;
  return slot.kind === 'scalar' ? slot.def.format : undefined;
}

/** The slots a class can mutate. */
export function candidates(cls: MutationClass, slots: readonly Slot[]): Slot[] {
  const formats = FORMAT_OF[cls];
  if (formats !== undefined)
    return slots.filter((s) => {
      const format = formatOf(s);
      return format !== undefined && formats.includes(format);
    });
  switch (cls) {
    case 'wrong-type':
      return slots.filter((s) => s.kind !== 'absent' && s.at.length > 0 && !IDENTITY.test(dotted(s.at)));
    case 'undeclared':
      return slots.filter((s) => s.kind === 'map');
    case 'keyed-list':
      return slots.filter(
        (s) => s.kind === 'list' && s.def.list?.listType !== 'atomic' && s.value.length > 0,
      );
    default:
      return slots.filter((s) => s.kind === 'map' && s.at.length === 0);
  }
}

function keyedList(random: () => number, object: Json, slot: Slot & { kind: 'list' }): string {
  const list = [...slot.value];
  const i = Math.floor(random() * list.length);
  const element = list[i];
  const keys = slot.def.list?.keys ?? [];
  const at = show(slot.at);
  const choices = ['duplicate', 'non-map', 'null', 'wrong-key-type', 'omit-keys', 'new-element'] as const;
  const choice = pick(random, isMap(element) && keys.length > 0 ? choices : choices.slice(0, 3));
  const key = keys[0] ?? '';
  if (choice === 'duplicate') list.push(structuredClone(element));
  else if (choice === 'non-map') list.push(isMap(element) ? 'text' : { a: 'b' });
  else if (choice === 'null') list.splice(i, 0, null);
  else if (isMap(element) && choice === 'wrong-key-type') list[i] = { ...element, [key]: 12 };
  else if (isMap(element) && choice === 'omit-keys')
    list[i] = Object.fromEntries(Object.entries(element).filter(([k]) => !keys.includes(k)));
  else if (isMap(element)) {
    const value = element[key];
    list.push({
      ...structuredClone(element),
      [key]: typeof value === 'number' ? value + 1 : `${String(value)}-b`,
    });
  }
  set(object, slot.at, list);
  return `${choice} in ${at}[${i}]`;
}

/** One mutation of the class at a slot the generator picks; `undefined` when the object has none. */
export function mutate(
  random: () => number,
  cls: MutationClass,
  base: Json,
  slots: readonly Slot[],
): Mutation | undefined {
  const places = candidates(cls, slots);
  if (places.length === 0) return undefined;
  const slot = pick(random, places);
  const object = structuredClone(base);
  const value = slot.kind === 'absent' ? undefined : get(base, slot.at);
  let what: string;
  switch (cls) {
    case 'wrong-type': {
      const replacement = pick(random, OTHER_TYPE[typeName(value)] ?? ['text']);
      set(object, slot.at, replacement);
      what = `${typeName(value)} → ${JSON.stringify(replacement)} at ${show(slot.at)}`;
      break;
    }
    case 'undeclared': {
      const at = [...slot.at, pick(random, NEW_FIELDS)];
      set(object, at, pick(random, NEW_VALUES));
      what = `new field ${show(at)} (depth ${at.length})`;
      break;
    }
    case 'keyed-list':
      what = keyedList(random, object, slot as Slot & { kind: 'list' });
      break;
    case 'server-set': {
      const field = pick(random, ['uid', 'resourceVersion', 'managedFields']);
      const values: Record<string, unknown> = {
        uid: '0b6f2f55-5e5c-4c1c-9b1e-3f6a1a9b7d01',
        resourceVersion: '12345',
        managedFields: [
          {
            manager: 'other',
            operation: 'Apply',
            apiVersion: String(base.apiVersion),
            fieldsType: 'FieldsV1',
            fieldsV1: {},
          },
        ],
      };
      set(object, ['metadata', field], values[field]);
      what = `.metadata.${field} set`;
      break;
    }
    default: {
      const format = formatOf(slot) ?? 'byte';
      const replacement = pick(random, VALUES[format] ?? []);
      set(object, slot.at, replacement);
      what = `${format} ${JSON.stringify(replacement)} at ${show(slot.at)}`;
    }
  }
  return { class: cls, what, object };
}
