// The library's errors: each keeps the failure underneath as `cause` and never carries a credential
// or Secret data (docs/errors.md); connection/failures.ts decides a request's code and outcome.
import type { CreatedRef, DeleteResult, ResourceRef } from './types/index.ts';
import type { KubernetesStatus, ProblemKind, ValidationProblem } from './types/problems.ts';
import type { ObjectIdentity } from './types/warnings.ts';

/**
 * The step a `RequestError` names (`Connect` includes loading the kubeconfig, `Apply` its dry run).
 *
 * @example
 * if (error instanceof ocp.RequestError && error.step === 'Process') console.error('rendering failed:', error.code);
 */
export type RequestStep = 'Connect' | 'Discover' | 'Schema' | 'Get' | 'Process' | 'Apply' | 'Delete';

/**
 * What an `OTC_NOT_FOUND` says is missing: the request's own `'object'`, the stored `'template'`, the
 * `'namespace'`, a `'referenced'` one (a RoleBinding's Role), or `'other'`.
 *
 * @example
 * if (error instanceof ocp.RequestError && error.notFound === 'object') markGone();
 */
export type NotFound = 'object' | 'template' | 'namespace' | 'referenced' | 'other';

/**
 * Whether the server may have acted on a failed request: `'not-sent'` (nothing of it left),
 * `'refused'` (a Status said it did not act, or it was a read) or `'unknown'` (read it back).
 *
 * @example
 * if (error instanceof ocp.RequestError && error.outcome === 'unknown') readBackFirst();
 */
export type Outcome = 'not-sent' | 'unknown' | 'refused';

/**
 * The stable codes of `RequestError`, one per kind of failure; see the README's table.
 *
 * @example
 * if (error instanceof ocp.RequestError && error.code === 'OTC_FORBIDDEN') console.error('grant RBAC first');
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
 * The stable codes of `ValidationError`: bad input, a closed Connection, or an environment the call
 * cannot fix (those win over bad input); see docs/errors.md.
 *
 * @example
 * if (error instanceof ocp.ValidationError && error.code === 'OTC_KIND_NOT_SERVED') scheduleRetryLater();
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
 * The stable codes of `OperationError`: the operation's, `OTC_ABORTED` for the caller's signal,
 * `OTC_WRONG_FIELD_MANAGER` for a replay that found every object another manager's.
 *
 * @example
 * if (error instanceof ocp.OperationError && error.code === 'OTC_APPLY_FAILED') console.error(error.failures);
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
 * const code: ocp.ErrorCode | undefined = (error as { code?: ocp.ErrorCode }).code;
 */
export type ErrorCode = RequestErrorCode | ValidationErrorCode | OperationErrorCode;

/**
 * Thrown before any mutating request for invalid arguments or objects, an unserved kind, or an
 * unusable environment. `issues` lists every problem; `code` ({@link ValidationErrorCode}) which kind.
 *
 * @example
 * if (error instanceof ocp.ValidationError) console.error(error.code, error.issues);
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  /** Every problem found, each naming the argument or object it concerns. */
  readonly issues: readonly string[];
  /** The same problems as data, in order: kind, object, path. */
  readonly problems: readonly ValidationProblem[];
  readonly code: ValidationErrorCode;
  /** Always `'not-sent'`: a ValidationError comes before any request that could change anything. */
  readonly outcome = 'not-sent' as const;
  /** `true` when `fieldValidation: 'Warn'` would type every object: only fields Warn drops are named. */
  readonly fixableByWarn: boolean;

  constructor(
    operation: string,
    issues: readonly (string | ValidationProblem)[],
    code: ValidationErrorCode = 'OTC_INVALID_ARGUMENT',
    fixableByWarn = false,
  ) {
    const problems = issues.map((i) => (typeof i === 'string' ? { kind: DEFAULT_KINDS[code], text: i } : i));
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`${operation}: ${count}: ${problems.map((p) => p.text).join('; ')}`);
    this.issues = problems.map((p) => p.text);
    this.problems = problems;
    this.code = code;
    this.fixableByWarn = fixableByWarn;
  }
}

const DEFAULT_KINDS: Readonly<Record<ValidationErrorCode, ProblemKind>> = {
  OTC_INVALID_ARGUMENT: 'argument',
  OTC_CONNECTION_CLOSED: 'connection-closed',
  OTC_UNSAFE_OBJECT: 'argument',
  OTC_KIND_NOT_SERVED: 'not-served',
  OTC_SCHEMA_UNAVAILABLE: 'schema-unavailable',
  OTC_NODE_VERSION: 'node-version',
  OTC_PROXY_CONFIG: 'proxy-config',
};

