// Failed requests classified once: the code and outcome (did anything reach the server) from the
// HTTP status, the Status and the wire failure, worded as a RequestError naming step and target.
import {
  type NotFound,
  type Outcome,
  RequestError,
  type RequestErrorCode,
  type RequestStep,
} from '../errors.ts';
import type { KubernetesStatus, ObjectIdentity, RequestTimeout } from '../types/index.ts';
import { isRecord } from '../util/json.ts';
import { cutText, type Redactor, redactStatus } from '../util/redact.ts';
import { MAX_ANSWER_BYTES, READ_TIMEOUT_CODES, TOO_LARGE_CODES } from '../wire/wire-errors.ts';

/** The resource (plural) of a namespaced path, as a Status's `details.kind` names it. */
function collectionOf(path: string | undefined): string | undefined {
  const segments = (path ?? '').split('?')[0]?.split('/') ?? [];
  const at = segments.indexOf('namespaces');
  return at < 0 ? undefined : segments[at + 2];
}

/** Which thing a 404 (or 410) says is missing, from the Status's `details` (plural and name). */
function notFoundOf(status: KubernetesStatus | undefined, request: FailedRequest): NotFound {
  const details = isStatus(status) ? status.details : undefined;
  if (details?.kind === 'namespaces') return 'namespace';
  const name = details?.name;
  if (name === undefined || name === '' || request.object === undefined) return 'other';
  const own = name === request.object.name && details?.kind === collectionOf(request.path);
  return own ? (request.notFound ?? 'object') : 'referenced';
}

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
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_)|^(DEPTH_ZERO|SELF_SIGNED_CERT_IN_CHAIN)/;
const isTlsCode = (code: string): boolean => TLS_CODE.test(code);

/** A wire failure (no answer): nothing left when it failed before the request could be written. */
function wireOutcome(cause: unknown): Outcome {
  const codes = codesOf(cause);
  return codes.some((c) => BEFORE_SENDING.has(c) || isTlsCode(c)) ? 'not-sent' : 'unknown';
}

function isStatus(body: KubernetesStatus | undefined): body is KubernetesStatus {
  return body?.kind === 'Status';
}

/** How server-side apply's refusal of a body its schema does not type begins (a 500, no reason). */
export const TYPED_PATCH_REFUSAL = 'failed to create typed patch object (';

/**
 * Per Status reason, how a 500 sent before anything reaches storage begins; any other 500 may
 * follow a committed write (an etcd error has no reason; a decode after the write is InternalError).
 */
const BEFORE_STORAGE: Record<string, readonly string[]> = {
  // apimachinery managedfields structuredmerge.go: typed and converted before anything is stored.
  '': [TYPED_PATCH_REFUSAL, 'failed to create typed live object (', 'failed to convert new object ('],
  // apiserver pkg/util/webhook ErrCallingWebhook: a fail-closed webhook not reached, in admission.
  InternalError: ['Internal error occurred: failed calling webhook "'],
};

