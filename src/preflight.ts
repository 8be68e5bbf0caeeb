// create()'s pre-flight: every typed object is sent the very apply create() will send, with
// dryRun=All, all at once, and nothing is written unless the server passes every one. A dry run runs
// every stage of the request but storage — authorization as the real request (the create check of
// an apply that would create included), conflicts against the live object, validation and
// immutability, admission — so a refusal the server can predict is found before the first write
// (kubernetes/apiserver pkg/endpoints/handlers/patch.go, pkg/registry/generic/registry/dryrun.go).
import { debuglog } from 'node:util';
import { OperationError, type OperationFailure, RequestError } from './errors.ts';
import { type ApplyFlags, applyAll, type OperationContext, write } from './operations.ts';
import { applyFoundNothing } from './checks/created-by-post.ts';
import { batchPrerequisite, dryRunResendable } from './checks/preflight.ts';
import { describeRef } from './checks/refs.ts';
import type { CreatedRef } from './types.ts';
import type { Target } from './validate.ts';

const debug = debuglog('openshift-templates');

/** One object's dry run: the ref it would have, or the error the server answered. */
type DryRun = { ref: CreatedRef } | { error: RequestError };

/**
 * The dry run of one target. A kind whose apply cannot create it (checks/created-by-post.ts)
 * answers 404 and is created by a POST, which its proxy does not dry-run: it passes as created.
 * A lost connection is sent once more where the storage honours dry runs, so nothing was written.
 */
async function dryRun(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  resent = false,
): Promise<DryRun> {
  try {
    return { ref: await write(op, target, { ...flags, dryRun: true }, false) };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    if (applyFoundNothing(target.ref, error.statusCode, error.status))
      return { ref: { ...target.ref, created: true } };
    const lost = error.code === 'OTC_CONNECTION_LOST' && !op.signal?.aborted && !op.connection.closed;
    if (lost && !resent && dryRunResendable(target.ref)) {
      debug(
        '%s: the dry run of %s lost its connection; sent once more',
        op.operation,
        describeRef(target.ref),
      );
      return dryRun(op, target, flags, true);
    }
    return { error };
  }
}

/** What the wave decided: each object's ref, and the objects to dry-run again before their write. */
interface Wave {
  refs: CreatedRef[];
  deferred: Set<Target>;
}

/**
 * The wave itself. Over HTTP/2 every dry run is a stream of one session (node:http2 holds back
 * those beyond the server's stream limit); over HTTP/1.1 the pool bounds the sockets. An object
 * refused only for an earlier object of the batch that does not exist yet is deferred; every other
 * failure is in the one OperationError('Preflight'), with nothing written.
 */
async function wave(op: OperationContext, targets: readonly Target[], flags: ApplyFlags): Promise<Wave> {
  const answers = await Promise.all(
    targets.map(async (target) => ({ target, answer: await dryRun(op, target, flags) })),
  );
  const refs: CreatedRef[] = [];
  const deferred = new Set<Target>();
  const failures: OperationFailure[] = [];
  for (const [i, { target, answer }] of answers.entries()) {
    if ('ref' in answer) {
      refs.push(answer.ref);
      continue;
    }
    const { error } = answer;
    const { statusCode, status } = error instanceof RequestError ? error : {};
    const earlier = targets.slice(0, i).map((t) => t.ref);
    if (batchPrerequisite(target.ref, statusCode, status, earlier) === undefined) {
      failures.push({ resource: target.ref, error });
      continue;
    }
    deferred.add(target);
    refs.push({ ...target.ref, created: true });
  }
  if (failures.length > 0) throw new OperationError('Preflight', [], failures);
  return { refs, deferred };
}

/**
 * create() with the pre-flight: the dry-run wave, then (unless `flags.dryRun`) the applies in
 * rendered order. A deferred object is dry-run again right before its own write, once its
 * prerequisites are applied; refused then, the create is part-way: OperationError('Apply') with
 * exactly the objects written before it, as any failed write.
 *
 * @example
 * const refs = await createChecked(op, typed, { fieldManager: 'mini-scheduler', dryRun: false });
 */
export async function createChecked(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
): Promise<CreatedRef[]> {
  const { refs, deferred } = await wave(op, targets, flags);
  if (flags.dryRun) return refs.map((ref) => ({ ...ref, dryRun: true }));
  return applyAll(op, targets, flags, async (target) => {
    if (!deferred.has(target)) return;
    const again = await dryRun(op, target, flags);
    if ('error' in again) throw again.error;
  });
}
