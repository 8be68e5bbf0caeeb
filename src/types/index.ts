// The public types (refs, warnings and problems beside it), apart from the code so that validate.ts
// stays free of I/O imports.
import type { ResourceRef } from './refs.ts';
import type { WarningHandler } from './warnings.ts';

export type { CreatedRef, DeleteResult, ResourceRef } from './refs.ts';
export type { ObjectIdentity, ServerWarning, WarningCode, WarningHandler } from './warnings.ts';
export type { KubernetesStatus, ProblemKind, ProblemObject, ValidationProblem } from './problems.ts';

/**
 * A Kubernetes object as plain JSON.
 *
 * @example
 * for (const o of objects) console.log(o.kind, o.metadata?.name);
 */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/**
 * A Template the caller parsed, as `oc process -f` takes one; a legacy `v1` is sent as
 * `template.openshift.io/v1`. It is never modified.
 *
 * @example
 * const template = JSON.parse(readFileSync('worker-template.json', 'utf8')) as ocp.TemplateObject;
 */
export interface TemplateObject extends KubernetesObject {
  kind: 'Template';
  objects?: unknown[];
  parameters?: Record<string, unknown>[];
  labels?: Record<string, string>;
}

/**
 * Template parameter overrides. Booleans become `"true"`/`"false"`, finite numbers their decimal text.
 *
 * @example
 * const params: ocp.TemplateParameters = { VM_NAME: 'w1', REPLICAS: 3, DEBUG: false }; // sent as "3", "false"
 */
export type TemplateParameters = Readonly<Record<string, string | number | boolean>>;

/**
 * Milliseconds per request, one number for both limits or each apart: `connect` bounds the handshake,
 * `read` each wait for data; their sum bounds the whole request, retries included (docs/connection.md).
 *
 * @example
 * await ocp.get({ namespace: 'workers', resources: refs, api, requestTimeout: { connect: 5_000, read: 120_000 } });
 */
export type RequestTimeout = number | { readonly connect: number; readonly read: number };

/**
 * Where `connect()` takes credentials from, TLS verification and the default request timeout.
 *
 * @example
 * const options: ocp.ConnectOptions = { kubeconfig: '/path/kubeconfig', context: 'dev', requestTimeout: 30_000 };
 */
export interface ConnectOptions {
  /** Path of a kubeconfig file. Default: `KUBECONFIG`'s files merged as kubectl does, else `~/.kube/config`. */
  kubeconfig?: string | undefined;
  /** Context to use from the kubeconfig. Default: its `current-context`. */
  context?: string | undefined;
  /** Use the pod's ServiceAccount token and CA. Not combinable with `kubeconfig` or `context`. */
  inCluster?: boolean | undefined;
  /** Verify the server's TLS certificate. Default `true`; `false` is an explicit, insecure opt-out. */
  verifySsl?: boolean | undefined;
  /** Default `{ connect: 10_000, read: 60_000 }`; each limit at most 2,147,483,647 ms (a Node.js timer's longest). */
  requestTimeout?: RequestTimeout | undefined;
  /** Cancels connecting (loading credentials and the check request). */
  signal?: AbortSignal | undefined;
  /** Most HTTP/1.1 sockets open at once (default 32); a server offering HTTP/2 gets one connection. */
  maxSockets?: number | undefined;
  /** `false` offers only HTTP/1.1, as client-go's `DISABLE_HTTP2`. Default `true`: HTTP/2 when offered. */
  http2?: boolean | undefined;
  /**
   * Receives every warning of this Connection's requests unless an operation's `onWarning` replaces it.
   * Without either, each distinct text becomes one Node.js process warning of type `ServerWarning`.
   */
  onWarning?: WarningHandler | undefined;
}

/**
 * Options every operation takes.
 *
 * @example
 * const common: ocp.CommonOptions = { namespace: 'workers', api, signal: AbortSignal.timeout(60_000) };
 */
export interface CommonOptions {
  /** Target namespace: where objects are rendered, applied, read and deleted. */
  namespace: string;
  /** A connection to reuse; it stays open. Without it the operation opens and closes its own. */
  api?: Connection | undefined;
  /** Per-request timeout for this operation's requests. Default: the connection's. */
  requestTimeout?: RequestTimeout | undefined;
  /** Cancels the whole operation. */
  signal?: AbortSignal | undefined;
  /** Receives this operation's warnings instead of `connect()`'s handler (call that from it to chain them). */
  onWarning?: WarningHandler | undefined;
}

/**
 * Options of template-mode `process`, `get` and `delete`.
 *
 * @example
 * const job: ocp.TemplateOptions = { namespace: 'workers', templateNamespace: 'infra', labels: { job: 'nightly' }, api };
 */
export interface TemplateOptions extends CommonOptions {
  /** Namespace of the stored Template. Default: `namespace`. Refused with a Template object. */
  templateNamespace?: string | undefined;
  /** Labels set on every rendered object, as `oc process -l` (the caller's win over the Template's); names stay. */
  labels?: Readonly<Record<string, string>> | undefined;
  /** Reference mode only; present here so that the compiler rejects mixing the two modes. */
  resources?: undefined;
}

