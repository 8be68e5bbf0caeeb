// The wire under a Connection: HTTP/2 on one session when the server offers it by ALPN, else a
// bounded HTTP/1.1 pool, chosen once by the first handshake, whose socket is used either way. Here
// the HTTP/2 session and its health checks; one stream is h2.ts, the pool h1.ts, a connection
// handshake.ts, a tunnel tunnel.ts.
import type { ClientHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { type Answer, type Exchange, sendH2, type StreamBook } from './h2.ts';
import { Http1Pool } from './h1.ts';
import { handshake, type HandshakeProxy } from './handshake.ts';
import type { Undici } from '../util/runtime.ts';
import { waitFor } from '../util/wait.ts';
import { abortReason, ConnectionClosedError, ReadTimeoutError, RefusedStreamError } from './wire-errors.ts';

export type { Answer, Exchange } from './h2.ts';

export interface TransportSettings {
  /** `https://host:port` */
  origin: string;
  tls: Record<string, unknown>;
  connectTimeout: number;
  maxSockets: number;
  /** Offer `h2` by ALPN; false offers HTTP/1.1 only. */
  http2: boolean;
  /**
   * HTTP/2 health checks: a session idle (nothing heard) for longer than `idleMs` is checked
   * before it carries a request, and any session whose stream timed out is checked at once; a
   * PING that gets no answer within `pingTimeoutMs` retires the session.
   */
  health: { idleMs: number; pingTimeoutMs: number };
  /** The proxy every connection is tunnelled through; absent for direct connections. */
  through?: HandshakeProxy | undefined;
}

/**
 * Sends every request of one Connection. Over HTTP/2 a closed or GOAWAY'd session is replaced
 * before the next request, and a stream the server refused unprocessed is sent once more on the
 * new session; over HTTP/1.1 undici's pool holds at most `maxSockets` sockets.
 */
export class Transport {
  #settings: TransportSettings;
  readonly #h1: Http1Pool;
  /** Counts client certificates: a handshake begun with an older one is not used. */
  #generation = 0;
  /** Ends handshakes under way and marks every later send as refused, when close() is called. */
  readonly #closing = new AbortController();
  /** The newest TLS session ticket, so later handshakes resume instead of paying in full. */
  #ticket: Buffer | undefined;
  #protocol: 'h2' | 'http/1.1' | undefined;
  #session: ClientHttp2Session | undefined;
  #opening: Promise<ClientHttp2Session | undefined> | undefined;
  /** The negotiating handshake's socket when the server chose HTTP/1.1: the pool's first socket. */
  #spare: TLSSocket | undefined;
  /** Streams in flight per session (a replaced session may still finish some). */
  readonly #active = new WeakMap<ClientHttp2Session, number>();
  /** Every session not yet closed, the replaced ones included: close() ends them all. */
  readonly #sessions = new Set<ClientHttp2Session>();
  /** When each session last answered anything (response headers or a PING acknowledgement). */
  readonly #heard = new WeakMap<ClientHttp2Session, number>();
  /** The health check under way per session, shared by everyone who waits for it. */
  readonly #checks = new WeakMap<ClientHttp2Session, Promise<boolean>>();
  readonly #book: StreamBook = {
    // A session with streams in flight keeps the process alive; an idle one does not.
    track: (session, change) => {
      const active = (this.#active.get(session) ?? 0) + change;
      this.#active.set(session, active);
      if (session.destroyed) return;
      // Only on the edges, so a burst of streams refs the session once.
      if (active === 1 && change === 1) session.ref();
      else if (active === 0) session.unref();
    },
    heard: (session) => {
      this.#heard.set(session, performance.now());
    },
    lastProcessed: (session) => this.#lastProcessed.get(session),
  };
  /** The lowest last-stream-id a session's GOAWAYs named (a server may send several, each lower). */
  readonly #lastProcessed = new WeakMap<ClientHttp2Session, number>();

  constructor(undici: Undici, settings: TransportSettings) {
    this.#settings = settings;
    this.#h1 = new Http1Pool(undici, {
      origin: settings.origin,
      maxSockets: settings.maxSockets,
      takeSpare: () => {
        const spare = this.#spare;
        this.#spare = undefined;
        return spare;
      },
      handshake: () => this.#handshake(['http/1.1']),
    });
  }

  /** What the server chose by ALPN; undefined before the first request. */
  get protocol(): 'h2' | 'http/1.1' | undefined {
    return this.#protocol;
  }

  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  send(exchange: Exchange): Promise<Answer> {
    const session = this.#usableSession();
    if (session) return this.#attempts(session, exchange);
    return this.#h2Session(exchange.signal).then((opened) => this.#attempts(opened, exchange));
  }

  /**
   * One attempt on `session`, or on the HTTP/1.1 pool when there is none; over HTTP/2 once more on
   * a fresh session when the server said it did not process the stream (a refused stream, a
   * GOAWAY's last-stream-id below it).
   */
  async #attempts(session: ClientHttp2Session | undefined, exchange: Exchange): Promise<Answer> {
    try {
      return await this.#attempt(session, exchange);
    } catch (error) {
      if (session === undefined) throw error;
      // Silence may mean the connection died without a word (a load balancer failed over): ask.
      if (error instanceof ReadTimeoutError) void this.#alive(session);
      if (!(error instanceof RefusedStreamError)) throw error;
      return this.#attempt(await this.#h2Session(exchange.signal), exchange);
    }
  }

  /**
   * The live session when it can take a stream without waiting (open, not under a health check,
   * not quiet for too long), so a burst's requests skip #h2Session's async step; else undefined.
   */
  #usableSession(): ClientHttp2Session | undefined {
    const current = this.#liveSession();
    if (this.closed || current === undefined) return undefined;
    return this.#checks.has(current) || this.#quietTooLong(current) ? undefined : current;
  }

  /** The session, unless it has closed or been destroyed. */
  #liveSession(): ClientHttp2Session | undefined {
    const current = this.#session;
    return current && !current.closed && !current.destroyed ? current : undefined;
  }

  /** One attempt on a stream of `session`, else on the HTTP/1.1 pool, traced when someone listens. */
  #attempt(session: ClientHttp2Session | undefined, exchange: Exchange): Promise<Answer> {
    const send = (): Promise<Answer> =>
      session ? sendH2(session, exchange, this.#book) : this.#h1.send(exchange);
    return exchange.traced ? exchange.traced(send, session ? 'h2' : 'http/1.1') : send();
  }

  /**
   * A new client certificate (an exec plugin rotated it): connections made with the old one finish
   * what they carry and close, and the TLS ticket goes too (a resumed session keeps the old identity).
   */
  useClientCertificate(certificate: { cert: string; key: string }): void {
    if (this.closed) return;
    this.#generation += 1;
    this.#settings = { ...this.#settings, tls: { ...this.#settings.tls, ...certificate } };
    this.#ticket = undefined;
    this.#liveSession()?.close();
    this.#session = undefined;
    this.#spare?.destroy();
    this.#spare = undefined;
    this.#h1.renew();
  }

  /** Ends everything at once: handshakes under way, streams and requests in flight, idle sockets. */
  async close(): Promise<void> {
    if (this.closed) return;
    const closed = new ConnectionClosedError();
    this.#closing.abort(closed);
    // node:http2 fails each stream in flight with the session's error.
    for (const session of this.#sessions) session.destroy(closed);
    this.#session = undefined;
    this.#spare?.destroy();
    this.#spare = undefined;
    await this.#h1.destroy(closed);
  }

  /** The live HTTP/2 session, opening one if needed; undefined when the server speaks HTTP/1.1. */
  async #h2Session(signal: AbortSignal | undefined): Promise<ClientHttp2Session | undefined> {
    if (this.closed) throw new ConnectionClosedError();
    if (this.#protocol === 'http/1.1') return undefined;
    const ready = this.#usableSession();
    if (ready) return ready;
    const current = this.#liveSession();
    if (current) {
      // A session under suspicion (a stream timed out) or quiet for long carries nothing new
      // until it has answered a PING.
      if (await waitFor(this.#checks.get(current) ?? this.#alive(current), signal, abortReason))
        return current;
      return this.#h2Session(signal);
    }
    // A caller that has already given up starts nothing that nobody would wait for.
    if (signal?.aborted) throw abortReason(signal);
    // One handshake for all callers, carrying no caller's signal; each stops waiting on its own.
    this.#opening ??= this.#negotiate().finally(() => {
      this.#opening = undefined;
    });
    return waitFor(this.#opening, signal, abortReason);
  }

  async #negotiate(): Promise<ClientHttp2Session | undefined> {
    const generation = this.#generation;
    const socket = await this.#handshake(this.#settings.http2 ? ['h2', 'http/1.1'] : ['http/1.1']);
    if (this.closed) {
      socket.destroy();
      throw new ConnectionClosedError();
    }
    if (generation !== this.#generation) {
      // Opened with a certificate that has since been replaced.
      socket.destroy();
      return this.#negotiate();
    }
    if (socket.alpnProtocol !== 'h2') {
      this.#protocol = 'http/1.1';
      // Until undici takes it, a reset of this socket must not be an unhandled 'error' event.
      socket.on('error', () => undefined);
      this.#spare = socket;
      return undefined;
    }
    this.#protocol = 'h2';
    // Loaded here, not at import: node:http2 costs milliseconds to load.
    const { connect: connectH2 } = await import('node:http2');
    const session = connectH2(this.#settings.origin, { createConnection: () => socket });
    // Stream errors reach their requests; the session's own errors must not crash the process.
    session.on('error', () => undefined);
    const forget = (): void => {
      if (this.#session === session) this.#session = undefined;
    };
    // Recorded before node:http2 ends the streams: for an error code it destroys the session at
    // once, failing every stream; those above the last-stream-id are sent again (send() above).
    session.on('goaway', (_code: number, last: number) => {
      this.#lastProcessed.set(session, Math.min(last, this.#lastProcessed.get(session) ?? last));
      forget();
    });
    session.on('close', () => {
      forget();
      this.#sessions.delete(session);
    });
    this.#sessions.add(session);
    session.unref();
    this.#heard.set(session, performance.now());
    this.#session = session;
    return session;
  }

  /** Idle and unheard-from for longer than the health settings allow: check before use. */
  #quietTooLong(session: ClientHttp2Session): boolean {
    const idle = (this.#active.get(session) ?? 0) === 0;
    const heard = this.#heard.get(session) ?? 0;
    return idle && performance.now() - heard > this.#settings.health.idleMs;
  }

  /**
   * A PING with a deadline, as client-go's HTTP/2 health check (docs/wire-reference.md section 8).
   * No acknowledgement in time destroys the session; it is held referenced meanwhile, so a caller
   * waiting for the check is not left behind by an exiting process.
   */
  #alive(session: ClientHttp2Session): Promise<boolean> {
    const running = this.#checks.get(session);
    if (running) return running;
    let timer: NodeJS.Timeout | undefined;
    const check = new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, this.#settings.health.pingTimeoutMs, false);
      try {
        session.ref();
        const sent = session.ping((error) => {
          resolve(error === null);
        });
        if (!sent) resolve(false);
      } catch {
        resolve(false);
      }
    }).then((ok) => {
      clearTimeout(timer);
      this.#checks.delete(session);
      if (ok) {
        this.#heard.set(session, performance.now());
      } else {
        if (this.#session === session) this.#session = undefined;
        session.destroy();
      }
      if (!session.destroyed && (this.#active.get(session) ?? 0) === 0) session.unref();
      return ok;
    });
    this.#checks.set(session, check);
    return check;
  }

  /** A new connection to the server (through the proxy, if any), resuming the Connection's TLS session. */
  #handshake(protocols: string[]): Promise<TLSSocket> {
    return handshake({
      origin: this.#settings.origin,
      tls: this.#settings.tls,
      connectTimeout: this.#settings.connectTimeout,
      protocols,
      ticket: this.#ticket,
      onTicket: (ticket) => {
        this.#ticket = ticket;
      },
      signal: this.#closing.signal,
      through: this.#settings.through,
    });
  }
}
