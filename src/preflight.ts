// create()'s pre-flight: every typed object is sent the very apply create() will send, with
// dryRun=All, all at once, and nothing is written unless the server passes every one. A dry run runs
// every stage of the request but storage — authorization as the real request (the create check of
// an apply that would create included), conflicts against the live object, validation and
// immutability, admission — so a refusal the server can predict is found before the first write
// (kubernetes/apiserver pkg/endpoints/handlers/patch.go, pkg/registry/generic/registry/dryrun.go).
import { debuglog } from 'node:util';
import { OperationError, type OperationFailure, RequestError } from './errors.ts';
import {
  type ApplyFlags,
  applyAll,
  asError,
  asRequestError,
  type OperationContext,
  readOne,
  send,
  segment,
  write,
  warningTarget,
} from './operations.ts';
import { applyFoundNothing } from './checks/created-by-post.ts';
import { adoptionChecked, isMine, notAdoptedText } from './checks/ownership.ts';
import {
  batchPrerequisite,
  dryRunMayWrite,
  dryRunResendable,
  dryRunUnsupportedBy,
  notDryRunText,
  unverifiedText,
} from './checks/preflight.ts';
import { exceededQuotas, type Planned, quotaText } from './checks/quota.ts';
import { describeRef } from './checks/refs.ts';
import { groupOf } from './checks/names.ts';
import { isRecord } from './util/json.ts';
import type { CreatedRef } from './types.ts';
import type { Target } from './validate.ts';

const debug = debuglog('openshift-templates');

/**
 * One object's dry run: the ref it would have (with why it is applied unverified, when its dry
 * run could not be made), or the error the server answered.
 */
type DryRun = { ref: CreatedRef; unverified?: string } | { error: RequestError };

/** A ref that passes without a dry run's answer; it counts as created, as its write may create it. */
const unanswered = (target: Target, unverified?: string): DryRun => ({
  ref: { ...target.ref, created: true },
  ...(unverified === undefined ? {} : { unverified }),
});

/**
 * The dry run of one target. A kind whose apply cannot create it (checks/created-by-post.ts)
 * answers 404 and is created by a POST, which its proxy does not dry-run: it passes as created.
 * A webhook that does not support dry runs, or a kind whose dry run may write, leaves the object
 * unverified, said on the warning channel, never refused (issue #36 item 4). A lost connection is
 * sent once more where the storage honours dry runs, so nothing was written.
 */
