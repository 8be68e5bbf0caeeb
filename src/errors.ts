// The library's errors: one class per concern. Each names what failed — the operation and its
// argument or object for a ValidationError, the step and target for a RequestError, the objects
// for an OperationError — keeps the failure underneath as `cause` where there is one, and never
// carries a credential, a parameter value the Template feeds into a Secret, or Secret data.
import {
  answerCode,
  answerOutcome,
  mayMutate,
  type NotFound,
  type OperationErrorCode,
  type Outcome,
  type RequestErrorCode,
  type RequestStep,
  type ValidationErrorCode,
  wireCode,
  wireOutcome,
} from './outcome.ts';
import type { ResourceRef } from './types.ts';
import type { KubernetesStatus } from './outcome.ts';
import type { ObjectIdentity } from './types/warnings.ts';

export type { KubernetesStatus } from './outcome.ts';

/**
 * Thrown for invalid arguments, unsafe rendered objects, a kind the cluster does not serve, a
 * Node.js too old and an unusable proxy setting, always before any mutating request. `issues` lists
 * every problem found, not just the first; `code` says which kind of problem it is: bad input the
 * caller must fix (`OTC_INVALID_ARGUMENT`, `OTC_UNSAFE_OBJECT`), or an environment the caller cannot
 * fix by changing the call: `OTC_KIND_NOT_SERVED` (which wins over bad input found with it),
 * `OTC_SCHEMA_UNAVAILABLE` (`fieldValidation` `'Warn'` or `'Ignore'` on a server that publishes no
 * OpenAPI v3 schema for a group-version; it wins too), `OTC_NODE_VERSION`, and `OTC_PROXY_CONFIG`
 * (the kubeconfig's `proxy-url` or `HTTPS_PROXY` is not a usable proxy URL). A rendered object
 * the server's schema does not type is `OTC_UNSAFE_OBJECT`. A kubeconfig or ServiceAccount that cannot be loaded is not a ValidationError
 * but a {@link RequestError} with `code` `OTC_KUBECONFIG`.
 *
 * @example
 * ```ts
 * try {
 *   await ocp.create('worker-template', { VM_NAME: 'w1' }, { namespace: 'workers' });
 * } catch (error) {
 *   if (error instanceof ocp.ValidationError && error.code === 'OTC_PROXY_CONFIG') console.error('fix the proxy URL');
 *   else if (error instanceof ocp.ValidationError) console.error(error.code, error.issues);
 * }
 * ```
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  /** Every problem found, each naming the argument or object it concerns. */
  readonly issues: readonly string[];
  /** Which kind of problem: see the README's table of error codes. */
  readonly code: ValidationErrorCode;

  constructor(
    operation: string,
    issues: readonly string[],
    code: ValidationErrorCode = 'OTC_INVALID_ARGUMENT',
  ) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(`${operation}: ${count}: ${issues.join('; ')}`);
    this.issues = issues;
    this.code = code;
  }
}

/**
 * One object whose mutation failed, with the error that says why (a RequestError, with its `outcome`).
 *
 * @example
 * ```ts
 * const first: ocp.OperationFailure | undefined = error instanceof ocp.OperationError ? error.failures[0] : undefined;
 * if (first?.error instanceof ocp.RequestError) console.error(first.resource.name, first.error.code, first.error.outcome);
 * ```
 */
export interface OperationFailure {
  resource: ResourceRef;
  error: Error;
}

/** What an OperationError was doing: create()'s writes, its dry-run wave before them, or a delete. */
type OperationName = 'Apply' | 'Preflight' | 'Delete';

const CODES: Readonly<Record<OperationName, OperationErrorCode>> = {
  Apply: 'OTC_APPLY_FAILED',
  Preflight: 'OTC_PREFLIGHT_REFUSED',
  Delete: 'OTC_DELETE_FAILED',
};

/**
 * Thrown when applying or deleting objects fails part-way. `resources` are exactly the objects
 * that succeeded; `failures` the ones that did not, each with its error. With `operation:
 * 'Preflight'` (code `OTC_PREFLIGHT_REFUSED`) create()'s dry-run wave failed: nothing was written,
 * `resources` is empty and there is one failure per object the server refused.
 *
 * @example
 * ```ts
 * try {
 *   await ocp.create('worker-template', params, { namespace: 'workers', api });
 * } catch (error) {
 *   if (error instanceof ocp.OperationError) {
 *     console.error(error.operation, error.resources.length, 'succeeded');
 *     for (const { resource, error: why } of error.failures) console.error(resource.name, why.message);
 *   }
 * }
 * ```
 */
