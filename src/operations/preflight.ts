// create()'s pre-flight: every typed object is sent the very apply create() will send, with
// dryRun=All, all at once, and nothing is written unless the server passes every one. A dry run runs
// every stage of the request but storage — authorization as the real request (the create check of
// an apply that would create included), conflicts against the live object, validation and
// immutability, admission — so a refusal the server can predict is found before the first write
// (kubernetes/apiserver pkg/endpoints/handlers/patch.go, pkg/registry/generic/registry/dryrun.go).
import { debuglog } from 'node:util';
import { OperationError, type OperationFailure, RequestError, ValidationError } from '../errors.ts';
import { asError, asRequestError, type OperationContext, warningTarget } from './context.ts';
import { type ApplyFlags, applyAll, readQuotas, typeTargets, write } from './create.ts';
import { readOne } from './read.ts';
import { refusedAsUntyped } from '../connection/openapi.ts';
import { applyFoundNothing, createdByPostText } from '../checks/created-by-post.ts';
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

/**
 * One object's dry run: the ref it would have (with why it is applied unverified, when its dry
 * run could not be made, and whether it was a POST's), or the error the server answered.
 */
type DryRun = { ref: CreatedRef; unverified?: string; posted?: boolean } | { error: RequestError };

/** A ref that passes without a dry run's answer; it counts as created, as its write may create it. */
const unanswered = (target: Target, unverified: string): DryRun => ({
  ref: { ...target.ref, created: true },
  unverified,
});

/** Whether a dry run was refused as untyped (rule 22): typed with a schema older than the server's. */
const untyped = (answer: DryRun): boolean =>
  'error' in answer && refusedAsUntyped(answer.error.statusCode ?? 0, answer.error.status);

/** One object's dry run in the wave, with the target it was sent for. */
interface Answer {
  target: Target;
  answer: DryRun;
}

/**
 * The objects whose dry run was refused as untyped, typed once more and dry-run once more (never
 * again). The refusal expired the Connection's root and marked the group-version, so this typing
 * reads the server's current document (connection/openapi.ts): under Warn the field the schema
 * no longer declares is dropped with a warning, under Strict typing refuses naming it
 * (ValidationError, nothing written), and the create goes on with what typing returns.
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
 * A deferred object's dry run right before its write, typed and sent once more after an untyped
 * refusal as in the wave; the target to write. Objects before it are written by then, so a
 * refusal is the server's (which names the field too), with typing's verdict as its cause.
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
  if (entry.answer.unverified !== undefined) tellUnverified(op, entry.target, entry.answer.unverified);
  return entry.target;
}

/**
 * The dry run of one target. A kind whose apply cannot create it answers 404 and is created by a
 * POST: that POST is dry-run in its place, so its proxy's own checks (the subjects it converts,
 * RBAC's escalation check) come before the first write. A webhook that does not support dry runs,
 * or a kind whose dry run may write, leaves the object unverified, said on the warning channel,
 * never refused. A lost connection is sent once more where the storage
 * honours dry runs, so nothing was written.
 */
async function dryRun(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  resent = false,
): Promise<DryRun> {
  if (dryRunMayWrite(target.ref)) return unanswered(target, notDryRunText(target.ref));
  let posted = false;
  try {
    return { ref: await write(op, target, { ...flags, dryRun: true }, false) };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    if (!applyFoundNothing(target.ref, error.statusCode, error.status)) return failed(error);
    posted = true;
    try {
      return { ref: await write(op, target, { ...flags, dryRun: true }, true, false), posted };
    } catch (postError) {
      if (!(postError instanceof RequestError)) throw postError;
      return failed(postError);
    }
  }

  function failed(error: RequestError): Promise<DryRun> | DryRun {
    const webhook = dryRunUnsupportedBy(error.statusCode, error.status);
    if (webhook !== undefined) return unanswered(target, unverifiedText(target.ref, webhook));
    const lost = error.code === 'OTC_CONNECTION_LOST' && !op.signal?.aborted && !op.connection.closed;
    if (lost && !resent && dryRunResendable(target.ref)) {
      debug(
        '%s: the dry run of %s%s lost its connection; sent once more',
        op.operation,
        posted ? 'the POST of ' : '',
        describeRef(target.ref),
      );
      return dryRun(op, target, flags, true);
    }
    return { error: refusedDryRun(error) };
  }
}

/**
 * What the wave decided: the targets to write (those typed once more replace the first), each
 * object's ref, the objects to dry-run again before their write, the warnings for objects applied
 * unverified (told once the wave passes), and the objects whose dry run was their POST's.
 */
interface Wave {
  targets: Target[];
  refs: CreatedRef[];
  deferred: Set<Target>;
  unverified: { target: Target; text: string }[];
  posted: Target[];
}

