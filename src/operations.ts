// The steps the five operations are made of (rendering and resolving targets is render.ts,
// deleting modes.ts): the Connection an operation runs on, typing against the server's schema,
// apply, read.
import { debuglog } from 'node:util';
import type { Operation, WarningRoute } from './connection/warnings.ts';
import { ClusterConnection } from './connection/connection.ts';
import { openConnection } from './connection/connect.ts';
import { type ApiRequest, type ApiResponse, type Timeouts, toTimeouts } from './connection/requests.ts';
import { OperationError, type Redactor, redactProblem, RequestError, ValidationError } from './errors.ts';
import type { RequestStep } from './outcome.ts';
import type {
  CommonOptions,
  CreatedRef,
  FieldValidation,
  KubernetesObject,
  Missing,
  ResourceRef,
  ServerWarning,
  WarningHandler,
} from './types.ts';
import { isRecord } from './util/json.ts';
import { normalizeSecret } from './checks/secrets.ts';
import { describeRef } from './checks/refs.ts';
import { applyFoundNothing, createdByPostText, resourceCreatedByPost } from './checks/created-by-post.ts';
import { withOwnerLabel } from './checks/ownership.ts';
import type { QuotaRead } from './checks/quota.ts';
import {
  type Target,
  type Untyped,
  type Verdict,
  verdicts,
  verdictProblems,
  whyUntyped,
  worthRereading,
} from './validate.ts';
import type { SchemaLookup } from './connection/openapi.ts';
import type { TypingProblem } from './schema/index.ts';

const debug = debuglog('openshift-templates');

/** What the requests of one operation share: its Connection, limits, signal and redaction. */
export interface OperationContext {
  operation: Operation;
  connection: ClusterConnection;
  timeout: Timeouts;
  signal: AbortSignal | undefined;
  redact: Redactor;
  warnings: WarningRoute;
}

export function contextFor(
  operation: Operation,
  connection: ClusterConnection,
  options: {
    requestTimeout?: unknown;
    signal?: AbortSignal | undefined;
    onWarning?: WarningHandler | undefined;
  },
): OperationContext {
  return {
    operation,
    connection,
    timeout: toTimeouts(options.requestTimeout as Timeouts | number | undefined, connection.timeouts),
    signal: options.signal,
    redact: (text) => text,
    // One report of each distinct warning per call (connection/warnings.ts).
    warnings: { operation, handler: options.onWarning, reported: new Set() },
  };
}

/** One request of the operation, with its limits, signal and warning route. */
export function send(
  op: OperationContext,
  request: Omit<ApiRequest, 'timeout' | 'signal' | 'warnings'>,
): Promise<ApiResponse> {
  return op.connection.request({ ...request, timeout: op.timeout, signal: op.signal, warnings: op.warnings });
}

/** How a warning names the object its request was about. */
export function warningTarget(ref: ResourceRef): NonNullable<ServerWarning['target']> {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace };
}

export const segment = (value: string): string => encodeURIComponent(value);

export function objectPath(apiVersion: string, resource: string, namespace: string, name?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const collection = `${base}/namespaces/${segment(namespace)}/${segment(resource)}`;
  return name === undefined ? collection : `${collection}/${segment(name)}`;
}

export function uidOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  if (typeof metadata.uid === 'string') return metadata.uid;
  const details = isRecord(body.details) ? body.details : {};
  return typeof details.uid === 'string' ? details.uid : undefined;
}

export function withUid(ref: ResourceRef, uid: string | undefined): ResourceRef {
  const { uid: _old, ...rest } = ref;
  return uid === undefined ? rest : { ...rest, uid };
}

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

/**
 * The verdicts after the root was read again; where that read failed, or lost a schema the
 * cached root had, the first verdict stands: the re-read only ever adds what is new.
 */
