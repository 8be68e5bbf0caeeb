// The pre-flight's quota check beside the dry-run wave. kube-apiserver checks quota per request
// and charges it only on real writes (k8s.io/apiserver pkg/admission/plugin/resourcequota/
// controller.go: a dry run's usage is never recorded), so objects that each fit pass their dry
// runs even when together they do not. The namespace's ResourceQuotas are read once, and what
// the batch would create is summed against them (checks/quota.ts): where that sum is exact, a
// quota it exceeds refuses the create before anything is written; where it is an estimate, a
// warning says so.
import { type OperationFailure, RequestError } from './errors.ts';
import { type OperationContext, send, segment, warningTarget } from './operations.ts';
import { exceededQuotas, type Planned, quotaText } from './checks/quota.ts';
import { describeRef } from './checks/refs.ts';
import { groupOf } from './checks/names.ts';
import { isRecord } from './util/json.ts';
import type { CreatedRef, ServerWarning } from './types.ts';
import type { Target } from './validate.ts';

/** The namespace's ResourceQuotas as listed, or why they could not be. */
export type QuotaRead = { items: unknown[] } | { unread: string };

/**
 * The one read of the target namespace's ResourceQuotas. A refusal (403 for a caller without
 * `list resourcequotas`, which the README calls optional) or any other failure leaves the batch's
 * sum unchecked, said once: it never fails the create.
 *
 * @example
 * const quotas = await readQuotas(op, 'workers');
 */
export async function readQuotas(op: OperationContext, namespace: string): Promise<QuotaRead> {
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

/** What the wave said of each target: its ref, and which ones no dry run settled. */
export interface WaveRefs {
  refs: readonly CreatedRef[];
  /** Targets created without a dry run's answer (deferred, or applied unverified). */
  unsure: ReadonlySet<Target>;
}

/** The batch's quota verdict: the refusals (one per quota exceeded exactly), else the warnings. */
export interface QuotaVerdict {
  failures: OperationFailure[];
  warnings: ServerWarning[];
}

/**
 * Sums what the batch would create (the objects whose dry run said `created`, and those created
 * unsure) against each quota read. A quota the exact sum exceeds is one failure on the first object
 * past its limit in rendered order (`OTC_QUOTA_EXCEEDED`, outcome `'refused'`: nothing is written);
 * a quota only the estimate exceeds, or quotas that could not be read, are warnings, told by the
 * caller once the create goes ahead.
 *
 * @example
 * const { failures, warnings } = quotaVerdict(op, 'workers', quotas, targets, { refs, unsure });
 */
export function quotaVerdict(
  op: OperationContext,
  namespace: string,
  quotas: QuotaRead,
  targets: readonly Target[],
  wave: WaveRefs,
): QuotaVerdict {
  const created = targets.filter((_, i) => wave.refs[i]?.created === true);
  const planned: Planned[] = created.map((t) => ({
    group: groupOf(t.ref.apiVersion),
    resource: t.resource,
    object: t.object,
    ...(wave.unsure.has(t) ? { unsure: true } : {}),
  }));
  const verdict: QuotaVerdict = { failures: [], warnings: [] };
  if (planned.length === 0) return verdict;
  const warn = (code: 'OTC_QUOTA_EXCEEDED_BY_BATCH' | 'OTC_QUOTA_UNCHECKED', text: string): void => {
    verdict.warnings.push({ code, text: op.redact(text), operation: op.operation });
  };
  if ('unread' in quotas) {
    warn(
      'OTC_QUOTA_UNCHECKED',
      `the batch's sum against the ResourceQuotas of namespace "${namespace}" was not checked: ${quotas.unread} ` +
        '(list resourcequotas is optional; each object was still checked against quota by its own dry run)',
    );
    return verdict;
  }
  for (const exceeded of exceededQuotas(quotas.items, planned)) {
    const target = exceeded.first === undefined ? undefined : created[exceeded.first];
    if (target === undefined) {
      warn('OTC_QUOTA_EXCEEDED_BY_BATCH', quotaText(namespace, exceeded));
      continue;
    }
    const error = new RequestError(
      'Apply',
      describeRef(target.ref),
      op.redact(quotaText(namespace, exceeded)),
      {
        code: 'OTC_QUOTA_EXCEEDED',
        outcome: 'refused',
        resource: warningTarget(target.ref),
      },
    );
    verdict.failures.push({ resource: target.ref, error });
  }
  return verdict;
}