/** Says that an object is applied without its dry run's checks. */
function tellUnverified(op: OperationContext, target: Target, text: string): void {
  const warning = {
    code: 'OTC_DRY_RUN_UNVERIFIED' as const,
    text: op.redact(text),
    operation: op.operation,
    target: warningTarget(target.ref),
  };
  op.connection.notify(warning, op.warnings);
}

/**
 * The wave itself. Over HTTP/2 every dry run is a stream of one session (node:http2 holds back
 * those beyond the server's stream limit); over HTTP/1.1 the pool bounds the sockets. An object
 * refused only for an earlier object of the batch that does not exist yet is deferred; every other
 * failure is in the one OperationError('Preflight'), with nothing written.
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
  return { targets: answers.map((a) => a.target), refs, deferred, unverified, posted };
}

/**
 * The wave, and beside it the one read of the namespace's ResourceQuotas; the call ends only when
 * both have, whichever fails. The read goes first: its answer is the quickest to come and to
 * read, so the stream or socket it frees carries the first dry run beyond the server's stream
 * limit (or the pool) one answer sooner (docs/performance-preflight.md).
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
  if (waved.status === 'rejected') throw asError(waved.reason);
  if (quotas.status === 'rejected') throw asError(quotas.reason);
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
  for (const { target, text } of unverified) tellUnverified(op, target, text);
  for (const w of warnings) op.connection.notify({ ...w, operation: op.operation }, op.warnings);
  return waved.value;
}

/** A failure at one target of the applies in order: OperationError('Apply') with the refs before it. */
function partWay(error: unknown, before: readonly CreatedRef[], target: Target): Error {
  if (error instanceof OperationError && error.operation === 'Apply')
    return new OperationError('Apply', [...before, ...error.resources], error.failures);
  const failure = asRequestError(error, 'Apply', target.ref);
  return new OperationError('Apply', [...before], [{ resource: target.ref, error: failure }]);
}

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
  const reads = await Promise.allSettled(
    checked.map((t) =>
      readOne(op, t).catch((error: unknown) => {
        if (error instanceof RequestError && error.statusCode === 404) return null;
        throw error;
      }),
    ),
  );
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
      const about = { code: 'OTC_ADOPTED', target: warningTarget(target.ref) } as const;
      op.connection.notify({ text: op.redact(text), operation: op.operation, ...about }, op.warnings);
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
 * rendered order. A deferred object is dry-run again right before its own write, once its
 * prerequisites are applied; refused then, the create is part-way: OperationError('Apply') with
 * exactly the objects written before it, as any failed write. `mode` is create()'s
 * fieldValidation, for typing once more after a dry run refused as untyped.
 *
 * @example
 * const refs = await createChecked(op, typed, { fieldManager: 'mini-scheduler', dryRun: false }, 'Strict');
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
    for (const target of posted) {
      const text = op.redact(createdByPostText(target.ref, true));
      const about = { code: 'OTC_CREATED_BY_POST', target: warningTarget(target.ref) } as const;
      op.connection.notify({ text, operation: op.operation, ...about }, op.warnings);
    }
    return refs.map((ref) => ({ ...ref, dryRun: true }));
  }
  const written: CreatedRef[] = [];
  for (const target of targets) {
    try {
      const next = deferred.has(target) ? await dryRunDeferred(op, target, flags, mode) : target;
      written.push(...(await applyAll(op, [next], flags)));
    } catch (error) {
      throw partWay(error, written, target);
    }
  }
  return written;
}

/**
 * create() with `preflight: 'schema'`: typing only, then the applies in rendered order; under
 * `flags.dryRun`, each object's dry run in that order, except those of kinds whose dry run may
 * write (an image kind before openshift/openshift-apiserver#511), which are not sent and said as
 * the pre-flight says them, with the ref its wave returns for them. A refusal is part-way as any
 * failed apply: OperationError('Apply') with the refs before it, those not sent included.
 *
 * @example
 * const refs = await createTypedOnly(op, typed, { fieldManager: 'mini-scheduler', dryRun: true });
 */
export async function createTypedOnly(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
): Promise<CreatedRef[]> {
  if (!flags.dryRun) return applyAll(op, targets, flags);
  const refs: CreatedRef[] = [];
  for (const target of targets) {
    if (dryRunMayWrite(target.ref)) {
      tellUnverified(op, target, notDryRunText(target.ref));
      refs.push({ ...target.ref, created: true, dryRun: true });
      continue;
    }
    try {
      refs.push(...(await applyAll(op, [target], flags)));
    } catch (error) {
      throw partWay(error, refs, target);
    }
  }
  return refs;
}
