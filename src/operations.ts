// The steps the five operations are made of: render a Template, resolve targets, apply, read, delete.
import { debuglog } from 'node:util';
import type { Operation, WarningRoute } from './warnings.ts';
import type { ApiRequest, ApiResponse, ClusterConnection, Timeouts } from './connection.ts';
import { toTimeouts } from './connection.ts';
import { type Document, resourceForKind } from './discovery.ts';
import {
  makeRedactor,
  OperationError,
  type OperationFailure,
  type Redactor,
  RequestError,
  ValidationError,
} from './errors.ts';
import type {
  FieldValidation,
  KubernetesObject,
  ResourceRef,
  ServerWarning,
  TemplateOptions,
  TemplateParameters,
  WarningHandler,
} from './types.ts';
import { isRecord } from './json.ts';
import { normalizeSecret, secretParameterValues, secretValues } from './secrets.ts';
import {
  checkProcessedTemplate,
  checkRenderedObjects,
  describeRef,
  type KindLookup,
  prepareTemplate,
  type Target,
  unresolvedGenerators,
} from './validate.ts';

const TEMPLATE_API = '/apis/template.openshift.io/v1';
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
    warnings: { operation, handler: options.onWarning },
  };
}

/** One request of the operation, with its limits, signal and warning route. */
function send(
  op: OperationContext,
  request: Omit<ApiRequest, 'timeout' | 'signal' | 'warnings'>,
): Promise<ApiResponse> {
  return op.connection.request({ ...request, timeout: op.timeout, signal: op.signal, warnings: op.warnings });
}

/** How a warning names the object its request was about. */
function warningTarget(ref: ResourceRef): ServerWarning['target'] {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace };
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

export function objectPath(apiVersion: string, resource: string, namespace: string, name?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const collection = `${base}/namespaces/${segment(namespace)}/${segment(resource)}`;
  return name === undefined ? collection : `${collection}/${segment(name)}`;
}

export interface Rendered {
  objects: KubernetesObject[];
  redact: Redactor;
}

/**
 * GET the stored Template, override parameters in a copy, refuse random generators, and let the
 * server render it in the target namespace.
 */
export async function renderTemplate(
  op: OperationContext,
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<Rendered> {
  const templateNamespace = options.templateNamespace ?? options.namespace;
  const { body: stored } = await send(op, {
    method: 'GET',
    path: `${TEMPLATE_API}/namespaces/${segment(templateNamespace)}/templates/${segment(templateName)}`,
    step: 'Get',
    target: `Template "${templateName}" in namespace "${templateNamespace}"`,
    object: {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      name: templateName,
      namespace: templateNamespace,
    },
  }).catch((error: unknown) => {
    // The most likely reason for a missing Template: it is stored elsewhere.
    if (options.templateNamespace !== undefined || !isNotFound(error)) throw error;
    throw notFoundWith(
      error,
      `templateNamespace was not given, so the Template was looked up in the target namespace "${options.namespace}"`,
    );
  });
  if (!isRecord(stored) || stored.kind !== 'Template') {
    throw new RequestError(
      'Get',
      `Template "${templateName}" in namespace "${templateNamespace}"`,
      'the response is not a Template',
    );
  }
  const { template, issues } = prepareTemplate(stored, parameters);
  if (issues.length > 0) throw new ValidationError(`${op.operation} ${templateName}`, issues);
  const unresolved = unresolvedGenerators(template);
  if (unresolved.length > 0) {
    throw new ValidationError(
      `${op.operation} ${templateName}`,
      unresolved.map(
        (name) =>
          `parameter ${name} would be generated at random, so a replay could not name the same objects; give it an explicit value`,
      ),
    );
  }
  const target = `Template "${templateName}" in namespace "${options.namespace}"`;
  const secretParameters = secretParameterValues(stored, parameters);
  const { body: processed } = await send(op, {
    method: 'POST',
    path: `${TEMPLATE_API}/namespaces/${segment(options.namespace)}/processedtemplates`,
    body: template,
    step: 'Process',
    target,
    redact: makeRedactor(secretParameters),
  });
  const result = checkProcessedTemplate(processed);
  if (!result)
    throw new RequestError('Process', target, 'the response is not a processed Template with objects');
  const objects = result.objects as KubernetesObject[];
  return { objects, redact: makeRedactor([...secretParameters, ...secretValues(objects)]) };
}

/**
 * Rendering for a template-mode delete. A target namespace that no longer exists holds none of
 * the objects, so there is nothing to delete (undefined). A Template that no longer exists cannot
 * be replayed: the error says so, since a scheduler would otherwise retry it forever.
 */
export async function renderForDelete(
  op: OperationContext,
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<Rendered | undefined> {
  try {
    return await renderTemplate(op, templateName, parameters, options);
  } catch (error) {
    if (!(error instanceof RequestError) || error.code !== 404) throw error;
    const details = error.status?.details;
    if (error.step === 'Process' && details?.kind === 'namespaces' && details.name === options.namespace) {
      // Idempotent, but not silent: a typo in the namespace must not pass for a finished delete.
      const text =
        `namespace "${options.namespace}" does not exist, so no object of Template "${templateName}" ` +
        'can exist there; nothing was deleted';
      debug('%s', text);
      op.connection.notify({ text, operation: 'delete' }, op.warnings);
      return undefined;
    }
    if (error.step === 'Get') {
      throw notFoundWith(
        error,
        'delete replays the Template to name its objects, so it needs that Template (the revision ' +
          'that created them) back; or delete from saved references',
      );
    }
    throw error;
  }
}

function isNotFound(error: unknown): error is RequestError {
  return error instanceof RequestError && error.code === 404;
}

/** The same 404, with advice appended; the original stays as `cause`. */
function notFoundWith(error: RequestError, advice: string): RequestError {
  const detail = `404${error.reason ? ` ${error.reason}` : ''}: ${error.status?.message ?? 'not found'}`;
  return new RequestError(error.step, error.target, `${detail}; ${advice}`, {
    code: 404,
    ...(error.reason ? { reason: error.reason } : {}),
    ...(error.status ? { status: error.status } : {}),
    cause: error,
  });
}

/** Discovery for every group-version the objects use (cached per connection), then all checks. */
export async function resolveTargets(
  op: OperationContext,
  objects: readonly unknown[],
  namespace: string,
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
  const { targets, issues } = checkRenderedObjects(objects, namespace, lookup);
  if (issues.length > 0) throw new ValidationError(op.operation, issues);
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
  const targets = await resolveTargets(op, objects, namespace);
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
): Promise<ResourceRef[]> {
  const { fieldManager, dryRun, fieldValidation } = flags;
  const applied: ResourceRef[] = [];
  for (const target of targets) {
    try {
      const { body } = await send(op, {
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
      applied.push(withUid(target.ref, uidOf(body)));
    } catch (error) {
      throw new OperationError('Apply', applied, [{ resource: target.ref, error: asError(error) }]);
    }
  }
  return applied;
}

export async function readAll(op: OperationContext, targets: readonly Target[]): Promise<KubernetesObject[]> {
  const objects: KubernetesObject[] = [];
  for (const target of targets) {
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
      );
    }
    objects.push(body as KubernetesObject);
  }
  return objects;
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
      if (error instanceof RequestError && error.code === 404) deleted.push(target.ref);
      else failures.push({ resource: target.ref, error: asError(error) });
    }
  }
  if (failures.length > 0) throw new OperationError('Delete', deleted, failures);
  return deleted;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
