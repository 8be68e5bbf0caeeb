// How a call becomes work: its own Connection or the caller's, template mode (validate, render,
// resolve and check every target) or reference mode (validate and resolve the refs); resolving a
// target is discovery for its kind, then the checks before any mutation. The delete step lives here
// because it differs by mode: a replay has no saved state, so it reads who owns each object first.
import { openConnection } from './connection/connect.ts';
import { ClusterConnection } from './connection/connection.ts';
import { isRecord } from './util/json.ts';
import {
  asRequestError,
  contextFor,
  objectPath,
  type OperationContext,
  send,
  uidOf,
  warningTarget,
  withUid,
} from './operations.ts';
import { describeRef } from './checks/refs.ts';
import {
  OperationError,
  type OperationFailure,
  redactProblem,
  RequestError,
  ValidationError,
} from './errors.ts';
import { dryRunMayWrite } from './checks/preflight.ts';
import { render, renderForDelete } from './render.ts';
import { isTemplateObject, type TemplateSource } from './checks/template-source.ts';
import type {
  CommonOptions,
  DeleteResult,
  ResourceRef,
  ReferenceOptions,
  TemplateObject,
  TemplateOptions,
  TemplateParameters,
} from './types.ts';
import { checkReferenceArguments, checkTemplateArguments } from './checks/arguments.ts';
import { countOf, referenceCall, templateCall, traceOperation } from './connection/tracing.ts';
import { checkRenderedObjects, type KindLookup, type Target } from './validate.ts';
import { type Document, resourceForKind } from './connection/discovery.ts';
import type { ValidationErrorCode } from './outcome.ts';

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

/**
 * Template mode: validate the arguments, render, resolve and check every target, then `act`.
 * `absent` answers for a target namespace that does not exist, from the Template's object count.
 */
export async function onTemplateTargets<O extends TemplateOptions, T>(
  operation: 'create' | 'get' | 'delete',
  source: TemplateSource,
  parameters: TemplateParameters | undefined,
  options: O | undefined,
  act: (op: OperationContext, targets: Target[], options: O) => Promise<T>,
  absent?: (count: number) => T,
): Promise<T> {
  return traceOperation(
    () => templateCall(operation, source, options),
    async () => {
      const issues = checkTemplateArguments(operation, source, parameters, options);
      if (issues.length > 0 || options === undefined) throw new ValidationError(operation, issues);
      return withConnection(operation, options, async (connection) => {
        const op = contextFor(operation, connection, options);
        const rendered =
          operation === 'delete'
            ? await renderForDelete(op, source, parameters, options)
            : await render(op, source, parameters, options);
        // A delete into a namespace that no longer exists: none of its objects exist either.
        if (rendered === undefined) return act(op, [], options);
        if ('absent' in rendered) {
          if (absent === undefined) throw rendered.absent;
          return absent(rendered.count);
        }
        op.redact = rendered.redact;
        return act(op, await resolveTargets(op, rendered.objects, options.namespace), options);
      });
    },
    countOf,
  );
}

/** Reference mode: validate the refs, resolve their kinds, then `act`; an empty list sends nothing. */
export async function onReferenceTargets<O extends ReferenceOptions, T>(
  operation: 'get' | 'delete',
  options: O,
  act: (op: OperationContext, targets: Target[], options: O) => Promise<T[]>,
): Promise<T[]> {
  return traceOperation(
    () => referenceCall(operation, options),
    async () => {
      assertValid(operation, checkReferenceArguments(operation, options));
      if (options.resources.length === 0) return [];
      return withConnection(operation, options, async (connection) => {
        const op = contextFor(operation, connection, options);
        return act(op, await resolveReferences(op, options.resources), options);
      });
    },
    countOf,
  );
}

/** Reference mode is told apart by `resources`: a Template object has none. */
export function isReferenceCall<R extends ReferenceOptions>(first: string | TemplateObject | R): first is R {
  return isRecord(first) && ('resources' in first || !isTemplateObject(first));
}

