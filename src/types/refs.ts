// The refs the operations return and take: an object's identity, what create() says of it, what
// delete() did with it. A leaf, as index.ts is.
import type { ObjectIdentity } from './warnings.ts';

/**
 * The identity of one object, as returned by `create()` and accepted by reference-mode `get()`/`delete()`.
 *
 * @example
 * ```ts
 * const ref: ocp.ResourceRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'w1-config' };
 * const [config] = await ocp.get({ namespace: 'workers', resources: [ref], api });
 * ```
 */
export interface ResourceRef extends ObjectIdentity {
  /** The object's UID; reference-mode `delete()` sends it as a precondition. */
  uid?: string;
  /** Set on refs from `create()` (and an Apply `OperationError`'s `resources`): `true` when this call created
   * the object (the server answered 201), `false` when it already existed and the apply took it over (200).
   * Under `dryRun`, whether it would have been created. */
  created?: boolean;
  /**
   * `true` on refs from a `create()` or `delete()` under `dryRun`: nothing was written, and a
   * `uid` is the one the server answered the dry run with (for an object it would create, one no
   * stored object has). Absent otherwise.
   */
  dryRun?: true;
}

/**
 * A ref from `create()`: `created` is always set.
 *
 * @example
 * ```ts
 * const refs: ocp.CreatedRef[] = await ocp.create('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api });
 * const takenOver = refs.filter((r) => !r.created);
 * ```
 */
export interface CreatedRef extends ResourceRef {
  created: boolean;
}

/**
 * One object of a `delete()` result: its ref and what the delete did with it.
 *
 * @example
 * ```ts
 * const results: ocp.DeleteResult[] = await ocp.delete('worker-template', params, { ...job, api });
 * for (const r of results) if (r.deletion === 'left-alone') console.warn(r.name, r.reason, r.managers);
 * ```
 */
export interface DeleteResult extends ResourceRef {
  /**
   * `'deleted'` now (`uid`: the deleted object's), `'already-gone'` (404), `'left-alone'`, or
   * `'relinquished'`: another field manager declares the object too, so this one gave up its fields
   * (an apply of the object's identity alone) and the object stays with `declarers`.
   */
  deletion: 'deleted' | 'already-gone' | 'left-alone' | 'relinquished';
  /**
   * Why left alone: `'not-owned'` (`uid`: the object's), `'replaced'` (another object of the name
   * since the read), or `'co-declared'` (the apply that would relinquish it was refused).
   */
  reason?: 'not-owned' | 'replaced' | 'co-declared' | undefined;
  /** `'relinquished'` (or left alone `'co-declared'`): the other field managers that declare it. */
  declarers?: string[] | undefined;
  /** `ownership: 'manager'`: the object's managedFields entries, as the server records them. */
  managers?: { manager: string; operation: 'Apply' | 'Update'; subresource?: string }[] | undefined;
}
