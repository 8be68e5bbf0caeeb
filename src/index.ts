/**
 * openshift-template-client: process stored OpenShift Templates on the server, apply the rendered
 * objects with server-side apply, read them back, and delete them again by stateless replay.
 *
 * @packageDocumentation
 */
import { assertValid, contextFor, withConnection } from './operations/context.ts';
import { typeTargets } from './operations/create.ts';
import { readAll } from './operations/read.ts';
import { renderTemplate } from './render.ts';
import { checkAdoption, createChecked, createTypedOnly } from './operations/preflight.ts';
import { deleteAll, type DeleteFlags, deleteOwned } from './operations/delete.ts';
import { isReferenceCall, onReferenceTargets, onTemplateTargets } from './render.ts';
import type {
  Connection,
  ConnectOptions,
  CreatedRef,
  CreateOptions,
  DeleteOptions,
  DeleteResult,
  GetOptions,
  KubernetesObject,
  ReferenceDeleteOptions,
  ReferenceGetOptions,
  TemplateObject,
  TemplateOptions,
  TemplateParameters,
} from './types/index.ts';
import { openConnection } from './connection/connect.ts';
import { checkTemplateArguments } from './checks/arguments.ts';
import { countOf, templateCall, traceOperation } from './connection/tracing.ts';

export { OperationError, RequestError, ValidationError } from './errors.ts';
export type {
  ApplyOperationError,
  DeleteOperationError,
  OperationErrorConstructor,
  OperationFailure,
  TimeoutKind,
  ErrorCode,
  NotFound,
  OperationErrorCode,
  Outcome,
  RequestErrorCode,
  RequestStep,
  ValidationErrorCode,
} from './errors.ts';
export type {
  CommonOptions,
  CreatedRef,
  Connection,
  ConnectOptions,
  CreateOptions,
  DeleteOptions,
  DeleteResult,
  FieldValidation,
  GetOptions,
  KubernetesObject,
  KubernetesStatus,
  Missing,
  ObjectIdentity,
  ProblemKind,
  ProblemObject,
  PropagationPolicy,
  ReferenceDeleteOptions,
  ReferenceGetOptions,
  ReferenceOptions,
  RequestTimeout,
  ResourceRef,
  ServerWarning,
  TemplateObject,
  TemplateOptions,
  TemplateParameters,
  ValidationProblem,
  WarningCode,
  WarningHandler,
} from './types/index.ts';

const DEFAULT_FIELD_MANAGER = 'mini-scheduler';

/**
 * Opens a connection to the API server from a kubeconfig (and context) or the pod's
 * ServiceAccount, and checks server and credentials with one `GET /api/v1`. Close it with
 * `close()` or `await using`; one Connection serves many concurrent operations (docs/connection.md).
 *
 * @param options - where the credentials come from, TLS verification and the default timeout.
 * @returns an open {@link Connection} with its own keep-alive pool and discovery cache.
 * @throws {@link ValidationError} for bad options or an unknown context, an unusable proxy setting
 *   (`OTC_PROXY_CONFIG`), or a Node.js too old (`OTC_NODE_VERSION`).
 * @throws {@link RequestError} when the kubeconfig cannot be loaded (`OTC_KUBECONFIG`), or the check fails.
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
 * Renders a Template (a stored one's name, or a parsed object) on the server without creating
 * anything. Parameters that would be generated at random are refused, so the same inputs always
 * render the same objects (docs/operations.md).
 *
 * @param template - the stored Template's name, or a {@link TemplateObject}.
 * @param parameters - overrides; every name must be declared by the Template.
 * @param options - target `namespace`, `templateNamespace`, `labels`, `api`, `requestTimeout`, `signal`.
 * @returns the rendered objects as plain JSON, in Template order.
 * @throws {@link ValidationError} for bad arguments, undeclared parameters or unresolved generators.
 * @throws {@link RequestError} when the Template GET or the processing POST fails.
 *
 * @example
 * ```ts
 * const objects = await ocp.process('worker-template', { VM_NAME: 'worker-001' }, {
 *   namespace: 'workers',
 *   templateNamespace: 'infra',
 *   labels: { job: 'nightly' },
 *   api,
 * });
 * for (const o of objects) console.log(o.kind, o.metadata?.name);
 * ```
 */
