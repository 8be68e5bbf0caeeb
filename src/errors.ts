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
import type { CreatedRef, DeleteResult, ResourceRef } from './types.ts';
import type { KubernetesStatus } from './outcome.ts';
import type { ObjectIdentity } from './types/warnings.ts';

export { cutText, makeRedactor, type Redactor, redactProblem, redactStatus } from './util/redact.ts';
import type { ProblemKind, ValidationProblem } from './types/problems.ts';

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
 *   else if (error instanceof ocp.ValidationError && error.fixableByWarn) console.error('Warn would drop', error.problems.map((p) => p.path));
 *   else if (error instanceof ocp.ValidationError) console.error(error.code, error.issues);
 * }
 * ```
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  /** Every problem found, each naming the argument or object it concerns. */
  readonly issues: readonly string[];
  /** The same problems as data, in the same order: kind, object, path. */
  readonly problems: readonly ValidationProblem[];
  /** Which kind of problem: see the README's table of error codes. */
  readonly code: ValidationErrorCode;
  /** Always `'not-sent'`: a ValidationError comes before any request that could change anything. */
  readonly outcome = 'not-sent' as const;
  /**
   * `true` when `create()` with `fieldValidation: 'Warn'` would type every object: this `Strict`
   * refusal names only fields Warn drops (undeclared, server-set) and every object has a schema.
   * `false` for every other ValidationError.
   */
  readonly fixableByWarn: boolean;

  constructor(
    operation: string,
    issues: readonly (string | ValidationProblem)[],
    code: ValidationErrorCode = 'OTC_INVALID_ARGUMENT',
    fixableByWarn = false,
  ) {
    const problems = issues.map((issue) =>
      typeof issue === 'string' ? { kind: DEFAULT_KINDS[code], text: issue } : issue,
    );
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`${operation}: ${count}: ${problems.map((p) => p.text).join('; ')}`);
    this.issues = problems.map((p) => p.text);
    this.problems = problems;
    this.code = code;
    this.fixableByWarn = fixableByWarn;
  }
}

/** The kind of a problem given as a sentence only, by the error's code. */
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
 * ```ts
 * const first: ocp.OperationFailure | undefined = error instanceof ocp.OperationError ? error.failures[0] : undefined;
 * if (first) console.error(first.resource.name, first.error.code, first.error.outcome);
 * ```
 */
export interface OperationFailure {
  resource: ResourceRef;
  error: RequestError;
}

/** What an OperationError was doing: create()'s writes, its dry-run wave before them, or a delete. */
type OperationName = 'Apply' | 'Preflight' | 'Delete';

const CODES: Readonly<Record<OperationName, OperationErrorCode>> = {
  Apply: 'OTC_APPLY_FAILED',
  Preflight: 'OTC_PREFLIGHT_REFUSED',
  Delete: 'OTC_DELETE_FAILED',
};

/** What every OperationError carries, whatever it was doing. */
interface OperationErrorFields extends Error {
  readonly name: 'OperationError';
  /**
   * `OTC_APPLY_FAILED`, `OTC_DELETE_FAILED` or `OTC_PREFLIGHT_REFUSED`; `OTC_ABORTED` when the
   * caller's signal ended it; `OTC_WRONG_FIELD_MANAGER` for a replay under another manager. Each
   * failure's own error says more.
   */
  readonly code: OperationErrorCode;
  /**
   * What the failures say of the objects they name: `'unknown'` when any of them may have been
   * changed (read it back), else `'refused'` (the server refused at least one, or it was a read), or
   * `'not-sent'`; either way `resources` is then exactly what the operation changed.
   */
  readonly outcome: Outcome;
  readonly failures: OperationFailure[];
}

/**
 * An OperationError of `create()`: its writes (`'Apply'`) or its dry-run wave (`'Preflight'`).
 *
 * @example
 * ```ts
 * if (error instanceof ocp.OperationError && error.operation !== 'Delete') {
 *   const applied: ocp.CreatedRef[] = error.resources;
 *   console.error(applied.filter((r) => r.created).length, 'created before the failure');
 * }
 * ```
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
 * ```ts
 * if (error instanceof ocp.OperationError && error.operation === 'Delete') {
 *   const done: ocp.DeleteResult[] = error.resources;
 *   console.error(done.filter((r) => r.deletion === 'left-alone').length, 'left alone');
 * }
 * ```
 */
export interface DeleteOperationError extends OperationErrorFields {
  readonly operation: 'Delete';
  /** A result for every object the delete did not fail on, each with its `deletion`. */
  readonly resources: DeleteResult[];
}

/**
 * Thrown when applying or deleting objects fails part-way. `resources` are exactly the objects
 * that succeeded (`CreatedRef`s after an apply, `DeleteResult`s after a delete: `operation` tells
 * the compiler which); `failures` the ones that did not, each with its RequestError; `outcome`
 * sums those up. With `operation: 'Preflight'` (code `OTC_PREFLIGHT_REFUSED`) create()'s dry-run
 * wave failed: nothing was written, `resources` is empty and there is one failure per object the
 * server refused.
 *
 * @example
 * ```ts
 * try {
 *   await ocp.create('worker-template', params, { namespace: 'workers', api });
 * } catch (error) {
 *   if (error instanceof ocp.OperationError) {
 *     console.error(error.operation, error.resources.length, 'succeeded', error.outcome);
 *     for (const { resource, error: why } of error.failures) console.error(resource.name, why.code, why.outcome);
 *   }
 * }
 * ```
 */
export type OperationError = ApplyOperationError | DeleteOperationError;

/**
 * The OperationError class: `instanceof` narrows to {@link OperationError}, whose `operation`
 * narrows `resources`.
 *
 * @example
 * ```ts
 * const failed = new ocp.OperationError('Apply', [], []);
 * console.log(failed instanceof ocp.OperationError, failed.code);
 * ```
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

/**
 * The outcome of the failures together: the least certain one wins. A pre-flight's requests are
 * dry runs and reads, which store nothing whatever became of them (a kind whose dry run may write
 * is never sent), so its failures are refusals or nothing.
 */
function outcomeOf(operation: OperationName, failures: readonly OperationFailure[]): Outcome {
  if (operation !== 'Preflight' && failures.some((f) => f.error.outcome === 'unknown')) return 'unknown';
  return failures.some((f) => f.error.outcome === 'refused') ? 'refused' : 'not-sent';
}

/**
 * The top-level code: a cancellation is one code wherever it struck (a scheduler checks one), a
 * replay under another field manager's mark its own; else the operation's.
 */
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

interface RequestErrorFields {
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
