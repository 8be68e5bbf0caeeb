// Field paths and field sets as structured-merge-diff keeps them (sigs.k8s.io/structured-merge-diff
// v6 `fieldpath/`): a path is a list of path elements, each in the form FieldsV1 writes it
// (`fieldpath/serialize-pe.go`): `f:name` for a field, `k:{"name":"main"}` for the item of a keyed
// list (its key fields sorted by name), `v:"x"` for the item of a set. A set is its member paths; a
// path that is a member and has members below it is written with a `.` entry (`serialize.go`).
import { keyElement, valueElement } from '../../src/schema/paths.ts';
import { isObject, type Json, type JsonObject } from './fields.ts';

export type Path = readonly string[];

export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** The element of a keyed list's item: its key fields by name, as one JSON object. */
export function keyedElement(fields: readonly (readonly [string, Json])[]): string {
  const sorted = [...fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `k:${JSON.stringify(Object.fromEntries(sorted))}`;
}

export function setElement(value: Json): string {
  return `v:${JSON.stringify(value)}`;
}

/** The field name of an `f:` element, or `undefined` for a list item's element. */
export function fieldName(element: string): string | undefined {
  return element.startsWith('f:') ? element.slice(2) : undefined;
}

/** A path as one string, for sets: elements never hold a NUL (names and keys are JSON text). */
export function pathKey(path: Path): string {
  return path.join('\u0000');
}

/** A path as structured-merge-diff prints it in a conflict: `.spec.ports[port=80,protocol="TCP"]`. */
export function pathText(path: Path): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      if (element.startsWith('f:')) return `.${body}`;
      if (element.startsWith('k:')) return keyElement(Object.entries(JSON.parse(body) as JsonObject));
      return valueElement(JSON.parse(body) as Json);
    })
    .join('');
}

/** The paths of `a` that `b` does not have, and so on: sets as lists of distinct paths. */
export function union(...sets: (readonly Path[])[]): Path[] {
  return [...new Map(sets.flat().map((p) => [pathKey(p), p])).values()];
}

export function difference(a: readonly Path[], b: readonly Path[]): Path[] {
  const drop = new Set(b.map(pathKey));
  return a.filter((p) => !drop.has(pathKey(p)));
}

export function intersection(a: readonly Path[], b: readonly Path[]): Path[] {
  const keep = new Set(b.map(pathKey));
  return a.filter((p) => keep.has(pathKey(p)));
}

export function sameSet(a: readonly Path[], b: readonly Path[]): boolean {
  return a.length === b.length && difference(a, b).length === 0;
}

/** The members of `set` below `element`, without it: what a walk takes into that child. */
export function below(set: readonly Path[], element: string): Path[] {
  return set.filter((p) => p.length > 1 && p[0] === element).map((p) => p.slice(1));
}

export function hasMember(set: readonly Path[], element: string): boolean {
  return set.some((p) => p.length === 1 && p[0] === element);
}

/** A set as a tree: each element once, marked where a path of the set ends. */
export interface SetNode {
  member: boolean;
  children: Map<string, SetNode>;
}

// serialize.go: a member with children writes its own `.` entry before them.
function written(node: SetNode): JsonObject {
  const out: JsonObject = node.member && node.children.size > 0 ? { '.': {} } : {};
  for (const [element, child] of node.children) out[element] = written(child);
  return out;
}

export function setTree(paths: readonly Path[]): SetNode {
  const root: SetNode = { member: false, children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const element of path) {
      let child = node.children.get(element);
      if (!child) {
        child = { member: false, children: new Map() };
        node.children.set(element, child);
      }
      node = child;
    }
    node.member = true;
  }
  return root;
}

export function toFieldsV1(paths: readonly Path[]): JsonObject {
  return written(setTree(paths));
}

export function fromFieldsV1(fields: Json | undefined): Path[] {
  const out: Path[] = [];
  const walk = (node: Json | undefined, prefix: Path): void => {
    if (!isObject(node)) return;
    const keys = Object.keys(node).filter((k) => k !== '.');
    if (prefix.length > 0 && (keys.length === 0 || Object.hasOwn(node, '.'))) out.push(prefix);
    for (const key of keys) walk(node[key], [...prefix, key]);
  };
  walk(fields, []);
  return out;
}
