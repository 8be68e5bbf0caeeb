// The steps the five operations are made of (rendering is render.ts): resolve targets, apply,
// read, delete.
import type { Operation, WarningRoute } from './connection/warnings.ts';
import type { ClusterConnection } from './connection/connection.ts';
import { type ApiRequest, type ApiResponse, type Timeouts, toTimeouts } from './connection/requests.ts';
import { type Document, resourceForKind } from './connection/discovery.ts';
import {
  OperationError,
  type OperationFailure,
  type Redactor,
  RequestError,
  ValidationError,
} from './errors.ts';
import type {
  CreatedRef,
  FieldValidation,
  KubernetesObject,
  Missing,
  ResourceRef,
  ServerWarning,
  WarningHandler,
} from './types.ts';
import { isRecord } from './util/json.ts';
import type { ValidationErrorCode } from './outcome.ts';
import { normalizeSecret } from './checks/secrets.ts';
import { describeRef } from './checks/refs.ts';
import { checkRenderedObjects, type KindLookup, type Target } from './validate.ts';

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
    warnings: { operation, handler: options.onWarning },
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
function warningTarget(ref: ResourceRef): ServerWarning['target'] {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace };
}

export function segment(value: string): string {
  return encodeURIComponent(value);
}

export function objectPath(apiVersion: string, resource: string, namespace: string, name?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const collection = `${base}/namespaces/${segment(namespace)}/${segment(resource)}`;
  return name === undefined ? collection : `${collection}/${segment(name)}`;
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
  const { targets, issues, notServed } = checkRenderedObjects(objects, namespace, lookup);
  if (issues.length > 0)
    throw new ValidationError(
      op.operation,
      issues.map((issue) => op.redact(issue)),
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

function uidOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  if (typeof metadata.uid === 'string') return metadata.uid;
  const details = isRecord(body.details) ? body.details : {};
  return typeof details.uid === 'string' ? details.uid : undefined;
}

function withUid(ref: ResourceRef, uid: string | undefined): ResourceRef {
  const { uid: _old, ...rest } = ref;
  return uid === undefined ? rest : { ...rest, uid };
}

/** Server-side apply in order; stops at the first failure with exactly the refs applied before it. */
export interface ApplyFlags {
  fieldManager: string;
  dryRun: boolean;
  fieldValidation: FieldValidation | undefined;
}

export async function applyAll(
  op: OperationContext,
  targets: readonly Target[],
  flags: ApplyFlags,
): Promise<CreatedRef[]> {
  const { fieldManager, dryRun, fieldValidation } = flags;
  const applied: CreatedRef[] = [];
  for (const target of targets) {
    try {
      const { code, body } = await send(op, {
        method: 'PATCH',
        path: objectPath(target.ref.apiVersion, target.resource, target.ref.namespace, target.ref.name),
        query: { fieldManager, dryRun: dryRun ? 'All' : undefined, fieldValidation },
        contentType: 'application/apply-patch+yaml',
        body: normalizeSecret(target.object),
        step: 'Apply',
        target: describeRef(target.ref),
        object: warningTarget(target.ref),
        redact: op.redact,
      });
      // The server answers an apply that creates the object 201, one that updates it 200.
      applied.push({ ...withUid(target.ref, uidOf(body)), created: code === 201 });
    } catch (error) {
      throw new OperationError('Apply', applied, [{ resource: target.ref, error: asError(error) }]);
    }
  }
  return applied;
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

async function readOne(op: OperationContext, target: Target): Promise<KubernetesObject> {
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
      { code: 'OTC_REPLACED', outcome: 'refused' },
    );
  }
  return body as KubernetesObject;
}

export interface DeleteFlags {
  dryRun?: boolean | undefined;
  propagationPolicy?: string | undefined;
  useUid: boolean;
}

/** Deletes in reverse order, attempting every target; 404 counts as already deleted. */
export async function deleteAll(
  op: OperationContext,
  targets: readonly Target[],
  flags: DeleteFlags,
): Promise<ResourceRef[]> {
  const deleted: ResourceRef[] = [];
  const failures: OperationFailure[] = [];
  for (const target of [...targets].reverse()) {
    const uid = flags.useUid ? target.ref.uid : undefined;
    const body = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      ...(flags.propagationPolicy ? { propagationPolicy: flags.propagationPolicy } : {}),
      ...(flags.dryRun ? { dryRun: ['All'] } : {}),
      ...(uid ? { preconditions: { uid } } : {}),
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
      deleted.push(withUid(target.ref, uidOf(response.body) ?? target.ref.uid));
    } catch (error) {
      if (error instanceof RequestError && error.statusCode === 404) deleted.push(target.ref);
      else failures.push({ resource: target.ref, error: asError(error) });
    }
  }
  if (failures.length > 0) throw new OperationError('Delete', deleted, failures);
  return deleted;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