/**
 * What `get()` does with an object the server does not have: `'error'` (the default) rejects with
 * the first 404; `'null'` returns `null` in its place.
 *
 * @example
 * const live = await ocp.get({ namespace: 'workers', resources: refs, api, missing: 'null' });
 */
export type Missing = 'error' | 'null';

/**
 * Options of template-mode `get`.
 *
 * @example
 * const options: ocp.GetOptions = { namespace: 'workers', templateNamespace: 'infra', missing: 'null', api };
 */
export interface GetOptions extends TemplateOptions {
  /** Default `'error'`; `'null'` returns one entry per object, `null` for those not found. */
  missing?: Missing | undefined;
}

/**
 * Options of `create`.
 *
 * @example
 * const options: ocp.CreateOptions = { namespace: 'workers', api, fieldManager: 'nightly-jobs', dryRun: true };
 */
export interface CreateOptions extends TemplateOptions {
  /** Server-side apply field manager. Default `'mini-scheduler'`. */
  fieldManager?: string | undefined;
  /** Validate without persisting (`dryRun=All`); an `ImageStreamTag` or `ImageTag` is not sent (docs/preflight.md). */
  dryRun?: boolean | undefined;
  /** Typing against the server's schema before the first apply: `'Strict'` (default) refuses any problem;
   * `'Warn'` drops undeclared fields, warning each; `'Ignore'` drops them silently (docs/typing.md). */
  fieldValidation?: FieldValidation | undefined;
  /** `'server'` (default): every object dry-run at once, nothing written unless all pass; `'schema'`: typing
   * only (docs/preflight.md). */
  preflight?: 'server' | 'schema' | undefined;
  /** Take over an existing object this `fieldManager` does not manage; by default it refuses the create
   * (`OTC_NOT_ADOPTED`, nothing written). */
  adopt?: boolean | undefined;
}

/**
 * How `create()` treats what the server's schema does not declare ({@link CreateOptions}).
 *
 * @example
 * await ocp.create('redis-ephemeral', params, { namespace: 'workers', api, fieldValidation: 'Warn' });
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * How the server deletes dependents (`DeleteOptions.propagationPolicy`).
 *
 * @example
 * await ocp.delete({ namespace: 'workers', resources: refs, api, propagationPolicy: 'Foreground' });
 */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/**
 * Options of template-mode `delete`.
 *
 * @example
 * const options: ocp.DeleteOptions = { namespace: 'workers', api, fieldManager: 'nightly-jobs', dryRun: true };
 */
export interface DeleteOptions extends TemplateOptions {
  /** Check the deletion without performing it; an `ImageStreamTag` or `ImageTag` is not sent (see `create`). */
  dryRun?: boolean | undefined;
  /** Default: the server's for each kind. */
  propagationPolicy?: PropagationPolicy | undefined;
  /** The field manager `create()` applied with; default `'mini-scheduler'`, create's. */
  fieldManager?: string | undefined;
  /**
   * `'manager'` (default): delete only objects `fieldManager` applied, pinned to the UID and
   * resourceVersion read; relinquish those another also declares. `'any'`: delete by name.
   */
  ownership?: 'manager' | 'any' | undefined;
}

/**
 * Options of reference mode, the base of {@link ReferenceGetOptions} (`get`) and
 * {@link ReferenceDeleteOptions} (`delete`): the objects are given, no Template is processed.
 *
 * @example
 * const saved: ocp.ReferenceOptions = { namespace: 'workers', resources: refs, api };
 */
export interface ReferenceOptions extends CommonOptions {
  /** The objects to read or delete, e.g. the result of `create()`. */
  resources: readonly ResourceRef[];
  /** Template mode only; present here so that the compiler rejects mixing the two modes. */
  templateNamespace?: undefined;
  /** Template mode only. */
  labels?: undefined;
}

/**
 * Options of reference-mode `get`.
 *
 * @example
 * const options: ocp.ReferenceGetOptions = { namespace: 'workers', resources: refs, missing: 'null', api };
 */
export interface ReferenceGetOptions extends ReferenceOptions {
  /** Default `'error'`; `'null'` returns `null` for a ref not found, or whose live UID differs. */
  missing?: Missing | undefined;
}

/**
 * Options of reference-mode `delete`: each ref with a `uid` is deleted with that UID as a precondition.
 *
 * @example
 * const options: ocp.ReferenceDeleteOptions = { namespace: 'workers', resources: refs, api, dryRun: true };
 */
export interface ReferenceDeleteOptions extends ReferenceOptions {
  dryRun?: boolean | undefined;
  propagationPolicy?: PropagationPolicy | undefined;
}

/**
 * An open connection to one API server: its transport (one HTTP/2 connection, or a bounded
 * HTTP/1.1 pool), its credentials and its discovery cache, shared by every operation given it.
 *
 * @example
 * await using api: ocp.Connection = await ocp.connect();
 */
export interface Connection {
  /** The API server URL. */
  readonly server: string;
  /**
   * Closes the Connection for good, ending requests in flight: operations still running reject (a
   * mutation in flight may or may not have been applied, and says so). Idempotent.
   */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
