// What is the job's own, where it is decided with requests: create()'s adoption check before the
// first write, and template mode's delete. A replay with no saved state re-renders the job, reads
// every object and decides, object by object, from what the server holds. The job's own (checks/ownership.ts: the
// owner label, or an Apply entry on an object from before it) is deleted with the UID and
// resourceVersion it read as preconditions, so a change after the read is seen (409) and decided
// again; one another manager also declares is relinquished (this manager's fields given up by an
// apply of its identity alone), since in server-side apply that object is shared; another's is
// left alone. A replay that finds every object marked as one other manager's deletes nothing.
import { describeRef } from './checks/refs.ts';
import {
  adoptionChecked,
  foreignMark,
  isMine,
  managersOf,
  notAdoptedText,
  notOwnedText,
  otherDeclarers,
  replacedText,
} from './checks/ownership.ts';
import { OperationError, type OperationFailure, RequestError } from './errors.ts';
import { type DeleteFlags, deleteOne, skippedDryRun } from './modes.ts';
import {
  type ApplyFlags,
  asRequestError,
  objectPath,
  type OperationContext,
  readOne,
  send,
  uidOf,
  warningTarget,
} from './operations.ts';
import type { DeleteResult, KubernetesObject, WarningCode } from './types.ts';
import type { Target } from './validate.ts';

/** Re-reads after a 409 before a target fails as still changing (controllers bump it with status writes). */
const REREADS = 3;

type ReplayFlags = DeleteFlags & { fieldManager: string };

/**
 * create()'s adoption check, before the first write: reads each given target (those whose dry run
 * answered 200, or every target without the dry runs) and refuses, one failure each, any that this
 * field manager does not manage (checks/ownership.ts isMine), naming its managers, with
 * OperationError('Preflight'): nothing written. With `adopt` they are taken over, said each. Kinds
 * whose storage keeps no labels are not read. A read's own failure (a 403, the signal) refuses too:
 * nothing is taken over without knowing whose it is.
 *
 * @example
 * await checkAdoption(op, existing, { fieldManager: 'mini-scheduler', dryRun: false });
 */
export async function checkAdoption(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
): Promise<void> {
  const checked = targets.filter((t) => adoptionChecked(t.ref));
  const reads = await Promise.allSettled(checked.map((t) => readLive(op, t)));
  const failures: OperationFailure[] = [];
  for (const [i, read] of reads.entries()) {
    const target = checked[i];
    if (target === undefined) continue;
    if (read.status === 'rejected') {
      failures.push({ resource: target.ref, error: asRequestError(read.reason, 'Get', target.ref) });
      continue;
    }
    if (read.value === null || isMine(read.value, flags.fieldManager, target.ref)) continue;
    const managers = managersOf(read.value);
    if (flags.adopt === true) {
      const text = `${describeRef(target.ref)} is taken over (adopt: true): ${notAdoptedText(flags.fieldManager, managers, true)}`;
      const about = { code: 'OTC_ADOPTED', target: warningTarget(target.ref) } as const;
      op.connection.notify({ text: op.redact(text), operation: op.operation, ...about }, op.warnings);
      continue;
    }
    const error = new RequestError(
      'Apply',
      describeRef(target.ref),
      notAdoptedText(flags.fieldManager, managers),
      {
        code: 'OTC_NOT_ADOPTED',
        outcome: 'refused',
        resource: warningTarget(target.ref),
      },
    );
    failures.push({ resource: target.ref, error });
  }
  if (failures.length > 0) throw new OperationError('Preflight', [], failures);
}

/**
 * Template mode's delete: every target read first (at once over HTTP/2), then, in reverse order,
 * each decided and deleted, relinquished or left alone. A 404 on the read is already gone; any other
 * failure of the read is the target's failure. Every target is attempted.
 *
 * @example
 * const results = await deleteOwned(op, targets, { useUid: false, fieldManager: 'mini-scheduler' });
 */
