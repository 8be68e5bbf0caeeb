// create()'s pre-flight: every typed object's apply sent at once with dryRun=All; nothing is
// written unless the server passes every one (why a dry run sees what the write would: docs/preflight.md).
import { debuglog } from 'node:util';
import { OperationError, type OperationFailure, RequestError, ValidationError } from '../errors.ts';
import { asRequestError, type OperationContext, tell } from './context.ts';
import { type ApplyFlags, applyAll, readQuotas, typeTargets, write } from './create.ts';
import { readLive } from './read.ts';
import { refusedAsUntyped } from '../connection/openapi.ts';
import { createdByPostText } from '../checks/created-by-post.ts';
import { adoptionChecked, isMine, notAdoptedError, notAdoptedText } from '../checks/ownership.ts';
import { quotaVerdict } from '../checks/quota.ts';
import {
  batchPrerequisite,
  dryRunMayWrite,
  dryRunResendable,
  dryRunUnsupportedBy,
  notDryRunText,
  refusedDryRun,
  unverifiedText,
} from '../checks/dry-run.ts';
import { describeRef } from '../checks/refs.ts';
import type { CreatedRef, FieldValidation } from '../types/index.ts';
import type { Target } from '../validate.ts';

const debug = debuglog('openshift-templates');

/** One object's dry run: its ref (why unverified, whether a POST's), or the server's error. */
type DryRun = { ref: CreatedRef; unverified?: string; posted?: boolean } | { error: RequestError };

/** A ref that passes without a dry run's answer; counted as created, as its write may create it. */
const unanswered = (target: Target, unverified: string): DryRun => ({
  ref: { ...target.ref, created: true },
  unverified,
});

/** Whether a dry run was refused as untyped (rule 22): typed with a schema older than the server's. */
const untyped = (answer: DryRun): boolean =>
  'error' in answer && refusedAsUntyped(answer.error.statusCode ?? 0, answer.error.status);

interface Answer {
  target: Target;
  answer: DryRun;
}

/**
 * Dry runs refused as untyped: typed once more against the server's current document and dry-run
 * once more, never again (docs/typing.md).
 */
async function retypeUntyped(
  op: OperationContext,
  answers: Answer[],
  flags: ApplyFlags,
  mode: FieldValidation,
): Promise<void> {
  const refused = answers.filter(({ answer }) => untyped(answer));
  if (refused.length === 0) return;
  debug('%s: %d dry runs refused as untyped; typed and sent once more', op.operation, refused.length);
  const typed = await typeTargets(
    op,
    refused.map(({ target }) => target),
    mode,
  );
  await Promise.all(
    refused.map(async (entry, i) => {
      entry.target = typed[i] ?? entry.target;
      entry.answer = await dryRun(op, entry.target, flags);
    }),
  );
}

/**
 * A deferred object's dry run right before its write (retyped as in the wave); the target to write.
 * A refusal then is the server's, with typing's verdict as its cause.
 */
async function dryRunDeferred(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  mode: FieldValidation,
): Promise<Target> {
  const entry: Answer = { target, answer: await dryRun(op, target, flags) };
  const first = entry.answer;
  try {
    await retypeUntyped(op, [entry], flags, mode);
  } catch (error) {
    if (!(error instanceof ValidationError) || !('error' in first)) throw error;
    throw refusedDryRun(first.error, error);
  }
  if ('error' in entry.answer) throw entry.answer.error;
  if (entry.answer.unverified !== undefined)
    tell(op, 'OTC_DRY_RUN_UNVERIFIED', entry.answer.unverified, entry.target.ref);
  return entry.target;
}

/**
 * The dry run of one target: a kind created by POST has its POST dry-run instead; a webhook without
 * dry-run support, or a kind whose dry run may write, leaves it unverified (a warning, never a
 * refusal); a lost connection is resent once where the storage honours dry runs (docs/preflight.md).
 */
async function dryRun(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  resent = false,
): Promise<DryRun> {
  if (dryRunMayWrite(target.ref)) return unanswered(target, notDryRunText(target.ref));
  const sent = { posted: false };
  try {
    const ref = await write(op, target, { ...flags, dryRun: true }, () => (sent.posted = true));
    return { ref, posted: sent.posted };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    const webhook = dryRunUnsupportedBy(error.statusCode, error.status);
    if (webhook !== undefined) return unanswered(target, unverifiedText(target.ref, webhook));
    const lost = error.code === 'OTC_CONNECTION_LOST' && !op.signal?.aborted && !op.connection.closed;
    if (lost && !resent && dryRunResendable(target.ref)) {
      debug(
        '%s: the dry run of %s%s lost its connection; sent once more',
        op.operation,
        sent.posted ? 'the POST of ' : '',
        describeRef(target.ref),
      );
      return dryRun(op, target, flags, true);
    }
    return { error: refusedDryRun(error) };
  }
}

/** What the wave decided: targets to write, refs, objects deferred, unverified or POSTed. */
interface Wave {
  targets: Target[];
  refs: CreatedRef[];
  deferred: Set<Target>;
  unverified: { target: Target; text: string }[];
  posted: Target[];
}

/**
 * The wave itself. An object refused only for an earlier one of the batch that does not exist yet
 * is deferred; every other failure is in the one OperationError('Preflight'), nothing written.
 */
