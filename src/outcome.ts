// What a failed request means for a caller that must act on it without reading its message: did
// anything reach the server (`outcome`), and which kind of problem it was (`code`). Classified
// here once, from the HTTP status, the server's Status and the wire failure underneath.
import { isRecord } from './util/json.ts';
import type { ObjectIdentity } from './types/warnings.ts';

/**
 * The step a `RequestError` names: connecting (`GET /api/v1`, loading the kubeconfig), discovery,
 * reading the `/openapi/v3` schema documents, a read (the stored Template, an object), the
 * processing POST, an apply (its dry run included) and a delete.
 *
 * @example
 * ```ts
 * if (error instanceof ocp.RequestError && error.step === 'Process') console.error('rendering failed:', error.code);
 * ```
 */
export type RequestStep = 'Connect' | 'Discover' | 'Schema' | 'Get' | 'Process' | 'Apply' | 'Delete';

/** The steps that can change what the server holds; the others only read (processing stores nothing). */
const MUTATING_STEPS: ReadonlySet<RequestStep> = new Set(['Apply', 'Delete']);

/** Whether a request of this step may have changed anything on the server. */
export function mayMutate(step: RequestStep): boolean {
  return MUTATING_STEPS.has(step);
}

/**
 * What an `OTC_NOT_FOUND` says does not exist, so that a scheduler tells "fix the configuration"
 * from "already gone" without reading `status.details`:
 * - `'object'`: the object the request was about (a read, an apply, a delete): it is gone;
 * - `'template'`: the stored Template to process (its name or `templateNamespace` is wrong);
 * - `'namespace'`: a namespace the request needs (the target namespace of processing or an apply);
 * - `'referenced'`: another object the request names (a RoleBinding's Role, a Pod's ServiceAccount);
 * - `'other'`: a 404 naming nothing of the request (no Status, a path the server does not serve).
 *
 * @example
 * ```ts
 * if (error instanceof ocp.RequestError && error.notFound === 'object') markGone();
 * else if (error instanceof ocp.RequestError && error.notFound !== undefined) alertOperator(error.notFound);
 * ```
 */
export type NotFound = 'object' | 'template' | 'namespace' | 'referenced' | 'other';

/** What the request layer knows of a request's object when its answer is a 404. */
export interface NotFoundContext {
  /** The object the request is about, as warnings name it. */
  object?: ObjectIdentity | undefined;
  /** The request's path, `/api…/namespaces/NS/PLURAL[/NAME]`: the plural a Status names it by. */
  path?: string | undefined;
  /** What a 404 naming this request's own object means (default `'object'`). */
  notFound?: NotFound | undefined;
}

/** The resource (plural) of a namespaced path, as a Status's `details.kind` names it. */
function collectionOf(path: string | undefined): string | undefined {
  const segments = (path ?? '').split('?')[0]?.split('/') ?? [];
  const at = segments.indexOf('namespaces');
  return at < 0 ? undefined : segments[at + 2];
}

/**
 * Which thing a 404 (or 410) says is missing, from the Status's `details` (kube-apiserver's
 * NewNotFound names the resource's plural and the name) and the request's own object.
 */
export function notFoundOf(status: KubernetesStatus | undefined, request: NotFoundContext): NotFound {
  const details = isStatus(status) ? status.details : undefined;
  if (details?.kind === 'namespaces') return 'namespace';
  const name = details?.name;
  if (name === undefined || name === '' || request.object === undefined) return 'other';
  const own = name === request.object.name && details?.kind === collectionOf(request.path);
  return own ? (request.notFound ?? 'object') : 'referenced';
}

/**
 * A Kubernetes `Status` body, as the API server sends it with an error.
 *
 * @example
 * ```ts
 * const status: ocp.KubernetesStatus | undefined = error instanceof ocp.RequestError ? error.status : undefined;
 * for (const cause of status?.details?.causes ?? []) console.error(cause.field, cause.reason, cause.message);
 * ```
 */
export interface KubernetesStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/**
 * Whether the server may have acted on a failed request:
 * - `'not-sent'`: it failed before any byte of the request left (connecting, TLS, the proxy, the
 *   credentials, a signal that had already fired, a closed Connection);
 * - `'refused'`: the API server answered with a Kubernetes Status saying it did not act;
 * - `'unknown'`: anything else (a connection lost after sending, a timeout, a gateway's answer).
 *
 * @example
 * ```ts
 * const failure = error instanceof ocp.OperationError ? error.failures[0]?.error : error;
 * if (failure instanceof ocp.RequestError && failure.outcome === 'unknown') {
 *   // It may have been applied: read it back before deciding.
 * }
 * ```
 */
export type Outcome = 'not-sent' | 'unknown' | 'refused';

/**
 * The stable codes of `RequestError`, one per kind of failure; see the README's table.
 *
 * @example
 * ```ts
 * if (error instanceof ocp.RequestError && error.code === 'OTC_FORBIDDEN') console.error('grant RBAC first');
 * ```
 */