export class OperationError extends Error {
  override readonly name = 'OperationError';
  readonly operation: OperationName;
  /** `OTC_APPLY_FAILED`, `OTC_DELETE_FAILED` or `OTC_PREFLIGHT_REFUSED`; each failure's own error says more. */
  readonly code: OperationErrorCode;
  /** What succeeded; after an apply, each ref's `created` says whether this call created it. */
  readonly resources: ResourceRef[];
  readonly failures: OperationFailure[];

  constructor(operation: OperationName, resources: ResourceRef[], failures: OperationFailure[]) {
    const first = failures[0];
    const detail = first ? `; first failure: ${first.error.message}` : '';
    const cause =
      failures.length === 1 && first
        ? first.error
        : new AggregateError(
            failures.map((f) => f.error),
            `${failures.length} ${operation.toLowerCase()} failures`,
          );
    const done = operation === 'Preflight' ? 'nothing was written' : `${resources.length} succeeded`;
    super(
      `${operation} failed for ${failures.length} object${failures.length === 1 ? '' : 's'} (${done})${detail}`,
      { cause },
    );
    this.operation = operation;
    this.code = CODES[operation];
    this.resources = resources;
    this.failures = failures;
  }
}

/**
 * Any failure of one request or step other than validation: transport, TLS, timeouts, and HTTP
 * error statuses. Its message reads `{step} {target}: {statusCode} {reason}: {server message}`;
 * its `name` is `'TimeoutError'` when a timeout or a timeout signal ended it, `'AbortError'` when
 * a signal cancelled it. `outcome` says whether the server may have acted on it, `code` which kind
 * of failure it was, `resource` the object it was about and `notFound` which thing a 404 says is
 * missing. The original failure, if any, is its `cause`.
 *
 * @example
 * ```ts
 * try {
 *   await ocp.get({ namespace: 'workers', resources: refs, api });
 * } catch (error) {
 *   if (error instanceof ocp.RequestError && error.notFound === 'object') console.log(error.resource?.name, 'is gone');
 *   else if (error instanceof ocp.RequestError && error.outcome === 'not-sent') console.log('nothing reached the server');
 *   else if (error instanceof Error && error.name === 'TimeoutError') console.log('timed out:', error.message);
 *   else throw error;
 * }
 * ```
 */
export class RequestError extends Error {
  override name: 'RequestError' | 'TimeoutError' | 'AbortError' = 'RequestError';
  /** The step that failed: `Connect`, `Discover`, `Schema`, `Get`, `Process`, `Apply` or `Delete`. */
  readonly step: RequestStep;
  /** What the step was acting on, in words, e.g. `ConfigMap "w1-config" in namespace "workers"`. */
  readonly target: string;
  /**
   * The object the request was about, when it was about one: a read, an apply or a delete of an
   * object, the stored Template's GET. `undefined` for connecting, discovery, schema documents and
   * the processing POST (`target` names what those acted on).
   */
  readonly resource: ObjectIdentity | undefined;
  /**
   * With `code` `OTC_NOT_FOUND`, what the 404 says is missing: `'object'` (gone), `'template'`,
   * `'namespace'`, `'referenced'` (another object the request names) or `'other'`; else `undefined`.
   */
  readonly notFound: NotFound | undefined;
  /** HTTP status code, when the server answered. */
  readonly statusCode: number | undefined;
  /** Which kind of failure: see the README's table of error codes. */
  readonly code: RequestErrorCode;
  /**
   * Whether the server may have acted: `'not-sent'`, `'refused'` (it said it did not, or the request
   * could not change anything: a read, the processing POST) or `'unknown'` (only an apply or delete).
   */
  readonly outcome: Outcome;
  /** The Kubernetes Status `reason` (`Conflict`, `Forbidden`, ...), when there is one. */
  readonly reason: string | undefined;
  /** The server's Status, with any secret value redacted. */
  readonly status: KubernetesStatus | undefined;
  /**
   * Which limit a `TimeoutError` hit: `'request'`, this operation's `requestTimeout` (connect or
   * read), which a retry may well meet; `'signal'`, the caller's own deadline through `signal`
   * (`AbortSignal.timeout`), which a retry would only exceed again. `undefined` when not a timeout.
   */
  readonly timeout: TimeoutKind | undefined;

