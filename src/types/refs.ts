// The refs the operations return and take, and what create() and delete() say of each.
import type { ObjectIdentity } from './warnings.ts';

/**
 * The identity of one object, as returned by `create()` and accepted by reference-mode `get()`/`delete()`.
 *
 * @example
 * const ref: ocp.ResourceRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'w1-config' };
 */
export interface ResourceRef extends ObjectIdentity {
  /** The object's UID; reference-mode `delete()` sends it as a precondition. */
  uid?: string;
  /** From `create()`: `true` when this call created the object (201; under `dryRun`, would have), `false` when it existed (200). */
  created?: boolean;
  /** `true` on refs from `create()` or `delete()` under `dryRun`: nothing was written; `uid` is the dry run's. */
  dryRun?: true;
}

/**
 * A ref from `create()`: `created` is always set.
 *
 * @example
 * const takenOver = refs.filter((r: ocp.CreatedRef) => !r.created);
 */
export interface CreatedRef extends ResourceRef {
  created: boolean;
}

/**
 * One object of a `delete()` result: its ref and what the delete did with it.
 *
 * @example
 * for (const r of results) if (r.deletion === 'left-alone') console.warn(r.name, r.reason, r.managers);
 */
export interface DeleteResult extends ResourceRef {
  /** `'relinquished'`: this manager gave up its fields and the object stays with `declarers`. */
  deletion: 'deleted' | 'already-gone' | 'left-alone' | 'relinquished';
  /** Why left alone: another made it, it was replaced since the read, or the relinquishing apply was refused. */
  reason?: 'not-owned' | 'replaced' | 'co-declared' | undefined;
  /** `'relinquished'` (or left alone `'co-declared'`): the other field managers that declare it. */
  declarers?: string[] | undefined;
  /** `ownership: 'manager'`: the object's managedFields entries, as the server records them. */
  managers?: { manager: string; operation: 'Apply' | 'Update'; subresource?: string }[] | undefined;
}