export type RequestErrorCode =
  | 'OTC_KUBECONFIG'
  | 'OTC_CONNECT_FAILED'
  | 'OTC_TLS'
  | 'OTC_PROXY'
  | 'OTC_CREDENTIALS'
  | 'OTC_TIMEOUT'
  | 'OTC_ABORTED'
  | 'OTC_CONNECTION_CLOSED'
  | 'OTC_CONNECTION_LOST'
  | 'OTC_BAD_RESPONSE'
  | 'OTC_UNAUTHORIZED'
  | 'OTC_FORBIDDEN'
  | 'OTC_NOT_FOUND'
  | 'OTC_REPLACED'
  | 'OTC_CONFLICT'
  | 'OTC_INVALID'
  | 'OTC_TOO_MANY_REQUESTS'
  | 'OTC_THROTTLED'
  | 'OTC_RESPONSE_TOO_LARGE'
  | 'OTC_RESPONSE_TIMEOUT'
  | 'OTC_SERVER_TIMEOUT'
  | 'OTC_UNAVAILABLE'
  | 'OTC_SERVER_ERROR'
  | 'OTC_HTTP_ERROR'
  | 'OTC_QUOTA_EXCEEDED'
  | 'OTC_STILL_CHANGING'
  | 'OTC_NOT_ADOPTED'
  | 'OTC_WRONG_FIELD_MANAGER'
  | 'OTC_UNEXPECTED';

/**
 * The stable codes of `ValidationError`: bad input the caller must fix (`OTC_INVALID_ARGUMENT`,
 * `OTC_UNSAFE_OBJECT`), a Connection already closed when the call began (`OTC_CONNECTION_CLOSED`,
 * the code `RequestError` has when close() ends a request in flight; nothing was sent), or an
 * environment the caller cannot fix by changing the call
 * (`OTC_KIND_NOT_SERVED`, `OTC_SCHEMA_UNAVAILABLE`, `OTC_NODE_VERSION`, `OTC_PROXY_CONFIG`).
 *
 * @example
 * ```ts
 * if (error instanceof ocp.ValidationError && error.code === 'OTC_KIND_NOT_SERVED') scheduleRetryLater();
 * ```
 */
export type ValidationErrorCode =
  | 'OTC_INVALID_ARGUMENT'
  | 'OTC_CONNECTION_CLOSED'
  | 'OTC_UNSAFE_OBJECT'
  | 'OTC_KIND_NOT_SERVED'
  | 'OTC_SCHEMA_UNAVAILABLE'
  | 'OTC_NODE_VERSION'
  | 'OTC_PROXY_CONFIG';

/**
 * The stable codes of `OperationError`: `OTC_PREFLIGHT_REFUSED` when create()'s pre-flight found
 * refusals and nothing was written; `OTC_ABORTED` whenever the caller's signal ended the operation
 * (`outcome` says what may have been written); `OTC_WRONG_FIELD_MANAGER` when a replay delete
 * found every object marked as another field manager's and deleted nothing.
 *
 * @example
 * ```ts
 * if (error instanceof ocp.OperationError && error.code === 'OTC_APPLY_FAILED') console.error(error.failures);
 * ```
 */
export type OperationErrorCode =
  | 'OTC_APPLY_FAILED'
  | 'OTC_DELETE_FAILED'
  | 'OTC_PREFLIGHT_REFUSED'
  | 'OTC_ABORTED'
  | 'OTC_WRONG_FIELD_MANAGER';

/**
 * Every code an error of this library carries.
 *
 * @example
 * ```ts
 * const environment: ocp.ErrorCode[] = ['OTC_KIND_NOT_SERVED', 'OTC_NODE_VERSION', 'OTC_PROXY_CONFIG'];
 * const code = (error as { code?: ocp.ErrorCode }).code;
 * if (code !== undefined && environment.includes(code)) console.error('fix the cluster or the machine, then retry');
 * ```
 */
export type ErrorCode = RequestErrorCode | ValidationErrorCode | OperationErrorCode;

/** Codes of wire failures that happen before a request can have been written. */
const BEFORE_SENDING = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'OTC_CONNECT_TIMEOUT',
  'OTC_PROXY',
  'OTC_CREDENTIALS',
]);

/** Node's and OpenSSL's codes for a certificate or handshake refused by verification. */
function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('CERT_') ||
    code.startsWith('UNABLE_TO_') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN'
  );
}

/** The string `code`s along an error's `cause` chain. */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; isRecord(current) && depth < 10; depth += 1) {
    if (typeof current.code === 'string') codes.push(current.code);
    current = current.cause;
  }
  return codes;
}

/** A wire failure (no answer): nothing left when it failed before the request could be written. */
export function wireOutcome(cause: unknown): Outcome {
  const codes = causeCodes(cause);
  return codes.some((c) => BEFORE_SENDING.has(c) || isTlsCode(c)) ? 'not-sent' : 'unknown';
}

