// Metadata the server sets that a rendered object may still carry (a Template made from
// `oc get -o json`): kube-apiserver refuses managedFields, uid and resourceVersion in an apply
// body (how, in docs/typing.md); creationTimestamp and generation pass.
import { isRecord } from '../util/json.ts';
import type { TypingProblem } from './walk.ts';

const REASONS: Record<string, string> = {
  uid:
    'set by the server: an apply that creates the object is refused with it (uid mismatch), ' +
    "one that updates it unless it is the live object's",
  resourceVersion:
    'set by the server: it is a precondition of the apply, so a replay is refused (the object has been modified)',
  managedFields: 'set by the server: an apply body may not carry it (metadata.managedFields must be nil)',
};

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function problemOf(key: string): TypingProblem {
  return {
    kind: 'server-set',
    path: `.metadata.${key}`,
    parent: '.metadata',
    strictPath: `metadata.${key}`,
    at: ['metadata', key],
    reason: REASONS[key] ?? '',
  };
}

/**
 * The server-set metadata an apply body may not carry (one `server-set` problem each), and a copy without it.
 *
 * @example
 * const { object, found } = withoutServerSet({ kind: 'ConfigMap', metadata: { name: 'a', uid: 'u' } });
 * found.map((p) => p.path); // ['.metadata.uid']
 * object; // { kind: 'ConfigMap', metadata: { name: 'a' } }
 */
export function withoutServerSet(object: Record<string, unknown>): {
  object: Record<string, unknown>;
  found: TypingProblem[];
} {
  const { metadata } = object;
  if (!isRecord(metadata)) return { object, found: [] };
  const keys = Object.keys(metadata).filter((key) => Object.hasOwn(REASONS, key) && isSet(metadata[key]));
  if (keys.length === 0) return { object, found: [] };
  // Object.fromEntries defines own properties: a `__proto__` label key stays a key.
  const kept = Object.fromEntries(Object.entries(metadata).filter(([key]) => !keys.includes(key)));
  return { object: { ...object, metadata: kept }, found: keys.map(problemOf) };
}
