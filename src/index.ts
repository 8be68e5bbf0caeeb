/**
 * openshift-template-client: process stored OpenShift Templates on the server, apply the rendered
 * objects with server-side apply, read them back, and delete them again by stateless replay.
 *
 * @packageDocumentation
 */
import { openConnection } from './connect.ts';
import { ClusterConnection } from './connection.ts';
import { ValidationError } from './errors.ts';
import {
  applyAll,
  deleteAll,
  type DeleteFlags,
  readAll,
  renderForDelete,
  renderTemplate,
  resolveReferences,
  resolveTargets,
  type OperationContext,
  contextFor,
} from './operations.ts';
import type {
  CommonOptions,
  Connection,
  ConnectOptions,
  CreateOptions,
  DeleteOptions,
  KubernetesObject,
  ReferenceDeleteOptions,
  ReferenceOptions,
  ResourceRef,
  TemplateOptions,
  TemplateParameters,
} from './types.ts';
import { checkReferenceArguments, checkTemplateArguments } from './arguments.ts';
import { countOf, referenceCall, templateCall, traceOperation } from './tracing.ts';
import type { Target } from './validate.ts';

export { OperationError, RequestError, ValidationError } from './errors.ts';
export type { KubernetesStatus, OperationFailure } from './errors.ts';
export type {
  CommonOptions,
  Connection,
  ConnectOptions,
  CreateOptions,
  DeleteOptions,
  FieldValidation,
  KubernetesObject,
  PropagationPolicy,
  ReferenceDeleteOptions,
  ReferenceOptions,
  RequestTimeout,
  ResourceRef,
  ServerWarning,
  TemplateOptions,
  TemplateParameters,
  WarningHandler,
} from './types.ts';

const DEFAULT_FIELD_MANAGER = 'mini-scheduler';

