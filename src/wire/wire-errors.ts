// What can go wrong on the wire, as errors the request layer classifies by `code`.
import type { Proxy } from './proxy.ts';

/**
 * The codes of a read limit that ran out: HTTP/2's ReadTimeoutError below, and undici's for
 * HTTP/1.1 (no answer head, or a body that stopped).
 */
export const READ_TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'OTC_READ_TIMEOUT',
]);

/** Whether `error` is itself a read limit that ran out (not one found among its causes). */
export const isReadTimeout = (error: unknown): boolean =>
  error instanceof Error && READ_TIMEOUT_CODES.has(String((error as { code?: unknown }).code));

/**
 * The most bytes of one answer's body the wire reads. The library's largest answers are OpenAPI v3
 * documents, a few MiB for the biggest group-versions; a body past this is not an API server's
 * answer to any request the library sends, and reading on would only fill the heap.
 */
export const MAX_ANSWER_BYTES: number = 64 * 1024 * 1024;

/** The codes of an answer past MAX_ANSWER_BYTES: ours (HTTP/2) and undici's (HTTP/1.1, `maxResponseSize`). */
export const TOO_LARGE_CODES: ReadonlySet<string> = new Set([
  'OTC_ANSWER_TOO_LARGE',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
]);

/** An error of the wire: named after its class, with the `code` the request layer classifies. */
class WireError extends Error {
  readonly code: string;
  constructor(code: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** The answer's headers (or a body piece) did not come within the read limit. */
export class ReadTimeoutError extends WireError {
  constructor(ms: number) {
    super('OTC_READ_TIMEOUT', `no answer within ${ms} ms`);
  }
}

/** The answer's body is, or announced it would be, larger than MAX_ANSWER_BYTES. */
export class AnswerTooLargeError extends WireError {
  constructor() {
    super('OTC_ANSWER_TOO_LARGE', `the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
  }
}

/** The TCP connection and TLS handshake did not finish within the connect limit. */
export class ConnectTimeoutError extends WireError {
  /** What was still under way when a proxy is in the path, e.g. the proxy had not opened the tunnel. */
  readonly stage: string | undefined;
  constructor(ms: number, stage?: string) {
    super('OTC_CONNECT_TIMEOUT', `no TLS connection within ${ms} ms${stage ? ` (${stage})` : ''}`);
    this.stage = stage;
  }
}

/** The stream ended before the body its Content-Length announced. */
export class TruncatedAnswerError extends WireError {
  constructor(received: number, announced: number) {
    super('OTC_TRUNCATED', `the answer ended after ${received} of the ${announced} bytes it announced`);
  }
}

/** The connection ended before the answer did: the request may or may not have been processed. */
export class ConnectionLostError extends WireError {
  constructor() {
    super('OTC_CONNECTION_LOST', 'the connection closed before the answer was complete');
  }
}

/** `close()` was called on the Connection: nothing more is sent, and what was in flight is cancelled. */
export class ConnectionClosedError extends WireError {
  constructor() {
    super('OTC_CONNECTION_CLOSED', 'the Connection was closed');
  }
}

/**
 * The server refused an HTTP/2 stream before processing it (RST_STREAM REFUSED_STREAM, or a stream
 * above the last one a GOAWAY accepted; RFC 9113 section 8.7): sending it again is safe.
 */
export class RefusedStreamError extends WireError {
  constructor(cause: unknown) {
    super('OTC_REFUSED_STREAM', 'the server refused the HTTP/2 stream without processing it', cause);
  }
}

/** The credentials for a request could not be had (an exec plugin failed, a token file is gone). */
export class CredentialsError extends WireError {
  constructor(cause: unknown) {
    super('OTC_CREDENTIALS', cause instanceof Error ? cause.message : String(cause), cause);
  }
}

/**
 * The proxy did not open a tunnel to the API server, so nothing was sent to it. Names the proxy by
 * scheme, host and port only: its credentials are never part of a message.
 */
export class ProxyError extends WireError {
  constructor(proxy: Proxy, what: string, cause?: unknown) {
    super('OTC_PROXY', `proxy ${proxy.label} (${proxy.source}): ${what}`, cause);
  }
}

/** The reason a fired signal carries, as an Error (a bare `abort()` carries a DOMException already). */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError');
}