async function reread(op: OperationContext, first: Verdict[], mode: FieldValidation): Promise<Verdict[]> {
  const targets = first.map((v) => v.target);
  let schemas: ReadonlyMap<string, SchemaLookup>;
  try {
    schemas = await lookupSchemas(op, targets, true);
  } catch (error) {
    if (op.signal?.aborted || op.connection.closed) throw error;
    const why = asError(error).message;
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
  op.connection.notify(
    {
      text: `${what} are applied without being typed first: ${whyUntyped(missing, ref, answer)}`,
      code: 'OTC_APPLIED_UNTYPED',
      operation: op.operation,
    },
    op.warnings,
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
 * Types every target as server-side apply will, before anything is applied (create only), and
 * returns the targets with the objects to apply: under Warn or Ignore without the fields the
 * schema does not declare, and Secrets with stringData folded into data after typing, as the
 * server folds it. Strict refuses any problem; every mode refuses wrong types, keyed-list errors
 * and what will not decode.
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

/** Server-side apply in order; stops at the first failure with exactly the refs applied before it. */
export interface ApplyFlags {
  fieldManager: string;
  dryRun: boolean;
  /** Take over existing objects this manager does not manage (CreateOptions.adopt). */
  adopt?: boolean | undefined;
}

export async function applyAll(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
  before?: (target: Target) => Promise<void>,
): Promise<CreatedRef[]> {
  const applied: CreatedRef[] = [];
  for (const target of targets) {
    try {
      await before?.(target);
      const written = await write(op, target, flags, false).catch((error: unknown) => {
        const { statusCode, status } = error instanceof RequestError ? error : {};
        if (!applyFoundNothing(target.ref, statusCode, status)) throw error;
        return write(op, target, flags, true);
      });
      applied.push(written);
    } catch (error) {
      const failure = asRequestError(error, 'Apply', target.ref);
      throw new OperationError('Apply', applied, [{ resource: target.ref, error: failure }]);
    }
  }
  return applied;
}

/**
 * One write of create(): an apply (forced for the kinds of checks/created-by-post.ts, which says why),
 * or their POST. `tell: false` keeps the POST's warning back for a dry run whose write tells it later.
 */
export async function write(
  op: OperationContext,
  target: Target,
  flags: ApplyFlags,
  post: boolean,
  tell = true,
): Promise<CreatedRef> {
  const { ref } = target;
  const force = !post && resourceCreatedByPost(ref) !== undefined ? 'true' : undefined;
  const { code, body } = await send(op, {
    method: post ? 'POST' : 'PATCH',
    path: objectPath(ref.apiVersion, target.resource, ref.namespace, post ? undefined : ref.name),
    // The field manager on the POST too: kube-apiserver records the create under it.
    query: { fieldManager: flags.fieldManager, dryRun: flags.dryRun ? 'All' : undefined, force },
    ...(post ? {} : { contentType: 'application/apply-patch+yaml' }),
    // The rendered object plus the label that marks it as this field manager's (checks/ownership.ts).
    body: withOwnerLabel(normalizeSecret(target.object), flags.fieldManager),
    step: 'Apply',
    target: describeRef(ref),
    object: warningTarget(ref),
    redact: op.redact,
  });
  if (post && tell) {
    const text = op.redact(createdByPostText(ref, flags.dryRun));
    const about = { code: 'OTC_CREATED_BY_POST', target: warningTarget(ref) } as const;
    op.connection.notify({ text, operation: op.operation, ...about }, op.warnings);
  }
  // A dry run's UID is one the server made up for an object it did not store: marked as such.
  return { ...withUid(ref, uidOf(body)), created: code === 201, ...(flags.dryRun ? { dryRun: true } : {}) };
}

/**
 * The one read of the target namespace's ResourceQuotas. A refusal (403 for a caller without
 * `list resourcequotas`, which the README calls optional) or any other failure leaves the batch's
 * sum unchecked, said once: it never fails the create.
 *
 * @example
 * const read = await readQuotas(op, 'workers'); // { items } or { unread: why }
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

/**
 * Reads each target in order. With `missing: 'null'` a 404, or a live object whose UID is not the
 * ref's (the saved object is gone, another took its name), is `null` in its place.
 */
export async function readAll(
  op: OperationContext,
  targets: readonly Target[],
  missing: Missing,
): Promise<(KubernetesObject | null)[]> {
  const objects: (KubernetesObject | null)[] = [];
  for (const target of targets) {
    try {
      objects.push(await readOne(op, target));
    } catch (error) {
      if (missing === 'error' || !isGone(error)) throw error;
      objects.push(null);
    }
  }
  return objects;
}

function isGone(error: unknown): boolean {
  return error instanceof RequestError && (error.statusCode === 404 || error.code === 'OTC_REPLACED');
}

export async function readOne(op: OperationContext, target: Target): Promise<KubernetesObject> {
  const { body } = await send(op, {
    method: 'GET',
    path: objectPath(target.ref.apiVersion, target.resource, target.ref.namespace, target.ref.name),
    step: 'Get',
    target: describeRef(target.ref),
    object: warningTarget(target.ref),
    redact: op.redact,
  });
  const expected = target.ref.uid;
  const found = uidOf(body);
  if (expected !== undefined && found !== expected) {
    throw new RequestError(
      'Get',
      describeRef(target.ref),
      `the live object has UID "${found ?? '(none)'}", not the UID "${expected}" of the reference: it was replaced`,
      { code: 'OTC_REPLACED', outcome: 'refused', resource: warningTarget(target.ref) },
    );
  }
  return body as KubernetesObject;
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A failure of one object's request as the RequestError an OperationFailure holds. Every request
 * fails with one; anything else is a defect of the library, kept as `cause`, its message not
 * repeated (it may carry anything).
 */
export function asRequestError(error: unknown, step: RequestStep, ref: ResourceRef): RequestError {
  if (error instanceof RequestError) return error;
  const detail = 'failed unexpectedly (a defect of the library: please report it)';
  return new RequestError(step, describeRef(ref), detail, {
    cause: error,
    code: 'OTC_UNEXPECTED',
    outcome: 'unknown',
    resource: warningTarget(ref),
  });
}

/** Runs `work` on the caller's connection (left open) or on one of its own (always closed). */
export async function withConnection<T>(
  operation: string,
  options: CommonOptions,
  work: (connection: ClusterConnection) => Promise<T>,
): Promise<T> {
  if (options.api !== undefined) {
    if (!(options.api instanceof ClusterConnection)) {
      throw new ValidationError(operation, ['api must be a Connection returned by connect()']);
    }
    // The code a request in flight gets when close() ends it: a scheduler checks one code.
    if (options.api.closed)
      throw new ValidationError(operation, ['api is a closed Connection'], 'OTC_CONNECTION_CLOSED');
    return work(options.api);
  }
  // The operation's signal covers its own connection too: loading, the check request, the pool.
  const connection = await openConnection({
    ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }),
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

export function assertValid(operation: string, issues: string[]): void {
  if (issues.length > 0) throw new ValidationError(operation, issues);
}