async function dryRun(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  resent = false,
): Promise<DryRun> {
  if (dryRunMayWrite(target.ref)) return unanswered(target, notDryRunText(target.ref));
  try {
    return { ref: await write(op, target, { ...flags, dryRun: true }, false) };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    if (applyFoundNothing(target.ref, error.statusCode, error.status)) return unanswered(target);
    const webhook = dryRunUnsupportedBy(error.statusCode, error.status);
    if (webhook !== undefined) return unanswered(target, unverifiedText(target.ref, webhook));
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

/**
 * What the wave decided: each object's ref, the objects to dry-run again before their write, and
 * the warnings for objects applied unverified (told once the wave passes).
 */
interface Wave {
  refs: CreatedRef[];
  deferred: Set<Target>;
  unverified: { target: Target; text: string }[];
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
async function wave(op: OperationContext, targets: readonly Target[], flags: ApplyFlags): Promise<Wave> {
  const answers = await Promise.all(
    targets.map(async (target) => ({ target, answer: await dryRun(op, target, flags) })),
  );
  const refs: CreatedRef[] = [];
  const deferred = new Set<Target>();
  const unverified: Wave['unverified'] = [];
  const failures: OperationFailure[] = [];
  for (const [i, { target, answer }] of answers.entries()) {
    if ('ref' in answer) {
      refs.push(answer.ref);
      if (answer.unverified !== undefined) unverified.push({ target, text: answer.unverified });
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
  return { refs, deferred, unverified };
}

/** The namespace's ResourceQuotas as listed, or why they could not be. */
type QuotaRead = { items: unknown[] } | { unread: string };

/**
 * The one read of the target namespace's ResourceQuotas. A refusal (403 for a caller without
 * `list resourcequotas`, which the README calls optional) or any other failure leaves the batch's
 * sum unchecked, said once: it never fails the create.
 */
async function readQuotas(op: OperationContext, namespace: string): Promise<QuotaRead> {
  try {
    const { body } = await send(op, {
      method: 'GET',
      path: `/api/v1/namespaces/${segment(namespace)}/resourcequotas`,
      step: 'Get',
      target: `the ResourceQuotas of namespace "${namespace}"`,
      redact: op.redact,
    });
    const items = isRecord(body) && Array.isArray(body.items) ? (body.items as unknown[]) : undefined;
    return items === undefined ? { unread: 'the list had no items' } : { items };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    return {
      unread: `listing them answered ${error.statusCode === undefined ? error.code : String(error.statusCode)}`,
    };
  }
}

/**
 * Sums what the batch would create against each quota (checks/quota.ts) and says, one warning per
 * quota, where the sum exceeds what is left; or, when the quotas could not be read, that the sum
 * was not checked. Never a refusal: each object passed its own dry run (issue #36 item 4).
 */
function checkBatchQuota(
  op: OperationContext,
  namespace: string,
  quotas: QuotaRead,
  targets: readonly Target[],
  refs: readonly CreatedRef[],
): void {
  const planned: Planned[] = targets
    .filter((_, i) => refs[i]?.created === true)
    .map((t) => ({ group: groupOf(t.ref.apiVersion), resource: t.resource, object: t.object }));
  if (planned.length === 0) return;
  const tell = (code: 'OTC_QUOTA_EXCEEDED_BY_BATCH' | 'OTC_QUOTA_UNCHECKED', text: string): void => {
    op.connection.notify({ code, text: op.redact(text), operation: op.operation }, op.warnings);
  };
  if ('unread' in quotas) {
    tell(
      'OTC_QUOTA_UNCHECKED',
      `the batch's sum against the ResourceQuotas of namespace "${namespace}" was not checked: ${quotas.unread} ` +
        '(list resourcequotas is optional; each object was still checked against quota by its own dry run)',
    );
    return;
  }
  for (const exceeded of exceededQuotas(quotas.items, planned))
    tell('OTC_QUOTA_EXCEEDED_BY_BATCH', quotaText(namespace, exceeded));
}

/**
 * The wave, and beside it the one read of the namespace's ResourceQuotas; the call ends only when
 * both have, whichever fails. The read goes first: its answer is the quickest to come and to
 * read, so the stream or socket it frees carries the first dry run beyond the server's stream
 * limit (or the pool) one answer sooner. Sent last, it was the request held back, and a wave of
 * 100 objects over HTTP/2 took about 30 ms against the raw client's 20 (bench/stand-in-bench.ts).
 */
async function waveAndQuotas(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
): Promise<Wave> {
  const namespace = targets[0]?.ref.namespace;
  const [quotas, waved] = await Promise.allSettled([
    namespace === undefined ? undefined : readQuotas(op, namespace),
    wave(op, targets, flags),
  ]);
  if (waved.status === 'rejected') throw asError(waved.reason);
  if (quotas.status === 'rejected') throw asError(quotas.reason);
  // Which objects exist (200), or may (no dry-run answer): before a warning says they will be applied.
  const { refs, deferred, unverified } = waved.value;
  const unanswered = new Set([...deferred, ...unverified.map((u) => u.target)]);
  await checkAdoption(
    op,
    targets.filter((t, i) => refs[i]?.created === false || unanswered.has(t)),
    flags,
  );
  // Told only now that the objects will be applied: a refusal above applies nothing.
  for (const { target, text } of waved.value.unverified) tellUnverified(op, target, text);
  if (namespace !== undefined && quotas.value !== undefined)
    checkBatchQuota(op, namespace, quotas.value, targets, waved.value.refs);
  return waved.value;
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
    const error = new RequestError(
      'Apply',
      describeRef(target.ref),
      notAdoptedText(flags.fieldManager, read.value),
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
  const { refs, deferred } = await waveAndQuotas(op, targets, flags);
  if (flags.dryRun) return refs.map((ref) => ({ ...ref, dryRun: true }));
  return applyAll(op, targets, flags, async (target) => {
    if (!deferred.has(target)) return;
    const again = await dryRun(op, target, flags);
    if ('error' in again) throw again.error;
    if (again.unverified !== undefined) tellUnverified(op, target, again.unverified);
  });
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
      if (!(error instanceof OperationError) || error.operation !== 'Apply') throw error;
      throw new OperationError('Apply', [...refs, ...error.resources], error.failures);
    }
  }
  return refs;
}