  constructor(step: RequestStep, target: string, detail: string, fields: RequestErrorFields = {}) {
    super(`${step} ${target}: ${detail}`, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.step = step;
    this.target = target;
    this.resource = fields.resource;
    this.statusCode = fields.statusCode;
    this.reason = fields.reason;
    this.status = fields.status;
    const answered = fields.statusCode;
    this.code =
      fields.code ??
      (answered === undefined ? wireCode(fields.cause, fields.kind) : answerCode(answered, fields.reason));
    this.notFound = this.code === 'OTC_NOT_FOUND' ? (fields.notFound ?? 'other') : undefined;
    const outcome =
      fields.outcome ??
      (answered === undefined ? wireOutcome(fields.cause) : answerOutcome(answered, fields.status));
    // A read cannot have written anything, whatever became of it (a 500, a lost connection).
    this.outcome = outcome === 'unknown' && !mayMutate(step) ? 'refused' : outcome;
    this.timeout = fields.kind === 'timeout' ? (fields.timeout ?? 'request') : undefined;
    if (fields.kind === 'timeout') this.name = 'TimeoutError';
    else if (fields.kind === 'abort') this.name = 'AbortError';
  }
}

/**
 * The error for a request or a wait that a fired signal ended: a TimeoutError when the signal's
 * reason is one (`AbortSignal.timeout()`), else an AbortError. `after` completes the sentence.
 */
export function stoppedBy(
  step: RequestStep,
  target: string,
  signal: AbortSignal,
  after = '',
  cause: unknown = signal.reason,
  outcome: Outcome = 'unknown',
  resource?: ObjectIdentity,
): RequestError {
  const reason: unknown = signal.reason;
  const kind = reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'abort';
  return new RequestError(step, target, `${kind === 'timeout' ? 'timed out' : 'aborted'}${after}`, {
    cause,
    kind,
    outcome,
    resource,
    ...(kind === 'timeout' ? { timeout: 'signal' as const } : {}),
  });
}

export interface RequestErrorFields {
  statusCode?: number;
  /** Inferred from `statusCode` and `reason`, or from the cause chain, when not given. */
  code?: RequestErrorCode;
  /** Inferred like `code` when not given. */
  outcome?: Outcome;
  reason?: string;
  status?: KubernetesStatus;
  cause?: unknown;
  /** The object the request was about. */
  resource?: ObjectIdentity | undefined;
  /** What a 404 says is missing (`'other'` when not given). */
  notFound?: NotFound | undefined;
  kind?: 'timeout' | 'abort';
  /** With `kind: 'timeout'`: whose limit it was (default `'request'`). */
  timeout?: TimeoutKind;
}

/**
 * Whose limit a timeout was: the operation's `requestTimeout`, or the caller's `signal`.
 *
 * @example
 * ```ts
 * if (error instanceof ocp.RequestError && error.timeout === 'request') retryLater();
 * ```
 */
export type TimeoutKind = 'request' | 'signal';

/** Replaces every occurrence of a sensitive value; shorter values than this are not worth hiding. */
const MIN_SECRET_LENGTH = 4;

/** The shortest start of a secret that a cut may not leave behind. */
const MIN_SECRET_PREFIX = 8;

/** Hides secrets in a text; one made by `makeRedactor` also lists them, so a cut can check its end. */
export type Redactor = ((text: string) => string) & { readonly secrets?: readonly string[] };

export function makeRedactor(secrets: Iterable<string>): Redactor {
  const values = [...new Set(secrets)]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  const redact = (text: string): string => {
    let out = text;
    for (const value of values) out = out.split(value).join('[redacted]');
    return out;
  };
  return Object.assign(redact, { secrets: values });
}

/**
 * The first `max` characters of an already redacted text. A whole secret cannot survive there,
 * but the cut may fall inside one the redaction missed (a server that echoed it cut or escaped
 * differently): the start of any secret the redactors know that the cut leaves at its end is
 * hidden too.
 */
export function cutText(text: string, max: number, ...redactors: Redactor[]): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  for (const secret of redactors.flatMap((r) => r.secrets ?? [])) {
    for (let n = Math.min(secret.length - 1, cut.length); n >= MIN_SECRET_PREFIX; n--) {
      if (cut.endsWith(secret.slice(0, n))) {
        cut = `${cut.slice(0, -n)}[redacted]`;
        break;
      }
    }
  }
  return cut;
}

function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)]));
  }
  return value;
}

export function redactStatus(status: KubernetesStatus, redact: Redactor): KubernetesStatus {
  return redactDeep(status, redact) as KubernetesStatus;
}
