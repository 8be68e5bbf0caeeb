// The wire under a Connection: HTTP/2 on one session when the server offers it by ALPN, as
// kube-apiserver does, and a bounded HTTP/1.1 pool when it does not. The choice is made once, by
// the first TLS handshake, and that handshake's socket is used either way.
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpStatusHeader } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { waitFor } from './discovery.ts';

/** HTTP/2 error codes (RFC 9113 section 7), so node:http2 loads only when a Connection needs it. */
const REFUSED_STREAM = 0x7;
const CANCEL = 0x8;

export type Undici = Pick<typeof import('undici'), 'Agent' | 'buildConnector'>;
type Dispatcher = InstanceType<Undici['Agent']>;

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
}

export interface Answer {
  code: number;
  text: string;
  retryAfter: string | undefined;
}

export interface TransportSettings {
  /** `https://host:port` */
  origin: string;
  tls: Record<string, unknown>;
  connectTimeout: number;
  maxSockets: number;
  /** Offer `h2` by ALPN; false offers HTTP/1.1 only. */
  http2: boolean;
}

/** The answer's headers (or a body piece) did not come within the read limit. */
export class ReadTimeoutError extends Error {
  readonly code = 'OTC_READ_TIMEOUT';
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'ReadTimeoutError';
  }
}

/** The TCP connection and TLS handshake did not finish within the connect limit. */
export class ConnectTimeoutError extends Error {
  readonly code = 'OTC_CONNECT_TIMEOUT';
  constructor(ms: number) {
    super(`no TLS connection within ${ms} ms`);
    this.name = 'ConnectTimeoutError';
  }
}

/** The stream ended before the body its Content-Length announced. */
class TruncatedAnswerError extends Error {
  readonly code = 'OTC_TRUNCATED';
  constructor(received: number, announced: number) {
    super(`the answer ended after ${received} of the ${announced} bytes it announced`);
    this.name = 'TruncatedAnswerError';
  }
}

/** The connection ended before the answer did: the request may or may not have been processed. */
class ConnectionLostError extends Error {
  readonly code = 'OTC_CONNECTION_LOST';
  constructor() {
    super('the connection closed before the answer was complete');
    this.name = 'ConnectionLostError';
  }
}

/**
 * The server refused an HTTP/2 stream before processing it (RST_STREAM REFUSED_STREAM, or a stream
 * above the last one a GOAWAY accepted; RFC 9113 section 8.7): sending it again is safe.
 */
class RefusedStreamError extends Error {
  readonly code = 'OTC_REFUSED_STREAM';
  constructor(cause: unknown) {
    super('the server refused the HTTP/2 stream without processing it', { cause });
    this.name = 'RefusedStreamError';
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError');
}

/**
 * Sends every request of one Connection. HTTP/2 runs on node:http2 directly, not on undici's HTTP/2
 * client: that one wedges the process when a stream is aborted right after it starts (a stream
 * `close()` followed at once by `destroy()`), and fails the first request after a silent disconnect.
 * Here an abort only resets the stream, a closed or GOAWAY'd session is replaced before the next
 * request, and a stream the server refused unprocessed is sent once more on the new session.
 */
export class Transport {
  readonly #settings: TransportSettings;
  readonly #pool: Dispatcher;
  /** The newest TLS session ticket, so later handshakes resume instead of paying in full. */
  #ticket: Buffer | undefined;
  #protocol: 'h2' | 'http/1.1' | undefined;
  #session: ClientHttp2Session | undefined;
  #opening: Promise<ClientHttp2Session | undefined> | undefined;
  /** The negotiating handshake's socket when the server chose HTTP/1.1: the pool's first socket. */
  #spare: TLSSocket | undefined;
  /** Streams in flight per session: a replaced session may still finish some. */
  readonly #active = new WeakMap<ClientHttp2Session, number>();

  constructor(undici: Undici, settings: TransportSettings) {
    this.#settings = settings;
    this.#pool = this.#createPool(undici);
  }

  /** What the server chose by ALPN; undefined before the first request. */
  get protocol(): 'h2' | 'http/1.1' | undefined {
    return this.#protocol;
  }

