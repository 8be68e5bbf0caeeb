// How a failed request is told to the caller: a RequestError that names the step and target, says
// in words what happened, and whether a mutation's outcome is unknown.
import { cutText, type Redactor, redactStatus, RequestError } from '../errors.ts';
import {
  notFoundOf,
  type NotFoundContext,
  type Outcome,
  type RequestErrorCode,
  type RequestStep,
} from '../outcome.ts';
import type { ObjectIdentity } from '../types.ts';
import { isRecord } from '../util/json.ts';
import { MAX_ANSWER_BYTES, READ_TIMEOUT_CODES, TOO_LARGE_CODES } from '../wire/wire-errors.ts';

/** What the request layer knows of a request when it fails. */
export interface FailedRequest extends NotFoundContext {
  method: string;
  /** `dryRun: 'All'` marks a request the server runs without storing anything. */
  query?: Readonly<Record<string, string | undefined>> | undefined;
  /** The request's label in errors and debug lines. */
  step: RequestStep;
  target: string;
  redact?: Redactor | undefined;
}

export interface Limits {
  connect: number;
  read: number;
}

/** The first error in the chain with this code. */
function withCode(error: unknown, code: string): (Error & { stage?: unknown }) | undefined {
  return errorChain(error).find(
    (e): e is Error => e instanceof Error && (e as { code?: unknown }).code === code,
  );
}

function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 10) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function chainHas(error: unknown, test: (e: { name?: unknown; code?: unknown }) => boolean): boolean {
  return errorChain(error).some((e) => typeof e === 'object' && e !== null && test(e));
}

function codesOf(error: unknown): string[] {
  return errorChain(error)
    .map((e) => (isRecord(e) && typeof e.code === 'string' ? e.code : undefined))
    .filter((c): c is string => c !== undefined);
}

// Node.js's own text for these suggests --use-system-ca; a cluster's CA belongs in the kubeconfig.
const UNTRUSTED_CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);
const UNTRUSTED_CERTIFICATE =
  "the server's certificate is not signed by a CA this Connection trusts: give the kubeconfig's cluster the CA that signed it, as certificate-authority (a PEM file) or certificate-authority-data (base64 PEM); Node.js says: ";
const CONNECT_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'OTC_CONNECT_TIMEOUT']);

/**
 * Processing renders without storing anything; only applies and deletes leave an unknown outcome,
 * and not under a dry run, which the server runs to the end without storage (the pre-flight never
 * dry-runs a kind whose storage might write: checks/preflight.ts, dryRunMayWrite).
 */
function unknownOutcome(request: FailedRequest): string {
  const mutates = request.method !== 'GET' && request.step !== 'Process';
  if (!mutates) return '';
  return request.query?.dryRun === 'All'
    ? '; it was a dry run, so nothing was stored'
    : '; the mutation may or may not have been applied';
}

/** Turns a transport failure into a RequestError that says what happened in words. */
export function transportError(
  error: unknown,
  request: FailedRequest,
  limits: Limits,
  signal?: AbortSignal,
  proxy?: string,
): RequestError {
  const codes = codesOf(error);
  const outcome = unknownOutcome(request);
  const fail = (detail: string, kind?: 'timeout'): RequestError =>
    new RequestError(request.step, request.target, `${detail}${outcome}`, {
      cause: error,
      resource: request.object,
      ...(kind ? { kind } : {}),
    });
  if (codes.includes('OTC_CONNECTION_CLOSED')) return fail('the Connection was closed');
  const refused = withCode(error, 'OTC_PROXY');
  // The tunnel never opened, so the request never left: no unknown outcome.
  if (refused)
    return new RequestError(request.step, request.target, `${refused.message}; nothing was sent`, {
      cause: error,
      resource: request.object,
    });
  if (codes.some((c) => CONNECT_TIMEOUT_CODES.has(c))) {
    const stage = withCode(error, 'OTC_CONNECT_TIMEOUT')?.stage;
    const detail = typeof stage === 'string' ? ` (${stage})` : '';
    return new RequestError(
      request.step,
      request.target,
      `connect timed out after ${limits.connect} ms${detail}`,
      { cause: error, kind: 'timeout', resource: request.object },
    );
  }
  if (codes.some((c) => READ_TIMEOUT_CODES.has(c)))
    return fail(`read timed out after ${limits.read} ms`, 'timeout');
  if (codes.some((c) => TOO_LARGE_CODES.has(c)))
    return new RequestError(
      request.step,
      request.target,
      `the answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, more than any API server answer this library reads; it was not read further${outcome}`,
      { cause: error, code: 'OTC_RESPONSE_TOO_LARGE', resource: request.object },
    );
  if (signal?.aborted)
    return stoppedBy(request.step, request.target, signal, outcome, error, 'unknown', request.object);
  if (chainHas(error, (e) => e.name === 'TimeoutError')) return fail('timed out', 'timeout');
  if (chainHas(error, (e) => e.name === 'AbortError'))
    return new RequestError(request.step, request.target, `aborted${outcome}`, {
      cause: error,
      kind: 'abort',
      resource: request.object,
    });
  const code = codes.find((c) => c !== 'UND_ERR_SOCKET') ?? codes[0];
  const text = error instanceof Error ? error.message : String(error);
  const detailed = errorChain(error)
    .slice(1)
    .map((e) => (e instanceof Error ? e.message : ''))
    .filter(Boolean)
    .join(': ');
  const via = proxy ? ` through proxy ${proxy}` : '';
  const hint = UNTRUSTED_CERTIFICATE_CODES.has(code ?? '') ? UNTRUSTED_CERTIFICATE : '';
  return fail(`request failed${via}${code ? ` (${code})` : ''}: ${hint}${detailed || text}`);
}

