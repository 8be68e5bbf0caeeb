// create()'s steps after rendering: typing, the writes, and the quota read of the pre-flight.
import { debuglog } from 'node:util';
import { OperationError, RequestError, ValidationError } from '../errors.ts';
import { redactProblem } from '../util/redact.ts';
import type { CreatedRef, FieldValidation, ResourceRef } from '../types/index.ts';
import { isRecord } from '../util/json.ts';
import { normalizeSecret } from '../checks/secrets.ts';
import { describeRef } from '../checks/refs.ts';
import { applyFoundNothing, createdByPostText, resourceCreatedByPost } from '../checks/created-by-post.ts';
import { withOwnerLabel } from '../checks/ownership.ts';
import type { QuotaRead } from '../checks/quota.ts';
import {
  type Target,
  type Untyped,
  type Verdict,
  verdicts,
  verdictProblems,
  whyUntyped,
  worthRereading,
} from '../validate.ts';
import type { SchemaLookup } from '../connection/openapi.ts';
import type { TypingProblem } from '../schema/index.ts';
import {
  asRequestError,
  objectPath,
  type OperationContext,
  segment,
  send,
  tell,
  uidOf,
  warningTarget,
  withUid,
} from './context.ts';

const debug = debuglog('openshift-templates');

/** The schema of each group-version the targets use; `fresh` reads the root again (bounded). */
function lookupSchemas(
  op: OperationContext,
  targets: readonly Target[],
  fresh: boolean,
): Promise<Map<string, SchemaLookup>> {
  const apiVersions = [...new Set(targets.map((t) => t.ref.apiVersion))];
  const wait = { signal: op.signal, readMs: op.timeout.read };
  return op.connection.schemas.lookup(apiVersions, fresh, wait, op.warnings);
}

/** The verdicts after the root was read again; the re-read only ever adds what is new. */
async function reread(op: OperationContext, first: Verdict[], mode: FieldValidation): Promise<Verdict[]> {
  const targets = first.map((v) => v.target);
  let schemas: ReadonlyMap<string, SchemaLookup>;
  try {
    schemas = await lookupSchemas(op, targets, true);
  } catch (error) {
    if (op.signal?.aborted || op.connection.closed) throw error;
    const why = error instanceof Error ? error.message : String(error);
    debug('%s: the OpenAPI v3 root could not be read again, so the cached one stands: %s', op.operation, why);
    return first;
  }
  const fresh = verdicts(targets, schemas, mode);
  return fresh.map((verdict, i) => {
    const before = first[i];
    return 'missing' in verdict && before !== undefined && !('missing' in before) ? before : verdict;
  });
}

/** Under Strict an object without a schema is applied as before, said once per Connection. */
function tellUntyped(op: OperationContext, ref: ResourceRef, missing: Untyped, answer?: string): void {
  const key = missing === 'kind' ? `${ref.apiVersion} ${ref.kind}` : ref.apiVersion;
  if (!op.connection.schemas.firstTime(key)) return;
  const what = missing === 'kind' ? `${ref.kind} objects of ${ref.apiVersion}` : `${ref.apiVersion} objects`;
  tell(
    op,
    'OTC_APPLIED_UNTYPED',
    `${what} are applied without being typed first: ${whyUntyped(missing, ref, answer)}`,
  );
}

function tellRemoved(
  op: OperationContext,
  ref: ResourceRef,
  removed: readonly TypingProblem[],
  mode: FieldValidation,
): void {
  for (const problem of removed) {
    const text = op.redact(
      problem.kind === 'server-set'
        ? `server-set field "${problem.path}" removed from ${describeRef(ref)}: kube-apiserver refuses it in an apply body`
        : `unknown field "${problem.path}" removed from ${describeRef(ref)}: the server's ${ref.apiVersion} schema does not declare it`,
    );
    // A keyed list's path quotes its key, which may be a Secret-bound value: redacted as the text is.
    const path = op.redact(problem.path);
    const about = { code: 'OTC_FIELD_DROPPED', path, target: warningTarget(ref) } as const;
    if (mode === 'Warn') op.connection.notify({ text, operation: op.operation, ...about }, op.warnings);
    else debug('%s: fieldValidation Ignore: %s', op.operation, text);
  }
}

/**
 * Types every target as server-side apply will and returns the objects to apply (undeclared fields
 * dropped under Warn or Ignore, Secrets' stringData folded after typing); see docs/typing.md.
 */
