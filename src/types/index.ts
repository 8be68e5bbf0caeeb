// The public types: objects, the Connection and every call's options; the refs, warnings and
// problems are in their own files beside this one, re-exported here. Kept apart from the code so
// that validate.ts stays free of I/O imports.
import type { ResourceRef } from './refs.ts';
import type { WarningHandler } from './warnings.ts';

export type { CreatedRef, DeleteResult, ResourceRef } from './refs.ts';
export type { ObjectIdentity, ServerWarning, WarningCode, WarningHandler } from './warnings.ts';
export type { KubernetesStatus, ProblemKind, ProblemObject, ValidationProblem } from './problems.ts';

/**
 * A Kubernetes object as plain JSON.
 *
 * @example
 * ```ts
 * const objects: ocp.KubernetesObject[] = await ocp.process('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers', api });
 * for (const o of objects) console.log(o.kind, o.metadata?.name, o.metadata?.labels?.app);
 * ```
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
 * A Template the caller holds, as `oc process -f` reads one from a file (parsed by the caller: the library
 * reads no files). `apiVersion` is `template.openshift.io/v1`, or the legacy `v1`, which is sent as
 * `template.openshift.io/v1`; `metadata.name` names it in errors and traces. It is never modified.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * const template = JSON.parse(readFileSync('worker-template.json', 'utf8')) as ocp.TemplateObject;
 * const objects = await ocp.process(template, { VM_NAME: 'w1' }, { namespace: 'workers', api });
 * ```
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
 * ```ts
 * const params: ocp.TemplateParameters = { VM_NAME: 'w1', REPLICAS: 3, DEBUG: false }; // sent as "3", "false"
 * ```
 */
export type TemplateParameters = Readonly<Record<string, string | number | boolean>>;

/**
 * Milliseconds per request: one number for both limits, or separate connect and read limits.
 * `connect` bounds the TCP and TLS handshake; `read` each wait for data (the answer's headers,
 * each pause in its body). Together, `connect` + `read` from the request's start bound the whole
 * request: every attempt, every 429 wait (one that would end past it fails at once with
 * `OTC_THROTTLED`) and the answer to its last byte (else `OTC_RESPONSE_TIMEOUT`). An answer's
 * body is read up to 64 MiB, a fixed cap (`OTC_RESPONSE_TOO_LARGE`).
 *
 * @example
 * ```ts
 * await ocp.get({ namespace: 'workers', resources: refs, api, requestTimeout: { connect: 5_000, read: 120_000 } });
 * ```
 */
export type RequestTimeout = number | { readonly connect: number; readonly read: number };

/**
 * Where `connect()` takes credentials from, TLS verification and the default request timeout.
 *
 * @example
 * ```ts
 * const options: ocp.ConnectOptions = { kubeconfig: '/path/kubeconfig', context: 'dev', requestTimeout: 30_000 };
 * ```
 */
export interface ConnectOptions {
  /** Path of a kubeconfig file, which must exist. Default: the files `KUBECONFIG` lists, merged as kubectl merges them, else `~/.kube/config`. */
  kubeconfig?: string | undefined;
  /** Context to use from the kubeconfig. Default: its `current-context`. */
  context?: string | undefined;
  /** Use the pod's ServiceAccount token and CA. Not combinable with `kubeconfig` or `context`. */
  inCluster?: boolean | undefined;
  /** Verify the server's TLS certificate. Default `true`; `false` is an explicit, insecure opt-out. */
  verifySsl?: boolean | undefined;
  /**
   * Default per-request timeout of this connection. Default `{ connect: 10_000, read: 60_000 }`;
   * each limit at most 2,147,483,647 ms, the longest delay a Node.js timer holds.
   */
  requestTimeout?: RequestTimeout | undefined;
  /** Cancels connecting (loading credentials and the check request). */
  signal?: AbortSignal | undefined;
  /**
   * Most HTTP/1.1 sockets the connection opens to the server at once, whatever the options of its
   * operations. Default 32; concurrent operations beyond it wait for a free socket. A server that
   * offers HTTP/2 gets one connection, whatever this says.
   */
  maxSockets?: number | undefined;
  /**
   * `false` offers only HTTP/1.1 to the server, as client-go's `DISABLE_HTTP2` does, for networks
   * that mishandle HTTP/2. Default `true`: HTTP/2 when the server offers it.
   */
  http2?: boolean | undefined;
  /**
   * Receives every warning of this Connection's requests, the server's and the library's. An
   * operation's own `onWarning` replaces it for that operation (only one is called; chain them in
   * the operation's handler to have both). Without either, each distinct text is emitted once per
   * Connection as a Node.js process warning of type `ServerWarning`, its code the warning's `code`.
   */
  onWarning?: WarningHandler | undefined;
}

