// The bounded HTTP/1.1 pool of one Connection, on undici: at most `maxSockets` keep-alive sockets,
// the first of them the negotiating handshake's, each later one a handshake of the transport's own
// (resuming the Connection's TLS session, through the proxy if there is one).
import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';
import { type Answer, type Exchange, headerValues } from './h2.ts';
import type { Undici } from '../util/runtime.ts';
import { isReadTimeout, MAX_ANSWER_BYTES } from './wire-errors.ts';

type OriginPool = InstanceType<Undici['Pool']>;

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
  /** A new socket to the server, offering HTTP/1.1 only. */
  handshake(): Promise<TLSSocket>;
}

export class Http1Pool {
  readonly #undici: Undici;
  readonly #source: SocketSource;
  #pool: OriginPool;
  /** Pools renew() retired, still finishing what they carry: destroy() ends them too. */
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
    this.#pool = this.#createPool();
  }

  async send(exchange: Exchange): Promise<Answer> {
    const pool = this.#pool;
    try {
      const response = await pool.request({
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
      return {
        code: response.statusCode,
        text: await response.body.text(),
        retryAfter: headerValues(response.headers['retry-after'])[0],
        warnings: headerValues(response.headers.warning),
        etag: headerValues(response.headers.etag)[0],
      };
    } catch (error) {
      // Silence may mean the connection died without a word, and its idle neighbours with it:
      // each would fail one more operation. undici drops the silent socket itself.
      if (pool === this.#pool && isReadTimeout(error)) this.renew();
      throw error;
    }
  }

  /** New sockets from now on; the old ones finish what they carry and close. */
  renew(): void {
    const pool = this.#pool;
    this.#pool = this.#createPool();
    this.#retiring.add(pool);
    pool
      .close()
      .catch(() => pool.destroy())
      .finally(() => this.#retiring.delete(pool));
  }

  /** Ends every request in flight, retired pools' included, with `error`. */
  async destroy(error: Error): Promise<void> {
    const pools = [this.#pool, ...this.#retiring];
    this.#retiring.clear();
    for (const waiting of this.#waiting.splice(0)) waiting.stop(error);
    await Promise.all(pools.map((pool) => pool.destroy(error).catch(() => undefined)));
  }

  #createPool(): OriginPool {
    const source = this.#source;
    return new this.#undici.Pool(source.origin, {
      connect: (_target, callback) => {
        const spare = source.takeSpare();
        if (spare && !spare.destroyed) {
          this.#open += 1;
          spare.once('close', this.#release);
          // Asynchronously, as a real connect: undici ignores a connector that answers at once.
          process.nextTick(callback, null, spare);
        } else if (this.#open < source.maxSockets) {
          this.#open += 1;
          this.#dial(callback);
        } else {
          // A retired pool still holds sockets while it drains: this one waits for one to close.
          this.#waiting.push({
            dial: () => {
              this.#dial(callback);
            },
            stop: (error) => {
              callback(error, null);
            },
          });
        }
      },
      connections: source.maxSockets,
      keepAliveTimeout: IDLE_SOCKET_MS,
      maxResponseSize: MAX_ANSWER_BYTES,
      allowH2: false,
    });
  }

  /** A new socket on a place already counted in #open, given back when it closes or could not be had. */
  #dial(callback: buildConnector.Callback): void {
    this.#source.handshake().then(
      (socket) => {
        socket.once('close', this.#release);
        callback(null, socket);
      },
      (error: unknown) => {
        this.#release();
        callback(error instanceof Error ? error : new Error(String(error)), null);
      },
    );
  }
}