/**
 * Getting the credentials failed, or this request stopped waiting for an exec plugin (its
 * connect + read limit, its signal, close()): either way nothing was sent.
 */
export function credentialsError(
  error: unknown,
  request: FailedRequest,
  limits: Limits,
  signal: AbortSignal | undefined,
  closed: boolean,
): RequestError {
  const { step, target, object: resource } = request;
  const waiting = withCode(error, 'OTC_EXEC_NOT_ANSWERED');
  if (!waiting) {
    const detail = error instanceof Error ? error.message : String(error);
    return new RequestError(step, target, `could not get credentials, so nothing was sent: ${detail}`, {
      cause: error,
      resource,
    });
  }
  // Waiting for credentials comes before the request: whatever ended the wait, nothing was sent.
  const before = ` before the request was sent: the ${waiting.message}`;
  if (closed)
    return new RequestError(step, target, `the Connection was closed${before}`, {
      cause: error,
      code: 'OTC_CONNECTION_CLOSED',
      outcome: 'not-sent',
      resource,
    });
  if (signal?.aborted) return stoppedBy(step, target, signal, before, error, 'not-sent', resource);
  const limit = limits.connect + limits.read;
  return new RequestError(
    step,
    target,
    `timed out after ${limit} ms (this operation's requestTimeout, connect + read)${before}`,
    { cause: error, kind: 'timeout', outcome: 'not-sent', resource },
  );
}

/**
 * The request's bound, connect + read from its start, ended it: its answer (a body that never
 * ends, or one too slow to arrive in time) or anything before it.
 */
export function deadlineError(error: unknown, request: FailedRequest, boundMs: number): RequestError {
  return new RequestError(
    request.step,
    request.target,
    `no complete answer within ${boundMs} ms (this operation's requestTimeout, connect + read, bounds the whole request)${unknownOutcome(request)}`,
    { cause: error, kind: 'timeout', code: 'OTC_RESPONSE_TIMEOUT', resource: request.object },
  );
}

/** The signal had fired before anything was sent: nothing reached the server. */
export function abortedBeforeSending(
  request: Pick<FailedRequest, 'step' | 'target' | 'object'>,
  signal: AbortSignal,
): RequestError {
  const { step, target, object } = request;
  return stoppedBy(step, target, signal, ' before the request was sent', signal.reason, 'not-sent', object);
}

/** close() came first: nothing of this request was sent. */
export function closedBeforeSending(
  request: FailedRequest,
  when = 'before the request was sent',
): RequestError {
  return new RequestError(request.step, request.target, `the Connection was closed ${when}`, {
    code: 'OTC_CONNECTION_CLOSED',
    outcome: 'not-sent',
    resource: request.object,
  });
}

/** Characters of a body that is not a Status (a gateway's page, say) quoted in the error. */
const QUOTED_BODY = 200;

/**
 * An answer outside 2xx, with the server's Status when it sent one. `body` was parsed from text
 * the Connection had already redacted (`credentials`), so nothing is cut before it is clean.
 */
export function statusError(
  request: FailedRequest,
  code: number,
  body: unknown,
  hint: string | undefined,
  credentials: Redactor,
  as?: RequestErrorCode,
): RequestError {
  const redact = request.redact ?? ((t: string) => t);
  const advice = hint === undefined ? '' : `; ${hint}`;
  if (isRecord(body) && body.kind === 'Status') {
    const status = redactStatus(body, redact);
    const reason = status.reason ?? '';
    const message = status.message ?? 'no message';
    // Causes the message does not already mention (conflicts and 422s usually name their fields).
    const causes = (status.details?.causes ?? [])
      .filter((c) => !message.includes(c.field ?? c.message ?? ''))
      .map((c) => [c.field, c.message].filter(Boolean).join(': '));
    const causeText = causes.length > 0 ? ` (${causes.join('; ')})` : '';
    return new RequestError(
      request.step,
      request.target,
      `${code}${reason ? ` ${reason}` : ''}: ${message}${causeText}${advice}`,
      {
        statusCode: code,
        ...(reason ? { reason } : {}),
        status,
        ...about(request, status),
        ...(as ? { code: as } : {}),
      },
    );
  }
  const text =
    typeof body === 'string'
      ? cutText(redact(body.trim()), QUOTED_BODY, redact, credentials)
      : 'no Status in the response';
  return new RequestError(request.step, request.target, `${code}: ${text}${advice}`, {
    statusCode: code,
    ...about(request, undefined),
    ...(as ? { code: as } : {}),
  });
}

/** The object of a refused request, and which thing a 404 of it says is missing. */
function about(
  request: FailedRequest,
  status: Parameters<typeof notFoundOf>[0],
): { resource: FailedRequest['object']; notFound: ReturnType<typeof notFoundOf> } {
  return { resource: request.object, notFound: notFoundOf(status, request) };
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