/** Discovery for every group-version the objects use (cached per connection), then all checks. */
export async function resolveTargets(
  op: OperationContext,
  objects: readonly unknown[],
  namespace: string,
  badInput: ValidationErrorCode = 'OTC_UNSAFE_OBJECT',
): Promise<Target[]> {
  const apiVersions = new Set<string>();
  for (const object of objects) {
    if (isRecord(object) && typeof object.apiVersion === 'string' && object.apiVersion !== '')
      apiVersions.add(object.apiVersion);
  }
  const documents = new Map<string, Document>();
  const wait = { signal: op.signal, readMs: op.timeout.read };
  // One after another: after a Connection's first operation every lookup is a cache hit, and over
  // HTTP/1.1 lookups in parallel would open more sockets (more handshakes) for nothing.
  for (const apiVersion of apiVersions) {
    documents.set(apiVersion, await op.connection.discovery.get(apiVersion, wait, op.warnings));
  }
  const lookup = (apiVersion: string, kind: string): ReturnType<KindLookup> => {
    const found = resourceForKind(documents.get(apiVersion) ?? [], kind);
    return found ? { resource: found.name, namespaced: found.namespaced } : undefined;
  };
  // A kind the cached answer lacks may have appeared since (a CRD installed after connect(), or a
  // transient 404): look again, once per operation, before refusing.
  const missing = new Set<string>();
  for (const object of objects) {
    if (!isRecord(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string')
      continue;
    if (object.apiVersion !== '' && object.kind !== '' && !lookup(object.apiVersion, object.kind))
      missing.add(object.apiVersion);
  }
  for (const apiVersion of missing) {
    documents.set(apiVersion, await op.connection.discovery.refresh(apiVersion, wait, op.warnings));
  }
  const { targets, problems, notServed } = checkRenderedObjects(objects, namespace, lookup);
  if (problems.length > 0)
    throw new ValidationError(
      op.operation,
      problems.map((problem) => redactProblem(problem, op.redact)),
      notServed ? 'OTC_KIND_NOT_SERVED' : badInput,
    );
  return targets;
}

/** Reference-mode targets: the refs themselves, each resolved through discovery. */
export async function resolveReferences(
  op: OperationContext,
  resources: readonly ResourceRef[],
): Promise<Target[]> {
  const objects = resources.map((ref) => ({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { name: ref.name, namespace: ref.namespace },
  }));
  const namespace = resources[0]?.namespace ?? '';
  const targets = await resolveTargets(op, objects, namespace, 'OTC_INVALID_ARGUMENT');
  return targets.map((t, i) => {
    const uid = resources[i]?.uid;
    return uid === undefined ? t : { ...t, ref: { ...t.ref, uid } };
  });
}

export interface DeleteFlags {
  dryRun?: boolean | undefined;
  propagationPolicy?: string | undefined;
  useUid: boolean;
}

/** Deletes in reverse order by name (a ref's `uid` as a precondition), attempting every target. */
export async function deleteAll(
  op: OperationContext,
  targets: readonly Target[],
  flags: DeleteFlags,
): Promise<DeleteResult[]> {
  const deleted: DeleteResult[] = [];
  const failures: OperationFailure[] = [];
  for (const target of [...targets].reverse()) {
    try {
      const uid = flags.useUid ? target.ref.uid : undefined;
      if (skippedDryRun(op, target, flags))
        deleted.push({ ...target.ref, deletion: 'deleted', dryRun: true });
      else deleted.push(await deleteOne(op, target, flags, uid === undefined ? undefined : { uid }));
    } catch (error) {
      failures.push({ resource: target.ref, error: asRequestError(error, 'Delete', target.ref) });
    }
  }
  if (failures.length > 0) throw new OperationError('Delete', deleted, failures);
  return deleted;
}

/**
 * Whether a dry-run delete of this target is not sent, said with the warning create()'s pre-flight
 * gives: the image kinds' storage deleted for real on a dry run before openshift-apiserver#511
 * (Delete calls UpdateImageStream without the options), and a server does not say whether it has
 * the fix. Legacy RBAC deletes pass their options on in every release: sent.
 *
 * @example
 * if (skippedDryRun(op, target, { dryRun: true, useUid: false })) console.log('not sent');
 */
export function skippedDryRun(op: OperationContext, target: Target, flags: DeleteFlags): boolean {
  if (flags.dryRun !== true || !dryRunMayWrite(target.ref)) return false;
  const { ref } = target;
  const text =
    `${describeRef(ref)} is not dry-run deleted, so this result is unverified: openshift-apiserver before ` +
    `openshift/openshift-apiserver#511 writes the image stream on a dry-run delete of ${ref.apiVersion} ${ref.kind}`;
  const warning = {
    code: 'OTC_DRY_RUN_UNVERIFIED',
    text: op.redact(text),
    target: warningTarget(ref),
  } as const;
  op.connection.notify({ ...warning, operation: op.operation }, op.warnings);
  return true;
}

/**
 * What a DELETE is pinned to: the UID (reference mode's ref, the replay's read) and, for the
 * replay, the resourceVersion it read, so a change since the read answers 409 (apimachinery
 * `Preconditions`). ImageStreamTag and ImageTag storages check only the image stream's UID.
 */
export interface Pin {
  uid: string;
  resourceVersion?: string | undefined;
}

/**
 * One DELETE; a 404 counts as already gone.
 *
 * @example
 * const result = await deleteOne(op, target, { useUid: true }, { uid: 'c0ffee' });
 */
export async function deleteOne(
  op: OperationContext,
  target: Target,
  flags: DeleteFlags,
  pin: Pin | undefined,
): Promise<DeleteResult> {
  const preconditions =
    pin === undefined
      ? undefined
      : {
          uid: pin.uid,
          ...(pin.resourceVersion === undefined ? {} : { resourceVersion: pin.resourceVersion }),
        };
  const body = {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(flags.propagationPolicy ? { propagationPolicy: flags.propagationPolicy } : {}),
    ...(flags.dryRun ? { dryRun: ['All'] } : {}),
    ...(preconditions ? { preconditions } : {}),
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