/** Runs `work` on the caller's connection (left open) or on one of its own (always closed). */
async function withConnection<T>(
  operation: string,
  options: CommonOptions,
  work: (connection: ClusterConnection) => Promise<T>,
): Promise<T> {
  if (options.api !== undefined) {
    if (!(options.api instanceof ClusterConnection)) {
      throw new ValidationError(operation, ['api must be a Connection returned by connect()']);
    }
    if (options.api.closed) throw new ValidationError(operation, ['api is a closed Connection']);
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

function assertValid(operation: string, issues: string[]): void {
  if (issues.length > 0) throw new ValidationError(operation, issues);
}

/** Template mode: validate the arguments, render, resolve and check every target, then `act`. */
async function onTemplateTargets<O extends TemplateOptions, T>(
  operation: 'create' | 'get' | 'delete',
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: O | undefined,
  act: (op: OperationContext, targets: Target[], options: O) => Promise<T>,
): Promise<T> {
  return traceOperation(
    () => templateCall(operation, templateName, options),
    async () => {
      const issues = checkTemplateArguments(operation, templateName, parameters, options);
      if (issues.length > 0 || options === undefined) throw new ValidationError(operation, issues);
      return withConnection(operation, options, async (connection) => {
        const op = contextFor(operation, connection, options);
        const rendered =
          operation === 'delete'
            ? await renderForDelete(op, templateName, parameters, options)
            : await renderTemplate(op, templateName, parameters, options);
        // A delete into a namespace that no longer exists: none of its objects exist either.
        if (rendered === undefined) return act(op, [], options);
        op.redact = rendered.redact;
        return act(op, await resolveTargets(op, rendered.objects, options.namespace), options);
      });
    },
    countOf,
  );
}

/** Reference mode: validate the refs, resolve their kinds, then `act`; an empty list sends nothing. */
async function onReferenceTargets<O extends ReferenceOptions, T>(
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

/**
 * Opens a connection to the API server from a kubeconfig (and context) or from the pod's
 * ServiceAccount, and checks the server and the credentials with one request (`GET /api/v1`), so
 * TLS and authentication problems surface here. TLS is verified unless `verifySsl: false`.
 * Never writes files. Close it with `close()` or `await using`. One Connection serves many
 * concurrent operations: over one HTTP/2 connection when the server offers HTTP/2 (as
 * kube-apiserver does, unless `http2: false`), else over at most `maxSockets` HTTP/1.1 sockets
 * (default 32); `signal` cancels connecting. Unknown option names are refused, with the likely intended one.
 *
 * @param options - where the credentials come from, TLS verification and the default timeout.
 * @returns an open {@link Connection} with its own keep-alive pool and discovery cache.
 * @throws {@link ValidationError} for contradictory or malformed options or an unknown context.
 * @throws {@link RequestError} when the kubeconfig cannot be loaded, or the server, TLS or the
 *   credentials fail the check (`code` 401/403, `name` `TimeoutError` on a timeout).
 *
 * @example
 * ```ts
 * import * as ocp from 'openshift-template-client';
 *
 * await using api = await ocp.connect({ kubeconfig: '/path/kubeconfig', context: 'dev' });
 * console.log('connected to', api.server);
 * ```
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  return traceOperation(
    () => ({ operation: 'connect' }),
    () => openConnection(options),
    () => undefined,
  );
}

/**
 * Renders a stored Template on the server without creating anything: GETs it from
 * `templateNamespace`, overrides `parameters` in a copy (dropping their generators), and POSTs
 * the copy to `processedtemplates` in the target `namespace`. Parameters that would be generated
 * at random are refused, so the same inputs always render the same objects.
 *
 * @param templateName - the Template's name.
 * @param parameters - overrides; every name must be declared by the Template.
 * @param options - target `namespace`, `templateNamespace`, `api`, `requestTimeout`, `signal`.
 * @returns the rendered objects as plain JSON, in Template order.
 * @throws {@link ValidationError} for bad arguments, undeclared parameters or unresolved generators.
 * @throws {@link RequestError} when the Template GET or the processing POST fails.
 *
 * @example
 * ```ts
 * const objects = await ocp.process('worker-template', { VM_NAME: 'worker-001' }, {
 *   namespace: 'workers',
 *   templateNamespace: 'infra',
 *   api,
 * });
 * for (const o of objects) console.log(o.kind, o.metadata?.name);
 * ```
 */
export async function process(
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<KubernetesObject[]> {
  return traceOperation(
    () => templateCall('process', templateName, options),
    async () => {
      assertValid('process', checkTemplateArguments('process', templateName, parameters, options));
      return withConnection('process', options, async (connection) => {
        const op = contextFor('process', connection, options);
        return (await renderTemplate(op, templateName, parameters, options)).objects;
      });
    },
    countOf,
  );
}

/**
 * Renders the Template, validates every rendered object (stable names, no `generateName`,
 * namespaced kinds only, all in the target namespace) before any mutation, then server-side
 * applies them in order with `fieldManager` (default `mini-scheduler`). Conflicts are never
 * forced. Core v1 Secrets have `stringData` folded into `data` first, on a copy.
 *
 * @param templateName - the Template's name.
 * @param parameters - overrides; every name must be declared by the Template.
 * @param options - {@link CreateOptions}.
 * @returns a reference per object, in order, with the UID the server reported.
 * @throws {@link ValidationError} before any mutation, listing every problem.
 * @throws {@link OperationError} (`operation: 'Apply'`) when an apply fails: `resources` are the
 *   objects applied before it, `failures[0]` the one that failed. Nothing is rolled back.
 * @throws {@link RequestError} when rendering or discovery fails.
 *
 * @example
 * ```ts
 * const refs = await ocp.create('worker-template', { VM_NAME: 'worker-001' }, {
 *   namespace: 'workers',
 *   templateNamespace: 'infra',
 *   api,
 * });
 * console.log(refs.map((r) => `${r.kind}/${r.name} ${r.uid ?? ''}`));
 * ```
 */
export async function create(
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: CreateOptions,
): Promise<ResourceRef[]> {
  return onTemplateTargets('create', templateName, parameters, options, (op, targets, o) =>
    applyAll(op, targets, {
      fieldManager: o.fieldManager ?? DEFAULT_FIELD_MANAGER,
      dryRun: o.dryRun === true,
      fieldValidation: o.fieldValidation,
    }),
  );
}

/**
 * Reads the live objects, in order, as the server sends them (`status` included). Template mode
 * re-renders the Template to find them; reference mode reads the given references. Any read
 * error (404 included) is thrown at once; there is no partial list.
 *
 * @param templateName - the Template's name (template mode).
 * @param parameters - the same overrides `create` was given.
 * @param options - {@link TemplateOptions}, or {@link ReferenceOptions} with `resources`.
 * @returns the live objects.
 * @throws {@link ValidationError} for bad arguments or unsafe rendered objects.
 * @throws {@link RequestError} for the first failed request.
 *
 * @example
 * ```ts
 * const live = await ocp.get('worker-template', { VM_NAME: 'worker-001' }, { namespace: 'workers', templateNamespace: 'infra', api });
 * const again = await ocp.get({ namespace: 'workers', resources: refs, api });
 * ```
 */
export async function get(
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<KubernetesObject[]>;
export async function get(options: ReferenceOptions): Promise<KubernetesObject[]>;
export async function get(
  first: string | ReferenceOptions,
  parameters?: TemplateParameters,
  maybeOptions?: TemplateOptions,
): Promise<KubernetesObject[]> {
  return typeof first === 'string'
    ? onTemplateTargets('get', first, parameters, maybeOptions, (op, targets) => readAll(op, targets))
    : onReferenceTargets('get', first, (op, targets) => readAll(op, targets));
}

/**
 * Deletes the objects in reverse order. Template mode re-renders the Template with the same
 * inputs (a fresh process, no saved state) and deletes by name, never with a UID precondition.
 * Reference mode deletes the given references, with `preconditions.uid` where a reference has a
 * `uid`, so a replacement object of the same name is refused (409). A 404 counts as already
 * deleted; every target is attempted. An empty `resources` list sends nothing.
 *
 * @param templateName - the Template's name (template mode).
 * @param parameters - the same overrides `create` was given.
 * @param options - {@link DeleteOptions}, or {@link ReferenceDeleteOptions} with `resources`.
 * @returns a reference per object deleted or already absent, in deletion order; the two are not told
 *   apart (the debug line of each DELETE shows the server's 200/202 or 404). A template-mode delete
 *   into a namespace that does not exist returns `[]` and reports it through `onWarning` (or a
 *   process warning).
 * @throws {@link ValidationError} before any deletion, listing every problem.
 * @throws {@link OperationError} (`operation: 'Delete'`) listing what was deleted and each failure.
 * @throws {@link RequestError} when rendering or discovery fails.
 *
 * @example
 * ```ts
 * // After a restart: the same inputs name the same objects.
 * await ocp.delete('worker-template', { VM_NAME: 'worker-001' }, { namespace: 'workers', templateNamespace: 'infra', api });
 * // Or from saved references, protected by their UIDs:
 * await ocp.delete({ namespace: 'workers', resources: refs, api });
 * ```
 */
async function remove(
  templateName: string,
  parameters: TemplateParameters | undefined,
  options: DeleteOptions,
): Promise<ResourceRef[]>;
async function remove(options: ReferenceDeleteOptions): Promise<ResourceRef[]>;
async function remove(
  first: string | ReferenceDeleteOptions,
  parameters?: TemplateParameters,
  maybeOptions?: DeleteOptions,
): Promise<ResourceRef[]> {
  const flags = (o: DeleteOptions | ReferenceDeleteOptions, useUid: boolean): DeleteFlags => ({
    dryRun: o.dryRun,
    propagationPolicy: o.propagationPolicy,
    useUid,
  });
  return typeof first === 'string'
    ? onTemplateTargets('delete', first, parameters, maybeOptions, (op, targets, o) =>
        deleteAll(op, targets, flags(o, false)),
      )
    : onReferenceTargets('delete', first, (op, targets, o) => deleteAll(op, targets, flags(o, true)));
}

export { remove as delete };
