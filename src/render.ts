// How a call becomes targets: template mode renders on the server and resolves what it rendered,
// reference mode resolves the refs it is given; then the verb acts (operations/).
import { debuglog } from 'node:util';
import { RequestError, ValidationError } from './errors.ts';
import { makeRedactor, type Redactor, redactProblem } from './util/redact.ts';
import { hasText, isRecord } from './util/json.ts';
import {
  assertValid,
  contextFor,
  type OperationContext,
  segment,
  send,
  tell,
  withConnection,
} from './operations/context.ts';
import { checkReferenceArguments, checkTemplateArguments } from './checks/arguments.ts';
import { countOf, referenceCall, templateCall, traceOperation } from './connection/tracing.ts';
import { secretParameterValues, secretValues } from './checks/secrets.ts';
import { asProcessable, isTemplateObject, type TemplateSource } from './checks/template-source.ts';
import type {
  KubernetesObject,
  ReferenceOptions,
  ResourceRef,
  TemplateObject,
  TemplateOptions,
  TemplateParameters,
} from './types/index.ts';
import {
  checkRenderedObjects,
  type KindLookup,
  prepareTemplate,
  type Target,
  unresolvedGenerators,
} from './validate.ts';
import { type Document, resourceForKind } from './connection/discovery.ts';
import type { ValidationErrorCode } from './errors.ts';

const TEMPLATE_API = '/apis/template.openshift.io/v1';
const debug = debuglog('openshift-templates');
const DELETE_ADVICE =
  'delete replays the Template to name its objects, so it needs that Template (the revision ' +
  'that created them) back; or delete from saved references';

export interface Rendered {
  objects: KubernetesObject[];
  redact: Redactor;
}

/** The target namespace does not exist, so none of the Template's `count` objects can. */
interface AbsentNamespace {
  absent: RequestError;
  count: number;
}

/** The Template a source names: GET the stored one, or the caller's object as the server takes it. */
async function templateOf(
  op: OperationContext,
  templateName: string,
  options: TemplateOptions,
): Promise<Record<string, unknown>> {
  const templateNamespace = options.templateNamespace ?? options.namespace;
  const target = `Template "${templateName}" in namespace "${templateNamespace}"`;
  const object = {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    name: templateName,
    namespace: templateNamespace,
  };
  const { body: stored } = await send(op, {
    method: 'GET',
    path: `${TEMPLATE_API}/namespaces/${segment(templateNamespace)}/templates/${segment(templateName)}`,
    step: 'Get',
    target,
    object,
    // Its 404 is the Template's: the configuration names one that is not there.
    notFound: 'template',
  }).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
    // The most likely reason for a missing Template: it is stored elsewhere.
    const missing =
      options.templateNamespace === undefined
        ? notFoundWith(
            error,
            `templateNamespace was not given, so the Template was looked up in the target namespace "${options.namespace}"`,
          )
        : error;
    // A delete cannot name its objects without the Template, or a scheduler would retry forever.
    throw op.operation === 'delete' ? notFoundWith(missing, DELETE_ADVICE) : missing;
  });
  if (!isRecord(stored) || stored.kind !== 'Template') {
    throw new RequestError('Get', target, 'the response is not a Template', {
      code: 'OTC_BAD_RESPONSE',
      outcome: 'unknown',
      resource: object,
    });
  }
  return stored;
}

/** The name errors and traces use: the stored Template's, or the object's `metadata.name`. */
function nameOf(source: TemplateSource): string {
  if (typeof source === 'string') return source;
  const name = source.metadata?.name;
  return typeof name === 'string' ? name : '';
}

function isAbsentNamespace(error: unknown, namespace: string): error is RequestError {
  if (!isNotFound(error)) return false;
  const details = error.status?.details;
  return details?.kind === 'namespaces' && details.name === namespace;
}

