// delete(): reference mode deletes its refs; a replay reads every object and decides each from
// what the server holds: deleted (pinned to what it read), relinquished or left alone (docs/ownership.md).
import {
  asRequestError,
  objectPath,
  type OperationContext,
  send,
  tell,
  uidOf,
  warningTarget,
  withUid,
} from './context.ts';
import { describeRef } from '../checks/refs.ts';
import { resourceCreatedByPost } from '../checks/created-by-post.ts';
import { OperationError, type OperationFailure, RequestError } from '../errors.ts';
import { dryRunMayWrite } from '../checks/dry-run.ts';
import type { DeleteResult, KubernetesObject } from '../types/index.ts';
import type { Target } from '../validate.ts';
import {
  isMine,
  managersOf,
  notOwnedText,
  OWNER_LABEL,
  otherDeclarers,
  replacedText,
  stillChangingError,
  wrongManagerError,
} from '../checks/ownership.ts';
import { readLive } from './read.ts';

export interface DeleteFlags {
  dryRun?: boolean | undefined;
  propagationPolicy?: string | undefined;
  useUid: boolean;
}

/** Deletes in reverse order by name (a ref's `uid` as a precondition), attempting every target. */
export function deleteAll(
  op: OperationContext,
  targets: readonly Target[],
  flags: DeleteFlags,
): Promise<DeleteResult[]> {
  return eachInReverse(targets, (target) => {
    const uid = flags.useUid ? target.ref.uid : undefined;
    if (skippedDryRun(op, target, flags))
      return Promise.resolve({ ...target.ref, deletion: 'deleted', dryRun: true });
    return deleteOne(op, target, flags, uid === undefined ? undefined : { uid });
  });
}

/** `act` on every target in reverse order; any failures are one OperationError('Delete') at the end. */
async function eachInReverse(
  targets: readonly Target[],
  act: (target: Target, index: number) => Promise<DeleteResult>,
): Promise<DeleteResult[]> {
  const results: DeleteResult[] = [];
  const failures: OperationFailure[] = [];
  for (const [index, target] of [...targets.entries()].reverse()) {
    try {
      results.push(await act(target, index));
    } catch (error) {
      failures.push({ resource: target.ref, error: asRequestError(error, 'Delete', target.ref) });
    }
  }
  if (failures.length > 0) throw new OperationError('Delete', results, failures);
  return results;
}

/** Whether a dry-run delete is not sent, as the image kinds' may write (docs/preflight.md); said. */
function skippedDryRun(op: OperationContext, target: Target, flags: DeleteFlags): boolean {
  if (flags.dryRun !== true || !dryRunMayWrite(target.ref)) return false;
  const { ref } = target;
  const text =
    `${describeRef(ref)} is not dry-run deleted, so this result is unverified: openshift-apiserver before ` +
    `openshift/openshift-apiserver#511 writes the image stream on a dry-run delete of ${ref.apiVersion} ${ref.kind}`;
  tell(op, 'OTC_DRY_RUN_UNVERIFIED', text, ref);
  return true;
}

/** A DELETE's preconditions: the UID, and for a replay the resourceVersion it read. */
interface Pin {
  uid: string;
  resourceVersion?: string | undefined;
}

/** One DELETE; a 404 counts as already gone. */
async function deleteOne(
  op: OperationContext,
  target: Target,
  flags: DeleteFlags,
  pin: Pin | undefined,
): Promise<DeleteResult> {
  const body = {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(flags.propagationPolicy ? { propagationPolicy: flags.propagationPolicy } : {}),
    ...(flags.dryRun ? { dryRun: ['All'] } : {}),
    // A pin without a resourceVersion is sent as the UID alone (JSON leaves out undefined).
    ...(pin ? { preconditions: pin } : {}),
  };
  try {
    const response = await send(op, {
      method: 'DELETE',
      path: objectPath(target.ref.apiVersion, target.resource, target.ref.namespace, target.ref.name),
      body,
      step: 'Delete',
      target: describeRef(target.ref),
      object: warningTarget(target.ref),
      redact: op.redact,
    });
    const deleted = withUid(target.ref, uidOf(response.body) ?? pin?.uid ?? target.ref.uid);
    return { ...deleted, deletion: 'deleted', ...(flags.dryRun === true ? { dryRun: true } : {}) };
  } catch (error) {
    if (error instanceof RequestError && error.statusCode === 404)
      return { ...target.ref, deletion: 'already-gone' };
    throw error;
  }
}

/** Re-reads after a 409 before a target fails as still changing (controllers bump it with status writes). */
const REREADS = 3;

type ReplayFlags = DeleteFlags & { fieldManager: string };

/**
 * Template mode's delete: every target read first, then each decided in reverse order; a failed
 * read is the target's failure, every target attempted.
 */