export async function typeTargets(
  op: OperationContext,
  targets: readonly Target[],
  mode: FieldValidation,
): Promise<Target[]> {
  if (targets.length === 0) return [];
  // stringData is typed as rendered, a map of strings, before it is folded.
  let found = verdicts(targets, await lookupSchemas(op, targets, false), mode);
  // A kind or field added since the root was read: read it again, once per operation.
  if (found.some(worthRereading)) found = await reread(op, found, mode);
  const { problems, unavailable, fixableByWarn } = verdictProblems(found, mode);
  if (problems.length > 0)
    throw new ValidationError(
      op.operation,
      problems.map((problem) => redactProblem(problem, op.redact)),
      unavailable ? 'OTC_SCHEMA_UNAVAILABLE' : 'OTC_UNSAFE_OBJECT',
      fixableByWarn,
    );
  // Told only now that the objects will be applied: a refusal above applies nothing.
  return found.map((verdict) => {
    if ('missing' in verdict) {
      tellUntyped(op, verdict.target.ref, verdict.missing, verdict.answer);
      return { ...verdict.target, object: normalizeSecret(verdict.target.object) };
    }
    tellRemoved(op, verdict.target.ref, verdict.check.removed, mode);
    return { ...verdict.target, object: normalizeSecret(verdict.check.object) };
  });
}

export interface ApplyFlags {
  fieldManager: string;
  dryRun: boolean;
  /** Take over existing objects this manager does not manage (CreateOptions.adopt). */
  adopt?: boolean | undefined;
}

/**
 * Server-side apply in order; stops at the first failure with OperationError('Apply') holding
 * exactly the refs applied before it. `before` may settle a target first: the target to write
 * (retyped after its own dry run), or the ref of one that is not sent.
 */
export async function applyAll(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
  before?: (target: Target) => Target | CreatedRef | Promise<Target | CreatedRef>,
): Promise<CreatedRef[]> {
  const applied: CreatedRef[] = [];
  for (const target of targets) {
    try {
      const next = before === undefined ? target : await before(target);
      if (!('ref' in next)) {
        applied.push(next);
        continue;
      }
      applied.push(await write(op, next, flags));
    } catch (error) {
      const failure = asRequestError(error, 'Apply', target.ref);
      throw new OperationError('Apply', applied, [{ resource: target.ref, error: failure }]);
    }
  }
  return applied;
}

/**
 * One write of create(): an apply, or for checks/created-by-post.ts's kinds a merge patch and, when
 * it finds nothing, their POST. Never forced. `onPost` hears of a POST and keeps its warning for a
 * later write to tell.
 */
export async function write(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  onPost?: () => void,
): Promise<CreatedRef> {
  const { ref } = target;
  const patch =
    resourceCreatedByPost(ref) === undefined
      ? 'application/apply-patch+yaml'
      : 'application/merge-patch+json';
  const request = (post: boolean): ReturnType<typeof send> =>
    send(op, {
      method: post ? 'POST' : 'PATCH',
      path: objectPath(ref.apiVersion, target.resource, ref.namespace, post ? undefined : ref.name),
      // The field manager on the POST too: kube-apiserver records the create under it.
      query: { fieldManager: flags.fieldManager, dryRun: flags.dryRun ? 'All' : undefined },
      ...(post ? {} : { contentType: patch }),
      // The typed object plus the label that marks it as this field manager's (checks/ownership.ts).
      body: withOwnerLabel(target.object, flags.fieldManager),
      step: 'Apply',
      target: describeRef(ref),
      object: warningTarget(ref),
      redact: op.redact,
    });
  let post = false;
  let answer: Awaited<ReturnType<typeof send>>;
  try {
    answer = await request(false);
  } catch (error) {
    const { statusCode, status } = error instanceof RequestError ? error : {};
    if (!applyFoundNothing(ref, statusCode, status)) throw error;
    post = true;
    onPost?.();
    answer = await request(true);
  }
  const { code, body } = answer;
  if (post && onPost === undefined)
    tell(op, 'OTC_CREATED_BY_POST', createdByPostText(ref, flags.dryRun), ref);
  // A dry run's UID is one the server made up for an object it did not store: marked as such.
  return { ...withUid(ref, uidOf(body)), created: code === 201, ...(flags.dryRun ? { dryRun: true } : {}) };
}

/**
 * The one read of the namespace's ResourceQuotas; any failure (a 403: the permission is optional)
 * leaves the sum unchecked, said once, and never fails the create.
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