async function wave(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
  mode: FieldValidation,
): Promise<Wave> {
  const answers: Answer[] = await Promise.all(
    targets.map(async (target) => ({ target, answer: await dryRun(op, target, flags) })),
  );
  await retypeUntyped(op, answers, flags, mode);
  const refs: CreatedRef[] = [];
  const deferred = new Set<Target>();
  const unverified: Wave['unverified'] = [];
  const posted: Target[] = [];
  const failures: OperationFailure[] = [];
  for (const [i, { target, answer }] of answers.entries()) {
    if ('ref' in answer) {
      refs.push(answer.ref);
      if (answer.unverified !== undefined) unverified.push({ target, text: answer.unverified });
      if (answer.posted === true) posted.push(target);
      continue;
    }
    const { error } = answer;
    const earlier = targets.slice(0, i).map((t) => t.ref);
    if (batchPrerequisite(target.ref, error.statusCode, error.status, earlier) === undefined) {
      failures.push({ resource: target.ref, error });
      continue;
    }
    deferred.add(target);
    refs.push({ ...target.ref, created: true });
  }
  if (failures.length > 0) throw new OperationError('Preflight', [], failures);
  return { targets: answers.map((a) => a.target), refs, deferred, unverified, posted };
}

/**
 * The wave and the one ResourceQuota read beside it, which goes first: it frees its stream soonest
 * (docs/performance-preflight.md). Both end before either failure is thrown.
 */
async function waveAndQuotas(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
  mode: FieldValidation,
): Promise<Wave> {
  const namespace = targets[0]?.ref.namespace;
  const [quotas, waved] = await Promise.allSettled([
    namespace === undefined ? undefined : readQuotas(op, namespace),
    wave(op, targets, flags, mode),
  ]);
  if (waved.status === 'rejected') throw waved.reason;
  if (quotas.status === 'rejected') throw quotas.reason;
  const { targets: sent, refs, deferred, unverified } = waved.value;
  // Which objects exist (200), or may (no dry-run answer), before anything says they will be applied.
  const unsure = new Set([...deferred, ...unverified.map((u) => u.target)]);
  await checkAdoption(
    op,
    sent.filter((t, i) => refs[i]?.created === false || unsure.has(t)),
    flags,
  );
  // The batch's sum over the objects it would create; those no dry run settled make it an estimate.
  const created = sent
    .filter((_, i) => refs[i]?.created === true)
    .map((t) => ({ ref: t.ref, resource: t.resource, object: t.object, unsure: unsure.has(t) }));
  const read = quotas.value ?? { items: [] };
  const { failures, warnings } = quotaVerdict(namespace ?? '', read, created, op.redact);
  if (failures.length > 0) throw new OperationError('Preflight', [], failures);
  // Told only now that the objects will be applied: a refusal above applies nothing.
  for (const { target, text } of unverified) tell(op, 'OTC_DRY_RUN_UNVERIFIED', text, target.ref);
  for (const w of warnings) op.connection.notify({ ...w, operation: op.operation }, op.warnings);
  return waved.value;
}

/**
 * create()'s adoption check before the first write: reads each target and refuses any this field
 * manager does not manage, or takes it over with `adopt` (said each); a failed read refuses too.
 * OperationError('Preflight'): nothing written (docs/ownership.md).
 */
async function checkAdoption(
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
    if (flags.adopt === true) {
      const text = `${describeRef(target.ref)} is taken over (adopt: true): ${notAdoptedText(flags.fieldManager, read.value, true)}`;
      tell(op, 'OTC_ADOPTED', text, target.ref);
      continue;
    }
    failures.push({
      resource: target.ref,
      error: notAdoptedError(target.ref, flags.fieldManager, read.value),
    });
  }
  if (failures.length > 0) throw new OperationError('Preflight', [], failures);
}

/**
 * create() with the pre-flight: the dry-run wave, then (unless `flags.dryRun`) the applies in
 * order, a deferred object dry-run again right before its write. `mode` retypes untyped refusals.
 */
export async function createChecked(
  op: OperationContext,
  typed: readonly Target[],
  flags: ApplyFlags,
  mode: FieldValidation,
): Promise<CreatedRef[]> {
  const { targets, refs, deferred, posted } = await waveAndQuotas(op, typed, flags, mode);
  if (flags.dryRun) {
    // The write's own warning, as the schema-only path's dry run gives it; a real create tells it at the POST.
    for (const target of posted)
      tell(op, 'OTC_CREATED_BY_POST', createdByPostText(target.ref, true), target.ref);
    return refs.map((ref) => ({ ...ref, dryRun: true }));
  }
  return applyAll(op, targets, flags, (target) =>
    deferred.has(target) ? dryRunDeferred(op, target, flags, mode) : target,
  );
}

/**
 * create() with `preflight: 'schema'`: the adoption check (no dry run said which objects exist, so
 * all are read), then the applies in order (dry runs under `flags.dryRun`, except kinds whose dry run
 * may write, said unverified as the pre-flight says them).
 */
export async function createTypedOnly(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
): Promise<CreatedRef[]> {
  await checkAdoption(op, targets, flags);
  if (!flags.dryRun) return applyAll(op, targets, flags);
  return applyAll(op, targets, flags, (target) => {
    if (!dryRunMayWrite(target.ref)) return target;
    tell(op, 'OTC_DRY_RUN_UNVERIFIED', notDryRunText(target.ref), target.ref);
    return { ...target.ref, created: true, dryRun: true };
  });
}
