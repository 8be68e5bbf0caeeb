// The compact type table: what typing needs from an OpenAPI v3 document, as plain JSON so it can
// be cached and shared. A type may be a scalar, a map and a list at once (structured-merge-diff's Atom).

/** The scalar kinds of structured-merge-diff (`schema.Scalar`); `untyped` takes any scalar. */
export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'untyped';

/** What the server checks when it decodes a typed value into its Go types (built-in kinds only). */
export type DecodeFormat =
  'int32' | 'int64' | 'quantity' | 'int-or-string' | 'byte' | 'date-time' | 'micro-time';

/** A JSON scalar, as a key field's default value. */
export type JsonScalar = string | number | boolean | null;

/** A reference to a type: a name in {@link TypeTable.types}, or the type written inline. */
export type TypeRef = string | TypeDef;

/** An object schema: declared fields, and the type of any other key when others are allowed. */
export interface MapDef {
  fields?: Record<string, TypeRef>;
  /** The type of every key not in `fields`; absent means such keys are not declared. */
  elements?: TypeRef;
  mapType?: 'atomic' | 'granular';
  preserveUnknown?: true;
  embedded?: true;
  /** Scalar defaults of fields that serve as keys of a keyed list (used for absent keys). */
  keyDefaults?: Record<string, JsonScalar>;
}

/** An array schema: its element type and how elements are identified. */
export interface ListDef {
  elements: TypeRef;
  listType: 'atomic' | 'set' | 'map';
  keys?: string[];
}

/** One type: any combination of a scalar, a map and a list (structured-merge-diff's Atom). */
export interface TypeDef {
  scalar?: ScalarKind;
  format?: DecodeFormat;
  map?: MapDef;
  list?: ListDef;
}

/** A compact type table: named types and the type name of each kind. */
export interface TypeTable {
  types: Record<string, TypeDef>;
  /** Type name per kind, keyed by {@link kindKey}. */
  kinds: Record<string, string>;
}

/** The reserved name of the type that accepts anything; never stored in a table. */
export const UNTYPED = '__untyped_';

/** The type {@link UNTYPED} stands for: any scalar, a map or a list of anything (schemaconv's `__untyped_deduced_`). */
export const UNTYPED_DEF: TypeDef = {
  scalar: 'untyped',
  map: { elements: UNTYPED },
  list: { elements: UNTYPED, listType: 'atomic' },
};

/** The definition name of ObjectMeta in the documents kube-apiserver publishes. */
export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The key of a kind in {@link TypeTable.kinds}: the object's own `apiVersion` and `kind`.
 */
export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}
