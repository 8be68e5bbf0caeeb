// The bounded HTTP/1.1 pool of one Connection, on undici: at most `maxSockets` keep-alive sockets,
// the first of them the negotiating handshake's, each later one resuming the Connection's TLS
// session, or a tunnel of its own through the proxy.
import type { TLSSocket } from 'node:tls';
import type { Answer, Exchange } from './h2.ts';
import type { Undici } from '../util/runtime.ts';
import { headerValues } from './headers.ts';
import { isReadTimeout, MAX_ANSWER_BYTES } from './wire-errors.ts';

type Agent = InstanceType<Undici['Agent']>;
type OriginPool = InstanceType<Undici['Pool']> | InstanceType<Undici['Client']>;
type Connector = ReturnType<Undici['buildConnector']>;
type ConnectTarget = Parameters<Connector>[0];
type ConnectCallback = Parameters<Connector>[1];

/**
 * How long an idle socket stays in the pool when the server does not say (kube-apiserver never
 * does): 2 s short of its 90 s idle limit, as client-go keeps them, where undici's own 4 s would
 * make each pre-flight wave pay a handshake per socket (docs/wire-reference.md section 8).
 */
export const IDLE_SOCKET_MS = 88_000;

/** Where the pool's sockets come from: the transport, which holds the TLS settings and tickets. */
export interface SocketSource {
  /** `https://host:port` */
  origin: string;
  maxSockets: number;
  /** The negotiating handshake's socket, handed over once: the pool's first socket. */
  takeSpare(): TLSSocket | undefined;
  /** A new socket through the proxy; undefined when connections are direct. */
  tunnel(): Promise<TLSSocket> | undefined;
  /** undici connector options for a direct socket, with the newest ticket to resume. */
  direct(): Record<string, unknown>;
  keepTicket(ticket: Buffer): void;
}

export class Http1Pool {
  readonly #undici: Undici;
  readonly #source: SocketSource;
  #agent: Agent;
  /** The origin pools of the current Agent (one: the Connection has one origin). */
  #members = new Set<OriginPool>();
  /**
   * The origin pools of retired Agents, still finishing what they carry: an undici Agent forgets
   * its pools once close() is called, so a later destroy() would not reach them.
   */
  readonly #retiring = new Set<OriginPool>();
  /** Sockets open now, retired pools' included: connects past maxSockets wait for one to close. */
  #open = 0;
  readonly #waiting: { dial(): void; stop(error: Error): void }[] = [];
  /** A socket closed: its place goes to a waiting connect, if any. */
  readonly #release = (): void => {
    const next = this.#waiting.shift();
    if (next) next.dial();
    else this.#open -= 1;
  };

  constructor(undici: Undici, source: SocketSource) {
    this.#undici = undici;
    this.#source = source;
    this.#agent = this.#createAgent();
  }

  async send(exchange: Exchange): Promise<Answer> {
    const agent = this.#agent;
    try {
      return await this.#sendOn(agent, exchange);
    } catch (error) {
      // Silence may mean the connection died without a word, and its idle neighbours with it:
      // each would fail one more operation. undici drops the silent socket itself.
      if (agent === this.#agent && isReadTimeout(error)) this.renew();
      throw error;
    }
  }

  async #sendOn(agent: Agent, exchange: Exchange): Promise<Answer> {
    const response = await agent.request({
      origin: this.#source.origin,
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
      warnings: headerValues(response.headers.warning),
      etag: Array.isArray(response.headers.etag) ? response.headers.etag[0] : response.headers.etag,
    };
  }

  /** New sockets from now on; the old ones finish what they carry and close. */
  renew(): void {
    const agent = this.#agent;
    const members = this.#members;
    this.#members = new Set();
    this.#agent = this.#createAgent();
    for (const member of members) this.#retiring.add(member);
    agent
      .close()
      .catch(() => agent.destroy())
      .finally(() => {
        for (const member of members) this.#retiring.delete(member);
      });
  }

  /** Ends every request in flight, retired sockets' included, with `error`. */
  async destroy(error: Error): Promise<void> {
    const retired = [...this.#retiring];
    this.#retiring.clear();
    for (const waiting of this.#waiting.splice(0)) waiting.stop(error);
    await Promise.all([
      this.#agent.destroy(error).catch(() => undefined),
      ...retired.map((member) => member.destroy(error).catch(() => undefined)),
    ]);
  }

  /** undici keeps TLS sessions only through WeakRefs: each new socket gets the source's ticket. */
  #createAgent(): Agent {
    const undici = this.#undici;
    const source = this.#source;
    return new undici.Agent({
      connect: (target, callback) => {
        const spare = source.takeSpare();
        if (spare && !spare.destroyed) {
          this.#open += 1;
          spare.once('close', this.#release);
          // Asynchronously, as a real connect: undici ignores a connector that answers at once.
          process.nextTick(callback, null, spare);
          return;
        }
        if (this.#open < source.maxSockets) {
          this.#open += 1;
          return this.#dial(target, callback);
        }
        // A retired pool still holds sockets while it drains: this one waits for one to close.
        this.#waiting.push({
          dial: () => this.#dial(target, callback),
          stop: (error) => {
            callback(error, null);
          },
        });
        return undefined;
      },
      connections: source.maxSockets,
      keepAliveTimeout: IDLE_SOCKET_MS,
      maxResponseSize: MAX_ANSWER_BYTES,
      allowH2: false,
      // undici's own choice (lib/dispatcher/agent.js, defaultFactory), remembered for destroy().
      factory: (origin, options) => {
        const member =
          (options as { connections?: number | null }).connections === 1
            ? new undici.Client(origin, options)
            : new undici.Pool(origin, options);
        this.#members.add(member);
        return member;
      },
    });
  }

  /**
   * A new socket on a place already counted in #open: our tunnel through the proxy, or undici's
   * connector. The place is given back once, when the socket closes or could not be had.
   */
  #dial(target: ConnectTarget, callback: ConnectCallback): TLSSocket | undefined {
    const source = this.#source;
    let held = true;
    const release = (): void => {
      if (held) this.#release();
      held = false;
    };
    const tunnel = source.tunnel();
    if (tunnel) {
      tunnel.then(
        (socket) => {
          socket.once('close', release);
          callback(null, socket);
        },
        (error: unknown) => {
          release();
          callback(error instanceof Error ? error : new Error(String(error)), null);
        },
      );
      return undefined;
    }
    // Typed as returning nothing, undici's connector returns its socket, through which undici
    // cancels a pending connect: it is passed on.
    const connect = this.#undici.buildConnector(source.direct()) as (
      ...args: Parameters<ReturnType<Undici['buildConnector']>>
    ) => TLSSocket | undefined;
    const socket = connect(target, (...result) => {
      if (result[1])
        (result[1] as TLSSocket).on('session', (ticket: Buffer) => {
          source.keepTicket(ticket);
        });
      else release();
      callback(...result);
    });
    socket?.once('close', release);
    return socket;
  }
}