/**
 * One object whose mutation failed, with the RequestError that says why (its `code`, `outcome`).
 *
 * @example
 * for (const f of error.failures) console.error(f.resource.name, f.error.code, f.error.outcome);
 */
export interface OperationFailure {
  resource: ResourceRef;
  error: RequestError;
}

type OperationName = 'Apply' | 'Preflight' | 'Delete';

const CODES: Readonly<Record<OperationName, OperationErrorCode>> = {
  Apply: 'OTC_APPLY_FAILED',
  Preflight: 'OTC_PREFLIGHT_REFUSED',
  Delete: 'OTC_DELETE_FAILED',
};

interface OperationErrorFields extends Error {
  readonly name: 'OperationError';
  /** {@link OperationErrorCode}; each failure's own error says more. */
  readonly code: OperationErrorCode;
  /** The least certain outcome of the failures: `'unknown'` when any object may have changed. */
  readonly outcome: Outcome;
  readonly failures: OperationFailure[];
}

/**
 * An OperationError of `create()`: its writes (`'Apply'`) or its dry-run wave (`'Preflight'`).
 *
 * @example
 * const applied: ocp.CreatedRef[] = error instanceof ocp.OperationError && error.operation !== 'Delete' ? error.resources : [];
 */
export interface ApplyOperationError extends OperationErrorFields {
  readonly operation: 'Apply' | 'Preflight';
  /** The objects applied before the failure, each with `created`; empty for `'Preflight'`. */
  readonly resources: CreatedRef[];
}

/**
 * An OperationError of `delete()`.
 *
 * @example
 * const done: ocp.DeleteResult[] = error instanceof ocp.OperationError && error.operation === 'Delete' ? error.resources : [];
 */
export interface DeleteOperationError extends OperationErrorFields {
  readonly operation: 'Delete';
  /** A result for every object the delete did not fail on, each with its `deletion`. */
  readonly resources: DeleteResult[];
}

/**
 * Thrown when applying or deleting fails part-way: `resources` are exactly the objects that
 * succeeded, `failures` the others. With `operation: 'Preflight'` nothing was written.
 *
 * @example
 * if (error instanceof ocp.OperationError) console.error(error.operation, error.resources.length, error.failures);
 */
export type OperationError = ApplyOperationError | DeleteOperationError;

/**
 * The OperationError class: `instanceof` narrows to {@link OperationError}.
 *
 * @example
 * if (error instanceof ocp.OperationError) console.error(error.code);
 */
export interface OperationErrorConstructor {
  new (
    operation: 'Apply' | 'Preflight',
    resources: CreatedRef[],
    failures: OperationFailure[],
  ): ApplyOperationError;
  new (operation: 'Delete', resources: DeleteResult[], failures: OperationFailure[]): DeleteOperationError;
  new (
    operation: OperationName,
    resources: CreatedRef[] | DeleteResult[],
    failures: OperationFailure[],
  ): OperationError;
  readonly prototype: OperationError;
}

/** The least certain outcome wins; a pre-flight's dry runs and reads store nothing whatever happened. */
function outcomeOf(operation: OperationName, failures: readonly OperationFailure[]): Outcome {
  if (operation !== 'Preflight' && failures.some((f) => f.error.outcome === 'unknown')) return 'unknown';
  return failures.some((f) => f.error.outcome === 'refused') ? 'refused' : 'not-sent';
}

/** A cancellation is one code wherever it struck, a replay under another manager's mark its own. */
function codeOf(operation: OperationName, failures: readonly OperationFailure[]): OperationErrorCode {
  if (failures.some((f) => f.error.code === 'OTC_ABORTED')) return 'OTC_ABORTED';
  if (failures.length > 0 && failures.every((f) => f.error.code === 'OTC_WRONG_FIELD_MANAGER'))
    return 'OTC_WRONG_FIELD_MANAGER';
  return CODES[operation];
}

class OperationFailed extends Error implements OperationErrorFields {
  override readonly name = 'OperationError';
  readonly operation: OperationName;
  readonly code: OperationErrorCode;
  readonly outcome: Outcome;
  readonly resources: CreatedRef[] | DeleteResult[];
  readonly failures: OperationFailure[];

