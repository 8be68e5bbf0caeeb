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
  objectPath,
  type OperationContext,
  send,
  segment,
  uidOf,
  withUid,
  write,
  warningTarget,
} from './operations.ts';
import { applyFoundNothing, createdByPostText } from './checks/created-by-post.ts';
import { normalizeSecret } from './checks/secrets.ts';
import { quotaVerdict } from './checks/quota.ts';
import { isRecord } from './util/json.ts';
import {
  batchPrerequisite,
  dryRunMayWrite,
  dryRunResendable,
  dryRunUnsupportedBy,
  notDryRunText,
  unverifiedText,
} from './checks/preflight.ts';
import { describeRef } from './checks/refs.ts';
import type { CreatedRef, ServerWarning } from './types.ts';
import type { Target } from './validate.ts';

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

/**
 * The dry run of the POST that creates a kind apply cannot create (checks/created-by-post.ts),
 * sent as write() sends it but without its warning: the warning belongs to the write, told once
 * the wave passes.
 */
async function dryRunPost(op: OperationContext, target: Target, flags: ApplyFlags): Promise<CreatedRef> {
  const { ref } = target;
  const { code, body } = await send(op, {
    method: 'POST',
    path: objectPath(ref.apiVersion, target.resource, ref.namespace),
    query: { fieldManager: flags.fieldManager, dryRun: 'All' },
    body: normalizeSecret(target.object),
    step: 'Apply',
    target: describeRef(ref),
    object: warningTarget(ref),
    redact: op.redact,
  });
  return { ...withUid(ref, uidOf(body)), created: code === 201, dryRun: true };
}

/**
 * A dry run the server answered with a refusal stored nothing, whatever the answer (a 500 of a
 * conversion included, as the legacy RBAC proxy's `invalid kind for origin subject`): its outcome
 * is `'refused'`. Only kinds whose storage honours dry runs are sent one (dryRunMayWrite).
 */
function refusedDryRun(error: RequestError): RequestError {
  if (error.statusCode === undefined || error.outcome !== 'unknown') return error;
  const detail = error.message.slice(`${error.step} ${error.target}: `.length);
  return new RequestError(error.step, error.target, detail, {
    statusCode: error.statusCode,
    code: error.code,
    outcome: 'refused',
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    ...(error.status === undefined ? {} : { status: error.status }),
    resource: error.resource,
    notFound: error.notFound,
    cause: error.cause,
  });
}

/**
 * The dry run of one target. A kind whose apply cannot create it answers 404 and is created by a
 * POST: that POST is dry-run in its place, so its proxy's own checks (the subjects it converts,
 * RBAC's escalation check) come before the first write. A webhook that does not support dry runs,
 * or a kind whose dry run may write, leaves the object unverified, said on the warning channel,
 * never refused (issue #36 item 4). A lost connection is sent once more where the storage
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
      return { ref: await dryRunPost(op, target, flags), posted };
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
 * What the wave decided: each object's ref, the objects to dry-run again before their write, and
 * the warnings for objects applied unverified (told once the wave passes).
 */
interface Wave {
  refs: CreatedRef[];
  deferred: Set<Target>;
  unverified: { target: Target; text: string }[];
  /** Objects whose dry run was the POST that will create them. */
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
async function wave(op: OperationContext, targets: readonly Target[], flags: ApplyFlags): Promise<Wave> {
  const answers = await Promise.all(
    targets.map(async (target) => ({ target, answer: await dryRun(op, target, flags) })),
  );
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
  return { refs, deferred, unverified, posted };
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
 * The batch's sum against each quota (checks/quota.ts), over the objects the wave said would be
 * created: the refusals where it is exact, and the warnings (told once the create goes ahead)
 * where it counts objects no dry run settled or the quotas could not be read.
 */
function checkBatchQuota(
  op: OperationContext,
  namespace: string,
  quotas: QuotaRead,
  targets: readonly Target[],
  { refs, unsure }: { refs: readonly CreatedRef[]; unsure: ReadonlySet<Target> },
): { failures: OperationFailure[]; warnings: ServerWarning[] } {
  const created = targets
    .filter((_, i) => refs[i]?.created === true)
    .map((t) => ({ ref: t.ref, resource: t.resource, object: t.object, unsure: unsure.has(t) }));
  if (created.length === 0) return { failures: [], warnings: [] };
  const warn = (code: ServerWarning['code'], text: string): ServerWarning => ({
    code,
    text: op.redact(text),
    operation: op.operation,
  });
  if ('unread' in quotas) {
    const text =
      `the batch's sum against the ResourceQuotas of namespace "${namespace}" was not checked: ${quotas.unread} ` +
      '(list resourcequotas is optional; each object was still checked against quota by its own dry run)';
    return { failures: [], warnings: [warn('OTC_QUOTA_UNCHECKED', text)] };
  }
  const { failures, warnings } = quotaVerdict(namespace, quotas.items, created, op.redact);
  return { failures, warnings: warnings.map((text) => warn('OTC_QUOTA_EXCEEDED_BY_BATCH', text)) };
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
  const { refs, deferred, unverified } = waved.value;
  const unsure = new Set([...deferred, ...unverified.map((u) => u.target)]);
  const verdict =
    namespace === undefined || quotas.value === undefined
      ? undefined
      : checkBatchQuota(op, namespace, quotas.value, targets, { refs, unsure });
  if (verdict !== undefined && verdict.failures.length > 0)
    throw new OperationError('Preflight', [], verdict.failures);
  // Told only now that the objects will be applied: a refusal above applies nothing.
  for (const { target, text } of unverified) tellUnverified(op, target, text);
  for (const warning of verdict?.warnings ?? []) op.connection.notify(warning, op.warnings);
  return waved.value;
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
  const { refs, deferred, posted } = await waveAndQuotas(op, targets, flags);
  if (flags.dryRun) {
    // The write's own warning, as the schema-only path's dry run gives it; a real create tells it at the POST.
    for (const target of posted) {
      const text = op.redact(createdByPostText(target.ref, true));
      const about = { code: 'OTC_CREATED_BY_POST', target: warningTarget(target.ref) } as const;
      op.connection.notify({ text, operation: op.operation, ...about }, op.warnings);
    }
    return refs.map((ref) => ({ ...ref, dryRun: true }));
  }
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