export async function deleteOwned(
  op: OperationContext,
  targets: readonly Target[],
  flags: ReplayFlags,
): Promise<DeleteResult[]> {
  const reads = await readEach(op, targets);
  const lives = reads.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  const foreign = wrongManagerError(
    targets.map((t) => t.ref),
    lives,
    flags.fieldManager,
  );
  if (foreign !== undefined) throw foreign;
  return eachInReverse(targets, async (target, i) => {
    const read = reads[i];
    if (read?.status !== 'fulfilled') throw read?.reason;
    return replayOne(op, target, read.value, flags);
  });
}

/** Each target's live object, `null` for a 404; concurrent only where that costs no connections. */
async function readEach(
  op: OperationContext,
  targets: readonly Target[],
): Promise<PromiseSettledResult<KubernetesObject | null>[]> {
  if (op.connection.multiplexed) return Promise.allSettled(targets.map((t) => readLive(op, t)));
  const reads: PromiseSettledResult<KubernetesObject | null>[] = [];
  for (const target of targets) reads.push(...(await Promise.allSettled([readLive(op, target)])));
  return reads;
}

/** One target, decided on what was read, and again on a fresh read after a 409 (at most REREADS times). */
async function replayOne(
  op: OperationContext,
  target: Target,
  first: KubernetesObject | null,
  flags: ReplayFlags,
): Promise<DeleteResult> {
  const { ref } = target;
  let live = first;
  for (let rereads = 0; ; rereads += 1) {
    if (live === null) return { ...ref, deletion: 'already-gone' };
    const managers = managersOf(live);
    const uid = uidOf(live);
    if (!isMine(live, flags.fieldManager, ref)) {
      tell(op, 'OTC_NOT_OWNED', notOwnedText(ref, flags.fieldManager, live), ref);
      return { ...ref, ...(uid ? { uid } : {}), deletion: 'left-alone', reason: 'not-owned', managers };
    }
    const declarers = otherDeclarers(managers, flags.fieldManager);
    if (skippedDryRun(op, target, flags)) {
      const deletion = declarers.length > 0 ? 'relinquished' : 'deleted';
      return { ...ref, ...(uid ? { uid } : {}), deletion, dryRun: true, managers };
    }
    if (declarers.length > 0)
      return relinquish(op, target, flags, { ...ref, ...(uid ? { uid } : {}), managers, declarers });
    const version = live.metadata?.resourceVersion;
    const resourceVersion = typeof version === 'string' ? version : undefined;
    try {
      const pin = uid === undefined ? undefined : { uid, resourceVersion };
      return { ...(await deleteOne(op, target, flags, pin)), managers };
    } catch (error) {
      if (!(error instanceof RequestError && error.statusCode === 409 && uid !== undefined)) throw error;
      if (rereads === REREADS) throw stillChangingError(ref, REREADS, error);
      live = await readLive(op, target);
      if (live !== null && uidOf(live) !== uid) {
        tell(op, 'OTC_REPLACED', replacedText(ref), ref);
        return { ...ref, deletion: 'left-alone', reason: 'replaced', managers };
      }
    }
  }
}

/**
 * Gives up this manager's share of a shared object by an apply of its identity alone (a merge patch
 * of the label for POST-created kinds); a refusal leaves it alone, said.
 */
async function relinquish(
  op: OperationContext,
  target: Target,
  flags: ReplayFlags,
  kept: Omit<DeleteResult, 'deletion'> & { declarers: string[] },
): Promise<DeleteResult> {
  const { ref } = target;
  let answer: Awaited<ReturnType<typeof send>>;
  try {
    answer = await send(op, {
      method: 'PATCH',
      path: objectPath(ref.apiVersion, target.resource, ref.namespace, ref.name),
      query: { fieldManager: flags.fieldManager, dryRun: flags.dryRun === true ? 'All' : undefined },
      ...(resourceCreatedByPost(ref) === undefined
        ? {
            contentType: 'application/apply-patch+yaml',
            body: {
              apiVersion: ref.apiVersion,
              kind: ref.kind,
              metadata: { name: ref.name, namespace: ref.namespace },
            },
          }
        : {
            contentType: 'application/merge-patch+json',
            body: { metadata: { labels: { [OWNER_LABEL]: null } } },
          }),
      step: 'Apply',
      target: describeRef(ref),
      object: warningTarget(ref),
      redact: op.redact,
    });
  } catch (error) {
    if (!(error instanceof RequestError && error.outcome === 'refused')) throw error;
    if (error.statusCode === 404) return { ...ref, deletion: 'already-gone' };
    const names = kept.declarers.map((d) => `"${d}"`).join(', ');
    const text = `left ${describeRef(ref)} alone: ${names} declare it too, and giving up its fields was refused: ${error.message}`;
    tell(op, 'OTC_NOT_RELINQUISHED', text, ref);
    return { ...kept, deletion: 'left-alone', reason: 'co-declared' };
  }
  // A 201: the object went since the read, so the bare one this apply made is removed by its UID.
  if (answer.code === 201) {
    const made = uidOf(answer.body);
    if (flags.dryRun !== true && made !== undefined) await deleteOne(op, target, flags, { uid: made });
    return { ...ref, deletion: 'already-gone' };
  }
  return { ...kept, deletion: 'relinquished', ...(flags.dryRun === true ? { dryRun: true } : {}) };
}