  constructor(
    operation: OperationName,
    resources: CreatedRef[] | DeleteResult[],
    failures: OperationFailure[],
  ) {
    const [first, n] = [failures[0], failures.length];
    const errors = failures.map((f) => f.error);
    const cause =
      n === 1 && first ? first.error : new AggregateError(errors, `${n} ${operation.toLowerCase()} failures`);
    const done = operation === 'Preflight' ? 'nothing was written' : `${resources.length} succeeded`;
    const detail = first ? `; first failure: ${first.error.message}` : '';
    super(`${operation} failed for ${n} object${n === 1 ? '' : 's'} (${done})${detail}`, { cause });
    this.operation = operation;
    this.code = codeOf(operation, failures);
    this.outcome = outcomeOf(operation, failures);
    this.resources = resources;
    this.failures = failures;
  }
}
// The class's own name is the one users see (`error.constructor.name`, stack traces).
Object.defineProperty(OperationFailed, 'name', { value: 'OperationError' });

export const OperationError: OperationErrorConstructor = OperationFailed as OperationErrorConstructor;

/**
 * Any failure of one request other than validation; its `name` is `'TimeoutError'` or
 * `'AbortError'` when a timeout or a signal ended it.
 *
 * @example
 * if (error instanceof ocp.RequestError) console.error(error.step, error.code, error.outcome, error.statusCode);
 */
export class RequestError extends Error {
  override name: 'RequestError' | 'TimeoutError' | 'AbortError' = 'RequestError';
  /** The step that failed: `Connect`, `Discover`, `Schema`, `Get`, `Process`, `Apply` or `Delete`. */
  readonly step: RequestStep;
  /** What the step was acting on, in words, e.g. `ConfigMap "w1-config" in namespace "workers"`. */
  readonly target: string;
  /** The object the request was about (a read, apply or delete, the stored Template's GET). */
  readonly resource: ObjectIdentity | undefined;
  /** With `code` `OTC_NOT_FOUND`, what the 404 says is missing. */
  readonly notFound: NotFound | undefined;
  /** HTTP status code, when the server answered. */
  readonly statusCode: number | undefined;
  /** Which kind of failure: see the README's table of error codes. */
  readonly code: RequestErrorCode;
  /** Whether the server may have acted; `'unknown'` only for an apply or a delete. */
  readonly outcome: Outcome;
  /** The Kubernetes Status `reason` (`Conflict`, `Forbidden`, ...), when there is one. */
  readonly reason: string | undefined;
  /** The server's Status, with any secret value redacted. */
  readonly status: KubernetesStatus | undefined;
  /** Which limit a `TimeoutError` hit: `requestTimeout` (a retry may meet it) or the caller's `signal`. */
  readonly timeout: TimeoutKind | undefined;

  constructor(step: RequestStep, target: string, detail: string, fields: RequestErrorFields) {
    super(`${step} ${target}: ${detail}`, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.step = step;
    this.target = target;
    this.resource = fields.resource;
    this.statusCode = fields.statusCode;
    this.reason = fields.reason;
    this.status = fields.status;
    this.code = fields.code;
    this.notFound = this.code === 'OTC_NOT_FOUND' ? (fields.notFound ?? 'other') : undefined;
    // Only an apply or a delete can have written anything (processing stores nothing), whatever became of it.
    const mutating = step === 'Apply' || step === 'Delete';
    this.outcome = fields.outcome === 'unknown' && !mutating ? 'refused' : fields.outcome;
    this.timeout = fields.kind === 'timeout' ? (fields.timeout ?? 'request') : undefined;
    if (fields.kind === 'timeout') this.name = 'TimeoutError';
    else if (fields.kind === 'abort') this.name = 'AbortError';
  }
}

interface RequestErrorFields {
  statusCode?: number | undefined;
  code: RequestErrorCode;
  outcome: Outcome;
  reason?: string;
  status?: KubernetesStatus;
  cause?: unknown;
  resource?: ObjectIdentity | undefined;
  notFound?: NotFound | undefined;
  kind?: 'timeout' | 'abort';
  timeout?: TimeoutKind;
}

/**
 * Whose limit a timeout was: the operation's `requestTimeout` (`'request'`), or the caller's `signal`.
 *
 * @example
 * if (error instanceof ocp.RequestError && error.timeout === 'request') retryLater();
 */
export type TimeoutKind = 'request' | 'signal';