/**
 * Options every operation takes.
 *
 * @example
 * ```ts
 * const common: ocp.CommonOptions = { namespace: 'workers', api, signal: AbortSignal.timeout(60_000) };
 * ```
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
  /**
   * Receives the warnings of this operation's requests instead of `connect()`'s handler, which is
   * then not called for them (call it from this one to chain them).
   */
  onWarning?: WarningHandler | undefined;
}

/**
 * Options of template-mode `process`, `get` and `delete`.
 *
 * @example
 * ```ts
 * const job: ocp.TemplateOptions = { namespace: 'workers', templateNamespace: 'infra', labels: { job: 'nightly' }, api };
 * await ocp.delete('worker-template', params, job);
 * ```
 */
export interface TemplateOptions extends CommonOptions {
  /**
   * Namespace of the stored Template. Default: `namespace`, only when omitted. Refused with a
   * Template object, which is not stored anywhere.
   */
  templateNamespace?: string | undefined;
  /**
   * Labels added to every rendered object, as `oc process -l` does: sent in the Template copy's `labels`,
   * where the caller's value wins over the Template's on the same key, and the server sets them on each
   * object over its own. Names stay as they were, so a replay without them names the same objects.
   */
  labels?: Readonly<Record<string, string>> | undefined;
  /** Reference mode only; present here so that the compiler rejects mixing the two modes. */
  resources?: undefined;
}

/**
 * What `get()` does with an object the server does not have: `'error'` (the default) rejects with
 * the first 404; `'null'` returns `null` in its place.
 *
 * @example
 * ```ts
 * const missing: ocp.Missing = 'null';
 * const live = await ocp.get({ namespace: 'workers', resources: refs, api, missing });
 * ```
 */
export type Missing = 'error' | 'null';

/**
 * Options of template-mode `get`.
 *
 * @example
 * ```ts
 * const options: ocp.GetOptions = { namespace: 'workers', templateNamespace: 'infra', missing: 'null', api };
 * ```
 */
export interface GetOptions extends TemplateOptions {
  /** Default `'error'`; `'null'` returns one entry per object, `null` for those not found. */
  missing?: Missing | undefined;
}

/**
 * Options of `create`.
 *
 * @example
 * ```ts
 * const options: ocp.CreateOptions = { namespace: 'workers', api, fieldManager: 'nightly-jobs', dryRun: true };
 * ```
 */
export interface CreateOptions extends TemplateOptions {
  /** Server-side apply field manager. Default `'mini-scheduler'`. */
  fieldManager?: string | undefined;
  /** Ask the server to validate without persisting (`dryRun=All`); typed first all the same. Under either
   * `preflight`, an `image.openshift.io/v1` `ImageStreamTag` or `ImageTag` is not sent (its dry run wrote the
   * image stream before openshift/openshift-apiserver#511): an `OTC_DRY_RUN_UNVERIFIED` warning says so. */
  dryRun?: boolean | undefined;
  /** Typing against the server's OpenAPI v3 schema before the first apply (kubectl's `--validate`): `'Strict'`
   * (default) refuses any problem, naming every path; `'Warn'` drops undeclared fields from the applied copy,
   * warning each; `'Ignore'` drops them silently. Wrong types are refused in every mode. Not sent to the server. */
  fieldValidation?: FieldValidation | undefined;
  /** `'server'` (default): after typing every object is applied with `dryRun=All`, all at once, and nothing
   * is written unless all pass (else an `OperationError`, `operation: 'Preflight'`); under `dryRun` that wave
   * is the whole call. `'schema'`: typing only, then the applies in order. */
  preflight?: 'server' | 'schema' | undefined;
  /** Take over an existing object this `fieldManager` does not manage (no owner label naming it, no Apply
   * entry of it): `created: false` and an `OTC_ADOPTED` warning each. Default `false`: such an object refuses
   * the create in the pre-flight (`OTC_NOT_ADOPTED`), nothing written. A replay delete then relinquishes an
   * adopted object that its first manager still declares, instead of deleting it. */
  adopt?: boolean | undefined;
}

