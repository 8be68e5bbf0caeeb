// One request as one HTTP/2 stream on the transport's own node:http2 session (why not undici's:
// docs/wire-reference.md section 8.1). An abort or a read timeout only resets the stream; an answer
// cut short is a failure, never a success.
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpStatusHeader } from 'node:http2';
import {
  abortReason,
  AnswerTooLargeError,
  ConnectionLostError,
  MAX_ANSWER_BYTES,
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

/** Header values as the transports give them: absent, one string, or one per header field. */
export function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** What the transport keeps of each HTTP/2 session: its streams in flight, and what it heard. */
export interface StreamBook {
  /** A stream opened (1) or ended (-1) on this session. */
  track(session: ClientHttp2Session, change: 1 | -1): void;
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

const EXCHANGE = Symbol('exchange');
type Carrying = ClientHttp2Stream & { [EXCHANGE]: StreamExchange };

/**
 * One stream's request and answer. Its listeners are shared functions that find it on the stream
 * (node:http2 calls them with the stream as `this`), and it is the signal's listener itself
 * (`handleEvent`): a burst's thousands of streams allocate one object each, not a closure per event.
 */
class StreamExchange {
  /** The answer's status and headers, once they came. */
  head: Omit<Answer, 'text'> | undefined;
  announced: number | undefined;
  received = 0;
  readonly chunks: Buffer[] = [];
  settled = false;
  readonly stream: ClientHttp2Stream;
  readonly session: ClientHttp2Session;
  readonly book: StreamBook;
  readonly request: Exchange;
  readonly settle: { resolve: (answer: Answer) => void; reject: (error: Error) => void };

  constructor(
    stream: ClientHttp2Stream,
    session: ClientHttp2Session,
    book: StreamBook,
    request: Exchange,
    settle: StreamExchange['settle'],
  ) {
    this.stream = stream;
    this.session = session;
    this.book = book;
    this.request = request;
    this.settle = settle;
    request.signal?.addEventListener('abort', this, { once: true });
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    const { signal } = this.request;
    if (signal) this.fail(abortReason(signal));
  }

  /** Ends the stream's bookkeeping, once: false when it had already ended. */
  #done(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.request.signal?.removeEventListener('abort', this);
    this.stream.setTimeout(0);
    this.book.track(this.session, -1);
    return true;
  }

  fail(error: Error): void {
    if (!this.#done()) return;
    this.chunks.length = 0;
    // Only a reset: destroying the stream right after closing it is what wedges node:http2.
    if (!this.stream.closed) this.stream.close(CANCEL);
    const last = this.book.lastProcessed(this.session);
    const refused = this.head === undefined && unprocessed(this.stream, last, error);
    this.settle.reject(refused ? new RefusedStreamError(error) : error);
  }

  end(): void {
    const { head, chunks, announced } = this;
    // A session torn down ends its streams as if they were complete: no status, or a body
    // cut short, is a lost connection.
    if (head === undefined || this.session.destroyed) {
      this.fail(new ConnectionLostError());
      return;
    }
    // Most answers arrive in one piece: no copy for those.
    const body = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
    // A reset with NO_ERROR also ends the stream; only the announced length tells it was cut.
    if (announced !== undefined && body.length !== announced) {
      this.fail(new TruncatedAnswerError(body.length, announced));
      return;
    }
    if (this.#done()) this.settle.resolve({ ...head, text: body.toString('utf8') });
  }
}

function onResponse(this: Carrying, answer: IncomingHttpHeaders & IncomingHttpStatusHeader): void {
  const exchange = this[EXCHANGE];
  exchange.book.heard(exchange.session);
  exchange.head = {
    code: Number(answer[':status']),
    retryAfter: answer['retry-after'],
    warnings: headerValues(answer.warning),
    etag: answer.etag,
  };
  const length = answer['content-length'];
  exchange.announced = length === undefined ? undefined : Number(length);
  if ((exchange.announced ?? 0) > MAX_ANSWER_BYTES) exchange.fail(new AnswerTooLargeError());
}

function onData(this: Carrying, chunk: Buffer): void {
  const exchange = this[EXCHANGE];
  if (exchange.settled) return;
  exchange.received += chunk.length;
  // As undici's maxResponseSize does over HTTP/1.1: a body without end must not fill the heap.
  if (exchange.received > MAX_ANSWER_BYTES) exchange.fail(new AnswerTooLargeError());
  else exchange.chunks.push(chunk);
}

function onEnd(this: Carrying): void {
  this[EXCHANGE].end();
}

function onError(this: Carrying, error: Error): void {
  this[EXCHANGE].fail(error);
}

function onClose(this: Carrying): void {
  // Every stream closes, most after their answer: build no Error (and stack) for those.
  if (!this[EXCHANGE].settled)
    this[EXCHANGE].fail(new Error(`the HTTP/2 stream closed before the answer ended (code ${this.rstCode})`));
}

function onTimeout(this: Carrying): void {
  const exchange = this[EXCHANGE];
  exchange.fail(new ReadTimeoutError(exchange.request.readTimeout));
}

export function sendH2(session: ClientHttp2Session, exchange: Exchange, book: StreamBook): Promise<Answer> {
  const { signal } = exchange;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  let stream: ClientHttp2Stream;
  try {
    // node:http2 lower-cases the header names and sends the pseudo-headers first.
    const headers = { ...exchange.headers, ':method': exchange.method, ':path': exchange.path };
    stream = session.request(headers, { endStream: exchange.body === undefined });
  } catch (error) {
    // The session closed between the transport's check and the request: nothing was sent.
    return Promise.reject(new RefusedStreamError(error));
  }
  return new Promise<Answer>((resolve, reject) => {
    const carried = new StreamExchange(stream, session, book, exchange, { resolve, reject });
    (stream as Carrying)[EXCHANGE] = carried;
    book.track(session, 1);
    stream.setTimeout(exchange.readTimeout, onTimeout);
    stream.on('response', onResponse);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    if (exchange.body !== undefined) stream.end(exchange.body);
  });
}