export async function deleteOwned(
  op: OperationContext,
  targets: readonly Target[],
  flags: ReplayFlags,
): Promise<DeleteResult[]> {
  const reads = await readEach(op, targets);
  refuseForeign(targets, reads, flags.fieldManager);
  const results: DeleteResult[] = [];
  const failures: OperationFailure[] = [];
  for (let i = targets.length - 1; i >= 0; i -= 1) {
    const [target, read] = [targets[i], reads[i]];
    if (target === undefined || read === undefined) continue;
    try {
      if (read.status === 'rejected') throw read.reason;
      results.push(await replayOne(op, target, read.value, flags));
    } catch (error) {
      failures.push({ resource: target.ref, error: asRequestError(error, 'Delete', target.ref) });
    }
  }
  if (failures.length > 0) throw new OperationError('Delete', results, failures);
  return results;
}

/** Each target's live object, `null` for a 404; concurrent only where that costs no connections. */
async function readEach(
  op: OperationContext,
  targets: readonly Target[],
): Promise<PromiseSettledResult<KubernetesObject | null>[]> {
  if (op.connection.multiplexed) return Promise.allSettled(targets.map((t) => readLive(op, t)));
  const reads: PromiseSettledResult<KubernetesObject | null>[] = [];
  for (const target of targets) {
    try {
      reads.push({ status: 'fulfilled', value: await readLive(op, target) });
    } catch (reason) {
      reads.push({ status: 'rejected', reason });
    }
  }
  return reads;
}

function readLive(op: OperationContext, target: Target): Promise<KubernetesObject | null> {
  return readOne(op, target).catch((error: unknown) => {
    if (error instanceof RequestError && error.statusCode === 404) return null;
    throw error;
  });
}

/**
 * The signature of a job created under another field manager: every target exists and carries the
 * mark of one and the same other manager, none of this one. Deleting nothing then is right (none
 * is this manager's), but resolving would hide the forgotten `fieldManager`: it is refused.
 */
function refuseForeign(
  targets: readonly Target[],
  reads: readonly PromiseSettledResult<KubernetesObject | null>[],
  fieldManager: string,
): void {
  const marks = targets.map((target, i) => {
    const read = reads[i];
    if (read?.status !== 'fulfilled' || read.value === null) return undefined;
    return foreignMark(read.value, fieldManager, target.ref);
  });
  const [first] = marks;
  if (first === undefined || !marks.every((m) => m === first)) return;
  const text =
    `not deleted: it carries the mark of field manager "${first}" (its owner label, or its Apply entry), ` +
    `not of "${fieldManager}", as every object of the job does; pass the fieldManager the create used (nothing was deleted)`;
  throw new OperationError(
    'Delete',
    [],
    // In deletion order, as every other delete failure is.
    [...targets].reverse().map((t) => ({
      resource: t.ref,
      error: new RequestError('Delete', describeRef(t.ref), text, {
        code: 'OTC_WRONG_FIELD_MANAGER',
        outcome: 'not-sent',
        resource: warningTarget(t.ref),
      }),
    })),
  );
}

/**
 * One target: decided on what was read, and decided again on a fresh read after a 409 (the object
 * changed since), at most {@link REREADS} times.
 */