function isStatus(body: KubernetesStatus | undefined): body is KubernetesStatus {
  return body?.kind === 'Status';
}

/**
 * How server-side apply's refusal of a body its schema does not type begins (a 500, no reason).
 *
 * @example
 * ```ts
 * const untyped = status.message?.startsWith(TYPED_PATCH_REFUSAL) === true;
 * ```
 */
export const TYPED_PATCH_REFUSAL = 'failed to create typed patch object (';

/**
 * How the messages of a 500 that kube-apiserver produces before anything reaches storage begin,
 * per Status reason. Any other 500 may follow a committed write: etcd3's store passes an etcd
 * client error ("etcdserver: request timed out") on with no reason, and k8s.io/apiserver
 * pkg/storage/errors makes internal and corrupt-object errors an `InternalError`, also for a
 * decode after the transaction.
 */
const BEFORE_STORAGE: Record<string, readonly string[]> = {
  // k8s.io/apimachinery pkg/util/managedfields/internal/structuredmerge.go (Apply): the field
  // manager types the apply patch and the live object before the patched object is stored; the
  // handler answers its plain error as a 500 with no reason.
  // Its toVersioned conversions into the Go type come first there too (seen on the real tier:
  // `failed to convert new object (/x; /v1, Kind=ConfigMap) to proper version: ...`).
  '': [TYPED_PATCH_REFUSAL, 'failed to create typed live object (', 'failed to convert new object ('],
  // k8s.io/apiserver pkg/util/webhook/error.go (ErrCallingWebhook), made an InternalError by
  // pkg/admission/plugin/webhook/{mutating,validating}/dispatcher.go when a webhook that fails
  // closed could not be called: admission runs before the write.
  InternalError: ['Internal error occurred: failed calling webhook "'],
};

/** A 500 is refused only when its message is one upstream produces before anything is stored. */
function internalErrorOutcome(status: KubernetesStatus): Outcome {
  const starts = BEFORE_STORAGE[status.reason ?? ''] ?? [];
  const message = status.message ?? '';
  return starts.some((start) => message.startsWith(start)) ? 'refused' : 'unknown';
}

/** An answer outside 2xx: refused only when a Kubernetes Status says the server did not act. */
export function answerOutcome(statusCode: number, status: KubernetesStatus | undefined): Outcome {
  if (!isStatus(status)) return 'unknown';
  if (status.reason === 'Timeout' || status.reason === 'ServerTimeout') return 'unknown';
  if (statusCode >= 400 && statusCode < 500) return statusCode === 408 ? 'unknown' : 'refused';
  if (statusCode === 500) return internalErrorOutcome(status);
  return statusCode === 503 ? 'refused' : 'unknown';
}

const STATUS_CODES: Record<number, RequestErrorCode> = {
  400: 'OTC_INVALID',
  401: 'OTC_UNAUTHORIZED',
  403: 'OTC_FORBIDDEN',
  404: 'OTC_NOT_FOUND',
  408: 'OTC_SERVER_TIMEOUT',
  409: 'OTC_CONFLICT',
  410: 'OTC_NOT_FOUND',
  422: 'OTC_INVALID',
  429: 'OTC_TOO_MANY_REQUESTS',
  502: 'OTC_UNAVAILABLE',
  503: 'OTC_UNAVAILABLE',
  504: 'OTC_SERVER_TIMEOUT',
};

/** The code of an answer outside 2xx, from its status and the Status `reason`. */
export function answerCode(statusCode: number, reason: string | undefined): RequestErrorCode {
  if (reason === 'Timeout' || reason === 'ServerTimeout') return 'OTC_SERVER_TIMEOUT';
  const known = STATUS_CODES[statusCode];
  if (known !== undefined) return known;
  return statusCode >= 500 ? 'OTC_SERVER_ERROR' : 'OTC_HTTP_ERROR';
}

/** The code of a wire failure, from what ended it and the codes along its cause chain. */
export function wireCode(cause: unknown, kind: 'timeout' | 'abort' | undefined): RequestErrorCode {
  const codes = causeCodes(cause);
  if (codes.includes('OTC_CONNECTION_CLOSED')) return 'OTC_CONNECTION_CLOSED';
  if (kind === 'timeout') return 'OTC_TIMEOUT';
  if (kind === 'abort') return 'OTC_ABORTED';
  if (codes.includes('OTC_CREDENTIALS')) return 'OTC_CREDENTIALS';
  if (codes.includes('OTC_PROXY')) return 'OTC_PROXY';
  if (codes.some(isTlsCode)) return 'OTC_TLS';
  if (codes.some((c) => BEFORE_SENDING.has(c))) return 'OTC_CONNECT_FAILED';
  return 'OTC_CONNECTION_LOST';
}