/** An answer outside 2xx: refused only when a Kubernetes Status says the server did not act. */
function answerOutcome(statusCode: number, status: KubernetesStatus | undefined): Outcome {
  if (!isStatus(status)) return 'unknown';
  if (status.reason === 'Timeout' || status.reason === 'ServerTimeout') return 'unknown';
  if (statusCode >= 400 && statusCode < 500) return statusCode === 408 ? 'unknown' : 'refused';
  if (statusCode === 500) {
    const message = status.message ?? '';
    return BEFORE_STORAGE[status.reason ?? '']?.some((s) => message.startsWith(s)) ? 'refused' : 'unknown';
  }
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
function answerCode(statusCode: number, reason: string | undefined): RequestErrorCode {
  if (reason === 'Timeout' || reason === 'ServerTimeout') return 'OTC_SERVER_TIMEOUT';
  const known = STATUS_CODES[statusCode];
  if (known !== undefined) return known;
  return statusCode >= 500 ? 'OTC_SERVER_ERROR' : 'OTC_HTTP_ERROR';
}

/** The code of a wire failure, from what ended it and the codes along its cause chain. */
function wireCode(cause: unknown, kind: 'timeout' | 'abort' | undefined): RequestErrorCode {
  const codes = codesOf(cause);
  if (codes.includes('OTC_CONNECTION_CLOSED')) return 'OTC_CONNECTION_CLOSED';
  if (kind === 'timeout') return 'OTC_TIMEOUT';
  if (kind === 'abort') return 'OTC_ABORTED';
  if (codes.includes('OTC_CREDENTIALS')) return 'OTC_CREDENTIALS';
  if (codes.includes('OTC_PROXY')) return 'OTC_PROXY';
  if (codes.some(isTlsCode)) return 'OTC_TLS';
  if (codes.some((c) => BEFORE_SENDING.has(c))) return 'OTC_CONNECT_FAILED';
  return 'OTC_CONNECTION_LOST';
}

type Fields = Omit<ConstructorParameters<typeof RequestError>[3], 'code' | 'outcome'> & {
  code?: RequestErrorCode | undefined;
  outcome?: Outcome | undefined;
};

/** What a failure is named by: the request's step, target and object. */
type Named = Pick<FailedRequest, 'step' | 'target' | 'object'>;

/** The request's RequestError; its code and outcome, where not given, follow from its answer or cause. */
function classified({ step, target, object }: Named, detail: string, fields: Fields): RequestError {
  const { statusCode: answered, cause, kind } = fields;
  const code =
    fields.code ?? (answered === undefined ? wireCode(cause, kind) : answerCode(answered, fields.reason));
  const outcome =
    fields.outcome ?? (answered === undefined ? wireOutcome(cause) : answerOutcome(answered, fields.status));
  return new RequestError(step, target, detail, { resource: object, ...fields, code, outcome });
}

/** What the request layer knows of a request when it fails. */
export interface FailedRequest {
  method: string;
  object?: ObjectIdentity | undefined;
  path?: string | undefined;
  /** What a 404 naming this request's own object means (default `'object'`). */
  notFound?: NotFound | undefined;
  /** `dryRun: 'All'` marks a request the server runs without storing anything. */
  query?: Readonly<Record<string, string | undefined>> | undefined;
  step: RequestStep;
  target: string;
  redact?: Redactor | undefined;
}

/** The error and its causes, at most 10 deep. */
function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 10; e = (e as Error).cause)
    chain.push(e);
  return chain;
}

/** The first error in the chain with this code. */
function withCode(error: unknown, code: string): (Error & { stage?: unknown }) | undefined {
  return errorChain(error).find(
    (e): e is Error => e instanceof Error && (e as { code?: unknown }).code === code,
  );
}

const chainNamed = (error: unknown, name: string): boolean =>
  errorChain(error).some((e) => isRecord(e) && e.name === name);