/**
 * How `create()` treats what the server's schema does not declare ({@link CreateOptions}).
 *
 * @example
 * ```ts
 * await ocp.create('redis-ephemeral', params, { namespace: 'workers', api, fieldValidation: 'Warn' });
 * ```
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * How the server deletes dependents (`DeleteOptions.propagationPolicy`).
 *
 * @example
 * ```ts
 * await ocp.delete({ namespace: 'workers', resources: refs, api, propagationPolicy: 'Foreground' });
 * ```
 */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/**
 * Options of template-mode `delete`.
 *
 * @example
 * ```ts
 * const options: ocp.DeleteOptions = { namespace: 'workers', api, fieldManager: 'nightly-jobs', dryRun: true };
 * ```
 */
export interface DeleteOptions extends TemplateOptions {
  /** Ask the server to check the deletion without performing it (`dryRun: ["All"]`); an `ImageStreamTag` or
   * `ImageTag` is not sent (its storage deleted for real before openshift/openshift-apiserver#511). */
  dryRun?: boolean | undefined;
  /** Default: the server's for each kind. */
  propagationPolicy?: PropagationPolicy | undefined;
  /** The field manager `create()` applied with; default `'mini-scheduler'`, create's. */
  fieldManager?: string | undefined;
  /**
   * `'manager'` (default): read every object, delete only those labelled with `fieldManager` (on an
   * object from before the label, an Apply entry of it), each pinned to the UID and resourceVersion
   * read, relinquish those another manager declares too, and leave the others alone. `'any'`: delete
   * by name.
   */
  ownership?: 'manager' | 'any' | undefined;
}

/**
 * Options of reference mode, the base of {@link ReferenceGetOptions} (`get`) and
 * {@link ReferenceDeleteOptions} (`delete`): the objects are given, no Template is processed.
 *
 * @example
 * ```ts
 * const saved: ocp.ReferenceOptions = { namespace: 'workers', resources: refs, api };
 * const live = await ocp.get(saved);
 * await ocp.delete(saved);
 * ```
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
 * ```ts
 * const options: ocp.ReferenceGetOptions = { namespace: 'workers', resources: refs, missing: 'null', api };
 * ```
 */
export interface ReferenceGetOptions extends ReferenceOptions {
  /**
   * Default `'error'`; `'null'` returns one entry per ref, `null` for those not found, including a
   * live object whose UID is not the ref's (the saved object is gone).
   */
  missing?: Missing | undefined;
}

/**
 * Options of reference-mode `delete`: each ref with a `uid` is deleted with that UID as a precondition.
 *
 * @example
 * ```ts
 * const options: ocp.ReferenceDeleteOptions = { namespace: 'workers', resources: refs, api, dryRun: true };
 * ```
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
 * ```ts
 * await using api: ocp.Connection = await ocp.connect();
 * await Promise.all(['w1', 'w2'].map((VM_NAME) => ocp.create('worker-template', { VM_NAME }, { namespace: 'workers', api })));
 * ```
 */
export interface Connection {
  /** The API server URL. */
  readonly server: string;
  /**
   * Closes the Connection for good. Nothing is sent after it: requests in flight and handshakes
   * under way are ended, and every operation still running on it rejects with "the Connection was
   * closed" (a mutation in flight may or may not have been applied, and says so). Idempotent.
   */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