  async send(exchange: Exchange): Promise<Answer> {
    const session = await this.#h2Session(exchange.signal);
    if (session === undefined) return this.#sendH1(exchange);
    try {
      return await this.#sendH2(session, exchange);
    } catch (error) {
      if (!(error instanceof RefusedStreamError)) throw error;
      // Unprocessed by the server's own word; once more on a fresh session.
      const fresh = await this.#h2Session(exchange.signal);
      return fresh === undefined ? this.#sendH1(exchange) : this.#sendH2(fresh, exchange);
    }
  }

  async close(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    this.#protocol = undefined;
    this.#spare?.destroy();
    // close() of a destroyed session never calls back.
    if (session && !session.closed && !session.destroyed) {
      session.ref();
      await new Promise<void>((resolve) => {
        session.close(resolve);
      });
    }
    await this.#pool.close().catch(() => this.#pool.destroy());
  }

  /** The live HTTP/2 session, opening one if needed; undefined when the server speaks HTTP/1.1. */
  async #h2Session(signal: AbortSignal | undefined): Promise<ClientHttp2Session | undefined> {
    if (this.#protocol === 'http/1.1') return undefined;
    const current = this.#session;
    if (current && !current.closed && !current.destroyed) return current;
    // One handshake for all callers, carrying no caller's signal; each stops waiting on its own.
    this.#opening ??= this.#negotiate().finally(() => {
      this.#opening = undefined;
    });
    return waitFor(this.#opening, signal, abortReason);
  }

