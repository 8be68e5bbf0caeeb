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

/**
 * How long an idle socket stays in the pool when the server does not say (kube-apiserver never
 * does). kube-apiserver closes HTTP/1.1 connections idle for 90 s (kubernetes/apiserver
 * pkg/server/secure_serving.go, `IdleTimeout`), and client-go keeps them as long
 * (http.DefaultTransport's `IdleConnTimeout`, through k8s.io/apimachinery pkg/util/net/http.go).
 * undici's own 4 s would close every socket of a pre-flight wave between two jobs a few seconds
 * apart, so that each wave paid a handshake per socket. 2 s short of the server's limit, the
 * margin undici keeps below a limit a server announces: the server's clock starts when it has
 * written an answer and ours when we have read it, so the margin is 2 s less the latency.
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
   * The origin pools of retired Agents, still finishing what they carry. An undici Agent forgets
   * its pools as soon as close() is called on it (undici lib/dispatcher/agent.js, kClose), so a
   * later destroy() would not reach them; they are remembered from the Agent's factory instead.
   */
  readonly #retiring = new Set<OriginPool>();

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
      // Silence may mean the connection died without a word (a load balancer failed over), and
      // then its idle neighbours, kept for IDLE_SOCKET_MS, died with it: without this, each would
      // fail one more operation after its own read limit. undici drops the silent socket itself.
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
    await Promise.all([
      this.#agent.destroy(error).catch(() => undefined),
      ...retired.map((member) => member.destroy(error).catch(() => undefined)),
    ]);
  }

  /**
   * undici remembers TLS sessions only through WeakRefs (undici lib/core/connect.js, SessionCache),
   * so a garbage collection forgets them; each new socket is given the source's ticket instead.
   */
  #createAgent(): Agent {
    const undici = this.#undici;
    const source = this.#source;
    return new undici.Agent({
      connect: (target, callback) => {
        const spare = source.takeSpare();
        if (spare && !spare.destroyed) {
          // Asynchronously, as a real connect: undici ignores a connector that answers at once.
          process.nextTick(callback, null, spare);
          return;
        }
        // undici's own connector knows no proxy: each pool socket is a tunnel of our own.
        const tunnel = source.tunnel();
        if (tunnel) {
          tunnel.then(
            (socket) => {
              callback(null, socket);
            },
            (error: unknown) => {
              callback(error instanceof Error ? error : new Error(String(error)), null);
            },
          );
          return;
        }
        // Typed as returning nothing, undici's connector returns its socket; undici cancels a
        // pending connect through it (undici lib/dispatcher/client.js, connect), so it is passed on.
        const connect = undici.buildConnector(source.direct()) as (
          ...args: Parameters<ReturnType<Undici['buildConnector']>>
        ) => TLSSocket | undefined;
        return connect(target, (...result) => {
          if (result[1])
            (result[1] as TLSSocket).on('session', (ticket: Buffer) => {
              source.keepTicket(ticket);
            });
          callback(...result);
        });
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
}
