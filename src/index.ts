/**
 * openshift-template-client: process stored OpenShift Templates on the server, apply the rendered
 * objects with server-side apply, read them back, and delete them again by stateless replay.
 *
 * @packageDocumentation
 */
import { typeTargets } from './operations/create.ts';
import { readAll } from './operations/read.ts';
import { createChecked, createTypedOnly } from './operations/preflight.ts';
import { deleteAll, type DeleteFlags, deleteOwned } from './operations/delete.ts';
import { isReferenceCall, onReferenceTargets, onRendered, onTemplateTargets } from './render.ts';
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
import { traceOperation } from './connection/tracing.ts';

// Everything errors.ts and types/ export is public (the values are pinned by test/operations/import.test.ts).
export * from './errors.ts';
export type * from './types/index.ts';

const DEFAULT_FIELD_MANAGER = 'mini-scheduler';

/**
 * Opens a connection from a kubeconfig (and context) or the pod's ServiceAccount, checked with one
 * `GET /api/v1`. One Connection serves many concurrent operations (docs/connection.md).
 *
 * @throws {@link ValidationError} for bad options, an unusable proxy setting or a Node.js too old.
 * @throws {@link RequestError} when the kubeconfig cannot be loaded or the check fails.
 *
 * @example
 * await using api = await ocp.connect({ kubeconfig: '/path/kubeconfig', context: 'dev' });
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  return traceOperation(
    () => ({ operation: 'connect' }),
    () => openConnection(options),
    () => undefined,
  );
}

/**
 * Renders a Template (a stored one's name, or a parsed object) on the server, creating nothing.
 * Parameters that would be generated at random are refused, so a replay renders the same objects.
 *
 * @param parameters - overrides; every name must be declared by the Template.
 * @returns the rendered objects as plain JSON, in Template order.
 * @throws {@link ValidationError} for bad arguments, undeclared parameters or unresolved generators.
 * @throws {@link RequestError} when the Template GET or the processing POST fails.
 *
 * @example
 * const objects = await ocp.process('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api });
 */
export async function process(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: TemplateOptions,
): Promise<KubernetesObject[]> {
  return onRendered('process', template, parameters, options, (_op, objects) => Promise.resolve(objects));
}

/**
 * Renders the Template, types every object against the server's schema (`fieldValidation`), dry-runs
 * them all (`preflight`), then server-side applies them in order, never forced. An existing object
 * this `fieldManager` does not manage is refused unless `adopt: true` (docs/operations.md).
 *
 * @returns a ref per object, in order, with its UID and `created`.
 * @throws {@link ValidationError} before any mutation, listing every problem.
 * @throws {@link OperationError} `'Preflight'`: nothing was written; `'Apply'`: `resources` were
 *   applied before `failures[0]` failed, nothing is rolled back.
 * @throws {@link RequestError} when rendering, discovery or reading the schema fails: nothing was applied.
 *
 * @example
 * const refs = await ocp.create('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api });
 */
export async function create(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: CreateOptions,
): Promise<CreatedRef[]> {
  return onTemplateTargets('create', template, parameters, options, async (op, targets, o) => {
    const mode = o.fieldValidation ?? 'Strict';
    const typed = await typeTargets(op, targets, mode);
    const fieldManager = o.fieldManager ?? DEFAULT_FIELD_MANAGER;
    const flags = { fieldManager, dryRun: o.dryRun === true, adopt: o.adopt };
    return o.preflight === 'schema'
      ? createTypedOnly(op, typed, flags)
      : createChecked(op, typed, flags, mode);
  });
}

/**
 * Template mode: re-renders the Template with the same inputs and reads each object, in order.
 *
 * @throws {@link ValidationError} for bad arguments or unsafe rendered objects.
 * @throws {@link RequestError} for the first failed read (`OTC_NOT_FOUND` for an absent object).
 *
 * @example
 * const live = await ocp.get('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api });
 */
export async function get(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: GetOptions & { missing?: 'error' | undefined },
): Promise<KubernetesObject[]>;
/**
 * Template mode with `missing: 'null'`: an object the server does not have is `null` in its place.
 *
 * @example
 * const state = await ocp.get('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api, missing: 'null' });
 */
export async function get(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: GetOptions,
): Promise<(KubernetesObject | null)[]>;
/**
 * Reference mode: reads the given refs (e.g. `create()`'s result) in order; a ref's `uid` must match
 * (else `OTC_REPLACED`).
 *
 * @throws {@link ValidationError} for bad options or refs, or a kind the cluster does not serve.
 * @throws {@link RequestError} for the first failed read.
 *
 * @example
 * const live = await ocp.get({ namespace: 'workers', resources: refs, api });
 */
export async function get(
  options: ReferenceGetOptions & { missing?: 'error' | undefined },
): Promise<KubernetesObject[]>;
/**
 * Reference mode with `missing: 'null'`: a ref that is gone (a 404, or another UID under its name)
 * is `null` in its place.
 *
 * @example
 * const partial = await ocp.get({ namespace: 'workers', resources: refs, api, missing: 'null' });
 */
export async function get(options: ReferenceGetOptions): Promise<(KubernetesObject | null)[]>;
export async function get(
  first: string | TemplateObject | ReferenceGetOptions,
  parameters?: TemplateParameters,
  maybeOptions?: GetOptions,
): Promise<(KubernetesObject | null)[]> {
  if (isReferenceCall(first))
    return onReferenceTargets('get', first, (op, targets, o) => readAll(op, targets, o.missing ?? 'error'));
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
 * Template mode: re-renders the Template, reads every object, then in reverse order deletes this
 * `fieldManager`'s, relinquishes those others declare too and leaves others' alone (each said
 * through `onWarning`); every target is attempted (docs/ownership.md).
 *
 * @returns a {@link DeleteResult} per object, in deletion order.
 * @throws {@link ValidationError} before any deletion, listing every problem.
 * @throws {@link OperationError} (`'Delete'`) listing what was done and each failure.
 * @throws {@link RequestError} when rendering or discovery fails: nothing was deleted.
 *
 * @example
 * const results = await ocp.delete('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api });
 */
async function remove(
  template: string | TemplateObject,
  parameters: TemplateParameters | undefined,
  options: DeleteOptions,
): Promise<DeleteResult[]>;
/**
 * Reference mode: deletes the given refs in reverse order, a ref's `uid` as a precondition; a 404
 * counts as already gone.
 *
 * @throws {@link ValidationError} before any deletion, listing every problem.
 * @throws {@link OperationError} (`'Delete'`) listing what was deleted and each failure.
 * @throws {@link RequestError} when discovery fails: nothing was deleted.
 *
 * @example
 * const results = await ocp.delete({ namespace: 'workers', resources: refs, api });
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