  async #negotiate(): Promise<ClientHttp2Session | undefined> {
    const socket = await this.#handshake(this.#settings.http2 ? ['h2', 'http/1.1'] : ['http/1.1']);
    if (socket.alpnProtocol !== 'h2') {
      this.#protocol = 'http/1.1';
      this.#spare = socket;
      return undefined;
    }
    this.#protocol = 'h2';
    // Loaded here, not at import: node:http2 and node:tls cost about 15 ms to load.
    const { connect: connectH2 } = await import('node:http2');
    const session = connectH2(this.#settings.origin, { createConnection: () => socket });
    // Stream errors reach their requests; the session's own errors must not crash the process.
    session.on('error', () => undefined);
    const forget = (): void => {
      if (this.#session === session) this.#session = undefined;
    };
    session.on('goaway', forget);
    session.on('close', forget);
    session.unref();
    this.#session = session;
    return session;
  }

  /** TCP + TLS to the server, offering these protocols, within the connect limit. */
  async #handshake(protocols: string[]): Promise<TLSSocket> {
    const [{ connect: connectTls }, { isIP }] = await Promise.all([import('node:tls'), import('node:net')]);
    const url = new URL(this.#settings.origin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // SNI carries host names only, never an IP address (RFC 6066 section 3).
    const servername =
      typeof this.#settings.tls.servername === 'string'
        ? this.#settings.tls.servername
        : isIP(host) === 0
          ? host
          : undefined;
    return new Promise((resolve, reject) => {
      const socket = connectTls({
        ...this.#settings.tls,
        host,
        port: Number(url.port || 443),
        ...(servername === undefined ? {} : { servername }),
        ALPNProtocols: protocols,
        ...(this.#ticket ? { session: this.#ticket } : {}),
      });
      this.#keepTicket(socket);
      const timer = setTimeout(() => {
        socket.destroy(new ConnectTimeoutError(this.#settings.connectTimeout));
      }, this.#settings.connectTimeout);
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        socket.removeListener('error', onError);
        socket.setKeepAlive(true, 30_000);
        resolve(socket);
      });
      const onError = (error: Error): void => {
        clearTimeout(timer);
        reject(error);
      };
      socket.once('error', onError);
    });
  }

  #keepTicket(socket: TLSSocket): void {
    socket.on('session', (ticket: Buffer) => {
      this.#ticket = ticket;
    });
  }

  #sendH2(session: ClientHttp2Session, exchange: Exchange): Promise<Answer> {
    const { signal } = exchange;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let stream: ClientHttp2Stream;
    const headers: Record<string, string> = { ':method': exchange.method, ':path': exchange.path };
    for (const [name, value] of Object.entries(exchange.headers)) headers[name.toLowerCase()] = value;
    try {
      stream = session.request(headers, { endStream: exchange.body === undefined });
    } catch (error) {
      // The session closed between our check and the request: nothing was sent.
      return Promise.reject(new RefusedStreamError(error));
    }
    this.#track(session, 1);
    return new Promise<Answer>((resolve, reject) => {
      let code = 0;
      let retryAfter: string | undefined;
      let announced: number | undefined;
      const chunks: Buffer[] = [];
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        stream.setTimeout(0);
        this.#track(session, -1);
        return true;
      };
      const fail = (error: Error): void => {
        if (!settle()) return;
        // Only a reset: destroying the stream right after closing it is what wedges node:http2.
        if (!stream.closed) stream.close(CANCEL);
        const refused = code === 0 && stream.rstCode === REFUSED_STREAM;
        reject(refused ? new RefusedStreamError(error) : error);
      };
      const onAbort = (): void => {
        if (signal) fail(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.setTimeout(exchange.readTimeout, () => {
        fail(new ReadTimeoutError(exchange.readTimeout));
      });
      stream.on('response', (answer: IncomingHttpHeaders & IncomingHttpStatusHeader) => {
        code = Number(answer[':status']);
        retryAfter = answer['retry-after'];
        const length = answer['content-length'];
        announced = length === undefined ? undefined : Number(length);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const body = Buffer.concat(chunks);
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
        if (settle()) resolve({ code, text: body.toString('utf8'), retryAfter });
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

  /** A session with streams in flight keeps the process alive; an idle one does not. */
  #track(session: ClientHttp2Session, change: 1 | -1): void {
    const active = (this.#active.get(session) ?? 0) + change;
    this.#active.set(session, active);
    if (session.destroyed) return;
    // Only on the edges, so a burst of streams refs the session once.
    if (active === 1 && change === 1) session.ref();
    else if (active === 0) session.unref();
  }

  async #sendH1(exchange: Exchange): Promise<Answer> {
    const response = await this.#pool.request({
      origin: this.#settings.origin,
      path: exchange.path,
      method: exchange.method,
      headers: exchange.headers,
      body: exchange.body ?? null,
      headersTimeout: exchange.readTimeout,
      bodyTimeout: exchange.readTimeout,
      // undici closes the socket after a DELETE with a body unless told the server expects one
      // (undici lib/dispatcher/client-h1.js, writeBuffer); the API server reads DeleteOptions there.
      ...(exchange.method === 'DELETE' ? { reset: false } : {}),
      ...(exchange.signal ? { signal: exchange.signal } : {}),
    });
    const retryAfter = response.headers['retry-after'];
    return {
      code: response.statusCode,
      text: await response.body.text(),
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    };
  }

  /**
   * The bounded HTTP/1.1 pool. Its first socket is the negotiating handshake's. undici remembers TLS
   * sessions only through WeakRefs (undici lib/core/connect.js, SessionCache), so a garbage
   * collection forgets them; each new socket is given the ticket held here instead, and resumes.
   */
  #createPool(undici: Undici): Dispatcher {
    const options = {
      ...this.#settings.tls,
      timeout: this.#settings.connectTimeout,
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
      allowH2: false,
    };
    return new undici.Agent({
      connect: (target, callback) => {
        const spare = this.#spare;
        this.#spare = undefined;
        if (spare && !spare.destroyed) {
          // Asynchronously, as a real connect: undici ignores a connector that answers at once.
          process.nextTick(callback, null, spare);
          return;
        }
        // Typed as returning nothing, undici's connector returns its socket; undici cancels a
        // pending connect through it (undici lib/dispatcher/client.js, connect), so it is passed on.
        const connect = undici.buildConnector({
          ...options,
          ...(this.#ticket ? { session: this.#ticket } : {}),
        }) as (...args: Parameters<ReturnType<Undici['buildConnector']>>) => TLSSocket | undefined;
        return connect(target, (...result) => {
          if (result[1]) this.#keepTicket(result[1] as TLSSocket);
          callback(...result);
        });
      },
      connections: this.#settings.maxSockets,
      allowH2: false,
    });
  }
}