export async function process(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<KubernetesObject[]> {
  return traceOperation(
    () => templateCall('process', template, options),
    async () => {
      assertValid('process', checkTemplateArguments('process', template, parameters, options));
      return withConnection('process', options, async (connection) => {
        const op = contextFor('process', connection, options);
        return (await renderTemplate(op, template, parameters, options)).objects;
      });
    },
    countOf,
  );
}

/**
 * Renders the Template, validates and types every object against the server's schema
 * (`fieldValidation`, default `'Strict'`), dry-runs them all (`preflight`, default `'server'`),
 * then server-side applies them in order with `fieldManager` (default `mini-scheduler`), never
 * forced. An existing object this manager does not manage is refused (`OTC_NOT_ADOPTED`) unless
 * `adopt: true` (docs/operations.md, docs/preflight.md, docs/ownership.md).
 *
 * @param template - the stored Template's name, or a {@link TemplateObject}.
 * @param parameters - overrides; every name must be declared by the Template.
 * @param options - {@link CreateOptions}.
 * @returns a reference per object, in order, with the UID the server reported and `created`.
 * @throws {@link ValidationError} before any mutation, listing every problem.
 * @throws {@link OperationError} (`operation: 'Preflight'`) when the pre-flight refuses: nothing was written.
 * @throws {@link OperationError} (`operation: 'Apply'`) when an apply fails: `resources` are the objects
 *   applied before it, `failures[0]` the one that failed. Nothing is rolled back.
 * @throws {@link RequestError} when rendering, discovery or reading the schema fails: nothing was applied.
 *
 * @example
 * ```ts
 * const refs = await ocp.create('worker-template', { VM_NAME: 'worker-001' }, {
 *   namespace: 'workers',
 *   templateNamespace: 'infra',
 *   api,
 * });
 * console.log(refs.map((r) => `${r.kind}/${r.name} ${r.uid ?? ''} ${r.created ? 'new' : 'taken over'}`));
 * ```
 */
export async function create(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: CreateOptions,
): Promise<CreatedRef[]> {
  return onTemplateTargets('create', template, parameters, options, async (op, targets, o) => {
    const mode = o.fieldValidation ?? 'Strict';
    const typed = await typeTargets(op, targets, mode);
    const flags = { fieldManager: o.fieldManager ?? DEFAULT_FIELD_MANAGER, dryRun: o.dryRun === true };
    if (o.preflight !== 'schema') return createChecked(op, typed, { ...flags, adopt: o.adopt }, mode);
    await checkAdoption(op, typed, { ...flags, adopt: o.adopt }); // no dry runs said which exist: all read
    return createTypedOnly(op, typed, flags);
  });
}

/**
 * Template mode: re-renders the Template with the same inputs and reads each rendered object, in
 * order, `status` included. Any read error, a 404 included, is thrown (for `null`s, `missing: 'null'`).
 *
 * @param template - the stored Template's name, or a {@link TemplateObject}.
 * @param parameters - the same overrides `create` was given.
 * @param options - {@link GetOptions} without `missing` (or with `missing: 'error'`).
 * @returns the live objects, one per rendered object, in Template order.
 * @throws {@link ValidationError} for bad arguments or unsafe rendered objects.
 * @throws {@link RequestError} for the first failed request (`OTC_NOT_FOUND` for an absent object).
 *
 * @example
 * ```ts
 * const live = await ocp.get('worker-template', { VM_NAME: 'worker-001' }, { namespace: 'workers', templateNamespace: 'infra', api });
 * for (const o of live) console.log(o.kind, o.metadata?.name, o.status);
 * ```
 */
export async function get(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: GetOptions & { missing?: 'error' | undefined },
): Promise<KubernetesObject[]>;
/**
 * Template mode with `missing: 'null'`: an object the server does not have is `null` in its place.
 *
 * @param template - the stored Template's name, or a {@link TemplateObject}.
 * @param parameters - the same overrides `create` was given.
 * @param options - {@link GetOptions} with `missing: 'null'` (or a {@link Missing} value).
 * @returns one entry per rendered object, in order: the live object, or `null` for a 404.
 * @throws {@link ValidationError} for bad arguments or unsafe rendered objects.
 * @throws {@link RequestError} for the first failed request other than an absent object.
 *
 * @example
 * ```ts
 * const job = { namespace: 'workers', templateNamespace: 'infra', api, missing: 'null' } as const;
 * const state = await ocp.get('worker-template', { VM_NAME: 'worker-001' }, job);
 * console.log(state.map((o) => (o === null ? 'absent' : `${o.kind ?? ''}/${o.metadata?.name ?? ''}`)));
 * ```
 */
export async function get(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: GetOptions,
): Promise<(KubernetesObject | null)[]>;
/**
 * Reference mode: reads the given refs (e.g. `create()`'s result) in order. A ref with a `uid` must
 * find that object (else `OTC_REPLACED`); any read error is thrown at once.
 *
 * @param options - {@link ReferenceGetOptions} with `resources`, without `missing` (or with `missing: 'error'`).
 * @returns the live objects, one per ref, in order.
 * @throws {@link ValidationError} for bad options or refs, or a kind the cluster does not serve.
 * @throws {@link RequestError} for the first failed read (`OTC_NOT_FOUND`, `OTC_REPLACED`, ...).
 *
 * @example
 * ```ts
 * const live = await ocp.get({ namespace: 'workers', resources: refs, api });
 * ```
 */
export async function get(
  options: ReferenceGetOptions & { missing?: 'error' | undefined },
): Promise<KubernetesObject[]>;
/**
 * Reference mode with `missing: 'null'`: a ref that is gone (a 404, or another UID under its name)
 * is `null` in its place.
 *
 * @param options - {@link ReferenceGetOptions} with `resources` and `missing: 'null'` (or a {@link Missing} value).
 * @returns one entry per ref, in order: the live object, or `null` for one that is gone.
 * @throws {@link ValidationError} for bad options or refs, or a kind the cluster does not serve.
 * @throws {@link RequestError} for the first failed read other than a gone object.
 *
 * @example
 * ```ts
 * const partial = await ocp.get({ namespace: 'workers', resources: refs, api, missing: 'null' });
 * const gone = refs.filter((_, i) => partial[i] === null);
 * ```
 */
export async function get(options: ReferenceGetOptions): Promise<(KubernetesObject | null)[]>;
export async function get(
  first: string | TemplateObject | ReferenceGetOptions,
  parameters?: TemplateParameters,
  maybeOptions?: GetOptions,
): Promise<(KubernetesObject | null)[]> {
  if (isReferenceCall(first)) {
    const options = first;
    return onReferenceTargets('get', options, (op, targets) =>
      readAll(op, targets, options.missing ?? 'error'),
    );
  }
  const missing = maybeOptions?.missing ?? 'error';
  return onTemplateTargets(
    'get',
    first,
    parameters,
    maybeOptions,
    (op, targets) => readAll(op, targets, missing),
    missing === 'null' ? (count) => Array.from({ length: count }, () => null) : undefined,
  );
}

/**
 * Template mode: re-renders the Template with the same inputs, reads every object, then in reverse
 * order deletes this `fieldManager`'s, relinquishes those others declare too, and leaves others'
 * alone (said through `onWarning`); every target is attempted (docs/ownership.md).
 *
 * @param template - the stored Template's name, or a {@link TemplateObject}.
 * @param parameters - the same overrides `create` was given.
 * @param options - {@link DeleteOptions}.
 * @returns a {@link DeleteResult} per object, in deletion order, with its `deletion` and `managers`
 *   (`[]` for a namespace that does not exist, said through `onWarning`).
 * @throws {@link ValidationError} before any deletion, listing every problem.
 * @throws {@link OperationError} (`operation: 'Delete'`) listing what was done and each failure.
 * @throws {@link RequestError} when rendering or discovery fails: nothing was deleted.
 *
 * @example
 * ```ts
 * // After a restart: the same inputs name the same objects.
 * const results = await ocp.delete('worker-template', { VM_NAME: 'worker-001' }, { namespace: 'workers', templateNamespace: 'infra', api });
 * const kept = results.filter((r) => r.deletion === 'left-alone');
 * ```
 */
async function remove(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: DeleteOptions,
): Promise<DeleteResult[]>;
/**
 * Reference mode: deletes the given refs in reverse order, a ref's `uid` as a precondition (a
 * replacement is refused, `OTC_CONFLICT`); a 404 counts as already gone.
 *
 * @param options - {@link ReferenceDeleteOptions} with `resources`.
 * @returns a {@link DeleteResult} per ref, in deletion order, `deletion` `'deleted'` or `'already-gone'`.
 * @throws {@link ValidationError} before any deletion, listing every problem.
 * @throws {@link OperationError} (`operation: 'Delete'`) listing what was deleted and each failure.
 * @throws {@link RequestError} when discovery fails: nothing was deleted.
 *
 * @example
 * ```ts
 * // From saved references, protected by their UIDs; only what this job created:
 * const deleted = await ocp.delete({ namespace: 'workers', resources: refs.filter((r) => r.created), api });
 * ```
 */
async function remove(options: ReferenceDeleteOptions): Promise<DeleteResult[]>;
async function remove(
  first: string | TemplateObject | ReferenceDeleteOptions,
  parameters?: TemplateParameters,
  maybeOptions?: DeleteOptions,
): Promise<DeleteResult[]> {
  const flags = (o: DeleteOptions | ReferenceDeleteOptions, useUid: boolean): DeleteFlags => ({
    dryRun: o.dryRun,
    propagationPolicy: o.propagationPolicy,
    useUid,
  });
  return isReferenceCall(first)
    ? onReferenceTargets('delete', first, (op, targets, o) => deleteAll(op, targets, flags(o, true)))
    : onTemplateTargets('delete', first, parameters, maybeOptions, (op, targets, o) =>
        o.ownership === 'any'
          ? deleteAll(op, targets, flags(o, false))
          : deleteOwned(op, targets, {
              ...flags(o, false),
              fieldManager: o.fieldManager ?? DEFAULT_FIELD_MANAGER,
            }),
      );
}

export { remove as delete };