/** Renders the Template in the target namespace, or says that namespace does not exist. */
async function render(
  op: OperationContext,
  source: TemplateSource,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<Rendered | AbsentNamespace> {
  const name = nameOf(source);
  const stored = isTemplateObject(source) ? asProcessable(source) : await templateOf(op, name, options);
  const { template, issues } = prepareTemplate(stored, parameters, options.labels);
  if (issues.length > 0) throw new ValidationError(`${op.operation} ${name}`, issues);
  const unresolved = unresolvedGenerators(template);
  if (unresolved.length > 0) {
    throw new ValidationError(
      `${op.operation} ${name}`,
      unresolved.map((parameter) => ({
        kind: 'parameter' as const,
        text: `parameter ${parameter} would be generated at random, so a replay could not name the same objects; give it an explicit value`,
      })),
    );
  }
  const target = `Template "${name}" in namespace "${options.namespace}"`;
  const secretParameters = secretParameterValues(stored, parameters);
  let processed: unknown;
  try {
    ({ body: processed } = await send(op, {
      method: 'POST',
      path: `${TEMPLATE_API}/namespaces/${segment(options.namespace)}/processedtemplates`,
      body: template,
      step: 'Process',
      target,
      redact: makeRedactor(secretParameters),
    }));
  } catch (error) {
    if (!isAbsentNamespace(error, options.namespace)) throw error;
    // The server renders one object per Template object, so the count is known without it.
    const count = Array.isArray(stored.objects) ? stored.objects.length : 0;
    return { absent: error, count };
  }
  if (!isRecord(processed) || processed.kind !== 'Template' || !Array.isArray(processed.objects))
    throw new RequestError('Process', target, 'the response is not a processed Template with objects', {
      code: 'OTC_BAD_RESPONSE',
      outcome: 'unknown',
    });
  const objects = processed.objects as KubernetesObject[];
  return { objects, redact: makeRedactor([...secretParameters, ...secretValues(objects)]) };
}

function isNotFound(error: unknown): error is RequestError {
  return error instanceof RequestError && error.statusCode === 404;
}

/** The same 404, with advice appended; the original stays as `cause`. */
function notFoundWith(error: RequestError, advice: string): RequestError {
  const detail = `404${error.reason ? ` ${error.reason}` : ''}: ${error.status?.message ?? 'not found'}`;
  return new RequestError(error.step, error.target, `${detail}; ${advice}`, {
    statusCode: 404,
    code: error.code,
    outcome: error.outcome,
    resource: error.resource,
    notFound: error.notFound,
    ...(error.reason ? { reason: error.reason } : {}),
    ...(error.status ? { status: error.status } : {}),
    cause: error,
  });
}

/** Discovery for every group-version the objects use (cached per connection), then all checks. */
async function resolveTargets(
  op: OperationContext,
  objects: readonly unknown[],
  namespace: string,
  badInput: ValidationErrorCode = 'OTC_UNSAFE_OBJECT',
): Promise<Target[]> {
  const kinds = objects
    .filter(isRecord)
    .flatMap(({ apiVersion, kind }) => (hasText(apiVersion) ? [{ apiVersion, kind }] : []));
  const documents = new Map<string, Document>();
  const wait = { signal: op.signal, readMs: op.timeout.read };
  // One after another: after a Connection's first operation every lookup is a cache hit, and over
  // HTTP/1.1 lookups in parallel would open more sockets (more handshakes) for nothing.
  for (const apiVersion of new Set(kinds.map((k) => k.apiVersion))) {
    documents.set(apiVersion, await op.connection.discovery.get(apiVersion, wait, op.warnings));
  }
  const lookup = (apiVersion: string, kind: string): ReturnType<KindLookup> => {
    const found = resourceForKind(documents.get(apiVersion) ?? [], kind);
    return found ? { resource: found.name, namespaced: found.namespaced } : undefined;
  };
  // A kind the cached answer lacks may have appeared since (a CRD installed after connect(), or a
  // transient 404): look again, once per operation, before refusing.
  const missing = kinds.filter(({ apiVersion, kind }) => hasText(kind) && !lookup(apiVersion, kind));
  for (const apiVersion of new Set(missing.map((k) => k.apiVersion))) {
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
async function resolveReferences(op: OperationContext, resources: readonly ResourceRef[]): Promise<Target[]> {
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

/**
 * Template mode: validate, render, then `act` on the rendered objects. A target namespace that does
 * not exist is `absent`'s to answer, for a delete nothing to do (said), else the processing's 404.
 */
export async function onRendered<O extends TemplateOptions, T>(
  operation: 'process' | 'create' | 'get' | 'delete',
  source: TemplateSource,
  parameters: TemplateParameters | undefined,
  options: O | undefined,
  act: (op: OperationContext, objects: KubernetesObject[], options: O) => Promise<T>,
  absent?: (count: number) => T,
): Promise<T> {
  return traceOperation(
    () => templateCall(operation, source, options),
    async () => {
      const issues = checkTemplateArguments(operation, source, parameters, options);
      if (issues.length > 0 || options === undefined) throw new ValidationError(operation, issues);
      return withConnection(operation, options, async (connection) => {
        const op = contextFor(operation, connection, options);
        const rendered = await render(op, source, parameters, options);
        if (!('absent' in rendered)) {
          op.redact = rendered.redact;
          return act(op, rendered.objects, options);
        }
        if (operation !== 'delete') {
          if (absent === undefined) throw rendered.absent;
          return absent(rendered.count);
        }
        // Idempotent, but not silent: a typo in the namespace must not pass for a finished delete.
        const text =
          `namespace "${options.namespace}" does not exist, so no object of Template "${nameOf(source)}" ` +
          'can exist there; nothing was deleted';
        debug('%s', text);
        tell(op, 'OTC_NAMESPACE_ABSENT', text);
        return act(op, [], options);
      });
    },
    countOf,
  );
}

/** Template mode with every rendered object resolved to its target first. */
export function onTemplateTargets<O extends TemplateOptions, T>(
  operation: 'create' | 'get' | 'delete',
  source: TemplateSource,
  parameters: TemplateParameters | undefined,
  options: O | undefined,
  act: (op: OperationContext, targets: Target[], options: O) => Promise<T>,
  absent?: (count: number) => T,
): Promise<T> {
  return onRendered(
    operation,
    source,
    parameters,
    options,
    async (op, objects, o) => act(op, await resolveTargets(op, objects, o.namespace), o),
    absent,
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