function codesOf(error: unknown): string[] {
  return errorChain(error).flatMap((e) => (isRecord(e) && typeof e.code === 'string' ? [e.code] : []));
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

/** Only applies and deletes leave an unknown outcome, and not under a dry run (nothing stored). */
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
  limits: Exclude<RequestTimeout, number>,
  signal?: AbortSignal,
  proxy?: string,
): RequestError {
  const codes = codesOf(error);
  const outcome = unknownOutcome(request);
  const make = (detail: string, more: Partial<Fields> = {}): RequestError =>
    classified(request, detail, { cause: error, ...more });
  const fail = (detail: string, kind?: 'timeout'): RequestError =>
    make(`${detail}${outcome}`, kind ? { kind } : {});
  if (codes.includes('OTC_CONNECTION_CLOSED')) return fail('the Connection was closed');
  const refused = withCode(error, 'OTC_PROXY');
  // The tunnel never opened, so the request never left: no unknown outcome.
  if (refused) return make(`${refused.message}; nothing was sent`);
  if (codes.some((c) => CONNECT_TIMEOUT_CODES.has(c))) {
    const stage = withCode(error, 'OTC_CONNECT_TIMEOUT')?.stage;
    const detail = typeof stage === 'string' ? ` (${stage})` : '';
    return make(`connect timed out after ${limits.connect} ms${detail}`, { kind: 'timeout' });
  }
  if (codes.some((c) => READ_TIMEOUT_CODES.has(c)))
    return fail(`read timed out after ${limits.read} ms`, 'timeout');
  if (codes.some((c) => TOO_LARGE_CODES.has(c)))
    return make(
      `the answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, more than any API server answer this library reads; it was not read further${outcome}`,
      { code: 'OTC_RESPONSE_TOO_LARGE' },
    );
  if (signal?.aborted) return stoppedBy(request, signal, outcome, error);
  if (chainNamed(error, 'TimeoutError')) return fail('timed out', 'timeout');
  if (chainNamed(error, 'AbortError')) return make(`aborted${outcome}`, { kind: 'abort' });
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

/** Getting the credentials failed or the wait for an exec plugin ended: nothing was sent. */
export function credentialsError(
  error: unknown,
  request: FailedRequest,
  limits: Exclude<RequestTimeout, number>,
  signal: AbortSignal | undefined,
  closed: boolean,
): RequestError {
  const make = (detail: string, more: Partial<Fields> = {}): RequestError =>
    classified(request, detail, { cause: error, ...more });
  const waiting = withCode(error, 'OTC_EXEC_NOT_ANSWERED');
  const text = error instanceof Error ? error.message : String(error);
  if (!waiting) return make(`could not get credentials, so nothing was sent: ${text}`);
  const before = ` before the request was sent: the ${waiting.message}`;
  if (closed)
    return make(`the Connection was closed${before}`, { code: 'OTC_CONNECTION_CLOSED', outcome: 'not-sent' });
  if (signal?.aborted) return stoppedBy(request, signal, before, error, 'not-sent');
  const limit = limits.connect + limits.read;
  const detail = `timed out after ${limit} ms (this operation's requestTimeout, connect + read)${before}`;
  return make(detail, { kind: 'timeout', outcome: 'not-sent' });
}

/** The request's bound (connect + read from its start) ended it, answer included. */
export function deadlineError(error: unknown, request: FailedRequest, boundMs: number): RequestError {
  return classified(
    request,
    `no complete answer within ${boundMs} ms (this operation's requestTimeout, connect + read, bounds the whole request)${unknownOutcome(request)}`,
    { cause: error, kind: 'timeout', code: 'OTC_RESPONSE_TIMEOUT' },
  );
}

/** The signal had fired before anything was sent: nothing reached the server. */
export function abortedBeforeSending(request: Named, signal: AbortSignal): RequestError {
  return stoppedBy(request, signal, ' before the request was sent', signal.reason, 'not-sent');
}

/** close() came first: nothing of this request was sent. */
export function closedBeforeSending(
  request: FailedRequest,
  when = 'before the request was sent',
): RequestError {
  return classified(request, `the Connection was closed ${when}`, {
    code: 'OTC_CONNECTION_CLOSED',
    outcome: 'not-sent',
  });
}

/** Characters of a body that is not a Status (a gateway's page, say) quoted in the error. */
const QUOTED_BODY = 200;

/** An answer outside 2xx, with its Status; `body` comes already redacted, so no cut leaks a secret. */
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
  const fields = { statusCode: code, code: as };
  if (!isRecord(body) || body.kind !== 'Status') {
    const text =
      typeof body === 'string'
        ? cutText(redact(body.trim()), QUOTED_BODY, redact, credentials)
        : 'no Status in the response';
    return classified(request, `${code}: ${text}${advice}`, fields);
  }
  const status = redactStatus(body, redact);
  const reason = status.reason ?? '';
  const message = status.message ?? 'no message';
  // Causes the message does not already mention (conflicts and 422s usually name their fields).
  const causes = (status.details?.causes ?? [])
    .filter((c) => !message.includes(c.field ?? c.message ?? ''))
    .map((c) => [c.field, c.message].filter(Boolean).join(': '));
  const causeText = causes.length > 0 ? ` (${causes.join('; ')})` : '';
  const detail = `${code}${reason ? ` ${reason}` : ''}: ${message}${causeText}${advice}`;
  const notFound = notFoundOf(status, request);
  return classified(request, detail, {
    ...fields,
    status,
    notFound,
    ...(reason ? { reason } : {}),
  });
}

/** A fired signal ended a request or wait: a timeout when its reason is a TimeoutError, else an abort. */
export function stoppedBy(
  request: Named,
  signal: AbortSignal,
  after = '',
  cause: unknown = signal.reason,
  outcome: Outcome = 'unknown',
): RequestError {
  const reason: unknown = signal.reason;
  const kind = reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'abort';
  return classified(request, `${kind === 'timeout' ? 'timed out' : 'aborted'}${after}`, {
    cause,
    kind,
    outcome,
    ...(kind === 'timeout' ? { timeout: 'signal' as const } : {}),
  });
}
