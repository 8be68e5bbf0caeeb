// One request as one HTTP/2 stream on node:http2 directly (not undici's HTTP/2 client, whose
// aborts wedge the process: a stream close() followed at once by destroy()). An abort or a read
// timeout only resets the stream; an answer cut short is a failure, never a success.
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpStatusHeader } from 'node:http2';
import { headerValues } from './headers.ts';
import {
  abortReason,
  ConnectionLostError,
  ReadTimeoutError,
  RefusedStreamError,
  TruncatedAnswerError,
} from './wire-errors.ts';

/**
 * How a caller wraps each attempt the wire sends (the request tracing channel does, from above):
 * `work` sends one attempt; `protocol` is what carries it.
 */
export type Traced = <T extends { code: number }>(
  work: () => Promise<T>,
  protocol: 'h2' | 'http/1.1',
) => Promise<T>;

/** HTTP/2 error codes (RFC 9113 section 7), so node:http2 loads only when a Connection needs it. */
const REFUSED_STREAM = 0x7;
const CANCEL = 0x8;

/** One request as the transport sends it; the caller has built headers and body. */
export interface Exchange {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path and query, as the server reads them. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Longest wait for the answer's headers, and between two pieces of its body. */
  readTimeout: number;
  signal: AbortSignal | undefined;
  /** Present when someone traces requests: each attempt is sent inside it. */
  traced?: Traced | undefined;
}

export interface Answer {
  code: number;
  text: string;
  retryAfter: string | undefined;
  /** Every `Warning` header field value, as sent. */
  warnings: string[];
  /** The `ETag` header, as sent (quotes included); OpenAPI documents carry their hash in it. */
  etag?: string | undefined;
}

/** What the transport keeps of each stream in flight: its count per session, and a way to end it. */
export interface StreamBook {
  opened(session: ClientHttp2Session, cancel: (error: Error) => void): void;
  closed(session: ClientHttp2Session, cancel: (error: Error) => void): void;
  /** The server answered on this session: it is alive. */
  heard(session: ClientHttp2Session): void;
  /** The last-stream-id of the GOAWAY the session received, if any: streams above it were not processed. */
  lastProcessed(session: ClientHttp2Session): number | undefined;
}

/**
 * Whether the server said it did not process a stream that failed before its answer: it refused
 * the stream, or a GOAWAY named a lower last-stream-id (RFC 9113 section 6.8), whatever its error
 * code. A stream with no id was never sent. A failure of our own (an abort, a read limit) is not.
 */
function unprocessed(stream: ClientHttp2Stream, last: number | undefined, error: Error): boolean {
  if (stream.rstCode === REFUSED_STREAM) return true;
  if (last === undefined || error instanceof ReadTimeoutError || error.name === 'AbortError') return false;
  return stream.id === undefined || stream.id > last;
}

export function sendH2(session: ClientHttp2Session, exchange: Exchange, book: StreamBook): Promise<Answer> {
  const { signal } = exchange;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  let stream: ClientHttp2Stream;
  const headers: Record<string, string> = { ':method': exchange.method, ':path': exchange.path };
  for (const name in exchange.headers) {
    const value = exchange.headers[name];
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  try {
    stream = session.request(headers, { endStream: exchange.body === undefined });
  } catch (error) {
    // The session closed between the transport's check and the request: nothing was sent.
    return Promise.reject(new RefusedStreamError(error));
  }
  return new Promise<Answer>((resolve, reject) => {
    let code = 0;
    let retryAfter: string | undefined;
    let warnings: string[] = [];
    let etag: string | undefined;
    let announced: number | undefined;
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      stream.setTimeout(0);
      book.closed(session, fail);
      return true;
    };
    const fail = (error: Error): void => {
      if (!settle()) return;
      // Only a reset: destroying the stream right after closing it is what wedges node:http2.
      if (!stream.closed) stream.close(CANCEL);
      const refused = code === 0 && unprocessed(stream, book.lastProcessed(session), error);
      reject(refused ? new RefusedStreamError(error) : error);
    };
    const onAbort = (): void => {
      if (signal) fail(abortReason(signal));
    };
    book.opened(session, fail);
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.setTimeout(exchange.readTimeout, () => {
      fail(new ReadTimeoutError(exchange.readTimeout));
    });
    stream.on('response', (answer: IncomingHttpHeaders & IncomingHttpStatusHeader) => {
      book.heard(session);
      code = Number(answer[':status']);
      retryAfter = answer['retry-after'];
      warnings = headerValues(answer.warning);
      etag = answer.etag;
      const length = answer['content-length'];
      announced = length === undefined ? undefined : Number(length);
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      // Most answers arrive in one piece: no copy for those.
      const [only] = chunks;
      const body = only !== undefined && chunks.length === 1 ? only : Buffer.concat(chunks);
      // A session torn down ends its streams as if they were complete: no status, or a body
      // cut short, is a lost connection.
      if (code === 0 || session.destroyed) {
        fail(new ConnectionLostError());
        return;
      }
      // A reset with NO_ERROR also ends the stream; only the announced length tells it was cut.
      if (announced !== undefined && body.length !== announced) {
        fail(new TruncatedAnswerError(body.length, announced));
        return;
      }
      if (settle()) resolve({ code, text: body.toString('utf8'), retryAfter, warnings, etag });
    });
    stream.on('error', fail);
    stream.on('close', () => {
      // Every stream closes, most after their answer: build no Error (and stack) for those.
      if (!settled)
        fail(new Error(`the HTTP/2 stream closed before the answer ended (code ${stream.rstCode})`));
    });
    if (exchange.body !== undefined) stream.end(exchange.body);
  });
}