async function replayOne(
  op: OperationContext,
  target: Target,
  first: KubernetesObject | null,
  flags: ReplayFlags,
): Promise<DeleteResult> {
  const { ref } = target;
  const tell = (text: string, code: WarningCode): void => {
    op.connection.notify({ text, code, operation: 'delete', target: warningTarget(ref) }, op.warnings);
  };
  let live = first;
  for (let rereads = 0; ; rereads += 1) {
    if (live === null) return { ...ref, deletion: 'already-gone' };
    const managers = managersOf(live);
    const uid = uidOf(live);
    if (!isMine(live, flags.fieldManager, ref)) {
      tell(notOwnedText(ref, flags.fieldManager, managers), 'OTC_NOT_OWNED');
      return { ...ref, ...(uid ? { uid } : {}), deletion: 'left-alone', reason: 'not-owned', managers };
    }
    const declarers = otherDeclarers(managers, flags.fieldManager);
    if (skippedDryRun(op, target, flags)) {
      const deletion = declarers.length > 0 ? 'relinquished' : 'deleted';
      return { ...ref, ...(uid ? { uid } : {}), deletion, dryRun: true, managers };
    }
    if (declarers.length > 0) return relinquish(op, target, flags, { uid, managers, declarers, tell });
    const version = live.metadata?.resourceVersion;
    const resourceVersion = typeof version === 'string' ? version : undefined;
    try {
      const pin = uid === undefined ? undefined : { uid, resourceVersion };
      return { ...(await deleteOne(op, target, flags, pin)), managers };
    } catch (error) {
      if (!(error instanceof RequestError && error.statusCode === 409 && uid !== undefined)) throw error;
      if (rereads === REREADS) throw stillChanging(target, error);
      live = await readLive(op, target);
      if (live !== null && uidOf(live) !== uid) {
        tell(replacedText(ref), 'OTC_REPLACED');
        return { ...ref, deletion: 'left-alone', reason: 'replaced', managers };
      }
    }
  }
}

function stillChanging(target: Target, cause: RequestError): RequestError {
  const detail =
    `not deleted: its resourceVersion changed before each of ${REREADS + 1} DELETEs, ` +
    `the last ${REREADS} after reading it again; run the replay again once it has settled`;
  return new RequestError('Delete', describeRef(target.ref), detail, {
    cause,
    code: 'OTC_STILL_CHANGING',
    outcome: 'refused',
    resource: warningTarget(target.ref),
  });
}

interface Shared {
  uid: string | undefined;
  managers: DeleteResult['managers'];
  declarers: string[];
  tell: (text: string, code: WarningCode) => void;
}

/**
 * Gives up this manager's share of an object others declare too: an apply of its identity alone,
 * so the fields only this manager owned (its owner label among them) go and the object stays. A
 * refusal leaves it alone, said; any other failure is the target's.
 */
async function relinquish(
  op: OperationContext,
  target: Target,
  flags: ReplayFlags,
  { uid, managers, declarers, tell }: Shared,
): Promise<DeleteResult> {
  const { ref } = target;
  const kept = { ...ref, ...(uid ? { uid } : {}), managers, declarers };
  let answer: Awaited<ReturnType<typeof send>>;
  try {
    answer = await send(op, {
      method: 'PATCH',
      path: objectPath(ref.apiVersion, target.resource, ref.namespace, ref.name),
      query: { fieldManager: flags.fieldManager, dryRun: flags.dryRun === true ? 'All' : undefined },
      contentType: 'application/apply-patch+yaml',
      body: {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name, namespace: ref.namespace },
      },
      step: 'Apply',
      target: describeRef(ref),
      object: warningTarget(ref),
      redact: op.redact,
    });
  } catch (error) {
    if (!(error instanceof RequestError && error.outcome === 'refused')) throw error;
    if (error.statusCode === 404) return { ...ref, deletion: 'already-gone' };
    const names = declarers.map((d) => `"${d}"`).join(', ');
    tell(
      op.redact(
        `left ${describeRef(ref)} alone: ${names} declare it too, and giving up its fields was refused: ${error.message}`,
      ),
      'OTC_NOT_RELINQUISHED',
    );
    return { ...kept, deletion: 'left-alone', reason: 'co-declared' };
  }
  // An apply creates what is absent: the object went between the read and this apply (201), so the
  // bare object it just made is removed again by its UID, and nothing of the job is left.
  if (answer.code === 201) {
    const made = uidOf(answer.body);
    if (flags.dryRun !== true && made !== undefined) await deleteOne(op, target, flags, { uid: made });
    return { ...ref, deletion: 'already-gone' };
  }
  return { ...kept, deletion: 'relinquished', ...(flags.dryRun === true ? { dryRun: true } : {}) };
}
