// One Connection: the kubeconfig, one bounded keep-alive pool with real connect/read timeouts, the
// single request function every call goes through (429 retries included), and discovery.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { debuglog } from 'node:util';
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { DiscoveryCache, type Document, parseDiscovery } from './discovery.ts';
import {
  makeRedactor,
  type Redactor,
  redactStatus,
  RequestError,
  stoppedBy,
  ValidationError,
} from './errors.ts';
import { type Answer, Transport, type Undici } from './transport.ts';
import type { Connection, RequestTimeout } from './types.ts';
import { isRecord } from './validate.ts';

const debug = debuglog('openshift-templates');

export const DEFAULT_TIMEOUT = { connect: 10_000, read: 60_000 } as const;
const USER_AGENT = 'openshift-template-client';
/** Sockets per Connection unless connect() says otherwise: sequential work uses one. */
export const DEFAULT_MAX_SOCKETS = 32;

type ClientNode = typeof import('@kubernetes/client-node');

/** The oldest Node.js that client-node 2.x and its undici 8 load on. */
const MINIMUM_NODE = [22, 19] as const;

let clientNode: Promise<{ k8s: ClientNode; undici: Undici }> | undefined;

/** Refuses an older Node.js by name before loading anything that would crash the process on it. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return (
    `Node.js ${version} is running, but openshift-template-client needs Node.js >= ${needMajor}.${needMinor} ` +
    '(its HTTP client, undici 8, and @kubernetes/client-node 2 do not load on older versions)'
  );
}

/**
 * Loads client-node and undici on first use, so importing this package costs nothing and an
 * unsupported Node.js gets a clear error instead of a crash at load. Both are declared
 * dependencies imported by name, so npm, pnpm, Yarn PnP and bundlers all resolve them.
 */
function loadClientNode(): Promise<{ k8s: ClientNode; undici: Undici }> {
  const refused = unsupportedNode(globalThis.process.versions.node);
  if (refused !== undefined) return Promise.reject(new ValidationError('connect', [refused]));
  clientNode ??= (async () => {
    const [k8s, undici] = await Promise.all([import('@kubernetes/client-node'), import('undici')]);
    return { k8s, undici };
  })();
  return clientNode;
}

export interface Timeouts {
  connect: number;
  read: number;
}

export function toTimeouts(timeout: RequestTimeout | undefined, fallback: Timeouts): Timeouts {
  if (timeout === undefined) return fallback;
  return typeof timeout === 'number'
    ? { connect: timeout, read: timeout }
    : { connect: timeout.connect, read: timeout.read };
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  /** Names the step and target in errors and debug lines. */
  step: string;
  target: string;
  timeout?: Timeouts | undefined;
  signal?: AbortSignal | undefined;
  /** Values that must not appear in an error built from this request's response. */
  redact?: Redactor | undefined;
}

export interface ApiResponse {
  code: number;
  body: unknown;
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

const READ_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'OTC_READ_TIMEOUT']);

/** Turns a transport failure into a RequestError that says what happened in words. */
function transportError(
  error: unknown,
  request: ApiRequest,
  timeout: Timeouts,
  signal?: AbortSignal,
): RequestError {
  const codes = errorChain(error)
    .map((e) => (isRecord(e) && typeof e.code === 'string' ? e.code : undefined))
    .filter((c): c is string => c !== undefined);
  const mutation = unknownOutcome(request);
  if (codes.includes('UND_ERR_CONNECT_TIMEOUT') || codes.includes('OTC_CONNECT_TIMEOUT')) {
    return new RequestError(request.step, request.target, `connect timed out after ${timeout.connect} ms`, {
      cause: error,
      kind: 'timeout',
    });
  }
  if (codes.some((c) => READ_TIMEOUT_CODES.has(c))) {
    return new RequestError(
      request.step,
      request.target,
      `read timed out after ${timeout.read} ms${mutation}`,
      {
        cause: error,
        kind: 'timeout',
      },
    );
  }
  if (signal?.aborted) return stoppedBy(request.step, request.target, signal, mutation, error);
  if (chainHas(error, (e) => e.name === 'TimeoutError')) {
    return new RequestError(request.step, request.target, `timed out${mutation}`, {
      cause: error,
      kind: 'timeout',
    });
  }
  if (chainHas(error, (e) => e.name === 'AbortError')) {
    return new RequestError(request.step, request.target, `aborted${mutation}`, {
      cause: error,
      kind: 'abort',
    });
  }
  const code = codes.find((c) => c !== 'UND_ERR_SOCKET') ?? codes[0];
  const text = error instanceof Error ? error.message : String(error);
  const detailed = errorChain(error)
    .slice(1)
    .map((e) => (e instanceof Error ? e.message : ''))
    .filter(Boolean)
    .join(': ');
  return new RequestError(
    request.step,
    request.target,
    `request failed${code ? ` (${code})` : ''}: ${detailed || text}${mutation}`,
    { cause: error },
  );
}

/** Processing renders without storing anything; only applies and deletes leave an unknown outcome. */
function unknownOutcome(request: ApiRequest): string {
  const mutates = request.method !== 'GET' && request.step !== 'Process';
  return mutates ? '; the mutation may or may not have been applied' : '';
}

/** The operation's own connect + read deadline ended the request (see `#signalFor`). */
function deadlineError(error: unknown, request: ApiRequest, timeouts: Timeouts): RequestError {
  const limit = timeouts.connect + timeouts.read;
  return new RequestError(
    request.step,
    request.target,
    `timed out after ${limit} ms (this operation's requestTimeout, connect + read)${unknownOutcome(request)}`,
    { cause: error, kind: 'timeout' },
  );
}

/** The signal had fired before anything was sent: nothing reached the server. */
export function abortedBeforeSending(step: string, target: string, signal: AbortSignal): RequestError {
  return stoppedBy(step, target, signal, ' before the request was sent');
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function statusError(request: ApiRequest, code: number, body: unknown, hint?: string): RequestError {
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
      { code, ...(reason ? { reason } : {}), status },
    );
  }
  const text = typeof body === 'string' ? redact(body.trim()).slice(0, 200) : 'no Status in the response';
  return new RequestError(request.step, request.target, `${code}: ${text}${advice}`, { code });
}

/** The request's path with its query, as the API server reads it. */
function pathWithQuery(request: ApiRequest): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query ?? {}))
    if (value !== undefined) query.set(key, value);
  const text = query.toString();
  return text === '' ? request.path : `${request.path}?${text}`;
}

/** 429 with Retry-After is retried: the server did nothing. At most this often and this long. */
const RETRY_ON_429 = { attempts: 5, totalMs: 30_000 } as const;

/** What became of a 429, for the error that reports it. */
function overloadHint(retries: number, waited: number, delay: number | undefined): string {
  if (retries > 0) {
    return `retried ${retries} time${retries === 1 ? '' : 's'} over ${Math.round(waited)} ms as the server's Retry-After asked; the server is still overloaded`;
  }
  if (delay === undefined) return 'the server sent no Retry-After, so it was not retried';
  return `the server asked to wait ${Math.round(delay)} ms, more than the ${RETRY_ON_429.totalMs} ms this library waits; not retried`;
}

/** Seconds or an HTTP date, as Retry-After allows; undefined when absent or unreadable. */
function retryDelay(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The single request function's home: every call to the API server goes through `request()`. */
export class ClusterConnection implements Connection {
  readonly server: string;
  readonly timeouts: Timeouts;
  readonly discovery: DiscoveryCache;
  readonly #kc: KubeConfig;
  readonly #k8s: ClientNode;
  /** One pool for the Connection's life, whatever the operations' options; absent through a proxy. */
  readonly #transport: Transport | undefined;
  readonly #http: InstanceType<ClientNode['IsomorphicFetchHttpLibrary']>;
  readonly #redactToken: Redactor;
  /** What a 401 means for this kubeconfig, in words a user can act on. */
  readonly #credentialsHint: string;
  /** `https://host:port` and any path prefix of the server URL (a proxy may serve under one). */
  readonly #origin: string;
  readonly #basePath: string;
  #staticAuth: Promise<Record<string, string>> | undefined;
  #closed = false;

  constructor(
    kc: KubeConfig,
    k8s: ClientNode,
    undici: Undici,
    tls: Record<string, unknown> | undefined,
    settings: { timeouts: Timeouts; maxSockets: number; http2: boolean },
    secrets: string[],
  ) {
    this.#kc = kc;
    this.#k8s = k8s;
    this.timeouts = settings.timeouts;
    this.server = kc.getCurrentCluster()?.server ?? '';
    const url = URL.canParse(this.server) ? new URL(this.server) : undefined;
    this.#origin = url?.origin ?? this.server;
    this.#basePath = url ? url.pathname.replace(/\/+$/, '') : '';
    this.#http = new k8s.IsomorphicFetchHttpLibrary();
    this.#redactToken = makeRedactor(secrets);
    this.#transport =
      tls === undefined
        ? undefined
        : new Transport(undici, {
            origin: this.#origin,
            tls,
            connectTimeout: settings.timeouts.connect,
            maxSockets: settings.maxSockets,
            http2: settings.http2,
          });
    this.discovery = new DiscoveryCache((apiVersion) => this.#fetchDiscovery(apiVersion));
    const user = kc.getCurrentUser()?.name ?? '(none)';
    this.#credentialsHint =
      `the server refused the credentials of user "${user}" (context "${kc.getCurrentContext()}"): ` +
      'log in again or refresh the token';
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The request as client-node builds it: URL, headers, body, then its authentication headers. */
  async #context(request: ApiRequest): Promise<RequestContext> {
    const ctx = new this.#k8s.RequestContext(
      this.#origin + this.#basePath + pathWithQuery(request),
      request.method,
    );
    ctx.setHeaderParam('Accept', 'application/json');
    ctx.setHeaderParam('User-Agent', USER_AGENT);
    if (request.body !== undefined) {
      ctx.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(request.body));
    }
    await this.#kc.applySecurityAuthentication(ctx);
    return ctx;
  }

  /**
   * The authentication headers client-node puts on a request. Exec plugins, auth providers and the
   * in-cluster token file can change them, so those users get them anew for every request; a
   * static token, basic auth or a client certificate gets them once.
   */
  #authHeaders(): Promise<Record<string, string>> {
    if (this.#staticAuth) return this.#staticAuth;
    const ctx = new this.#k8s.RequestContext(this.#origin, 'GET');
    const headers = this.#kc.applySecurityAuthentication(ctx).then(() => ctx.getHeaders());
    const user = this.#kc.getCurrentUser();
    if (!user?.exec && !user?.authProvider) {
      this.#staticAuth = headers;
      // A failure is not cached: the next request tries again.
      headers.catch(() => (this.#staticAuth = undefined));
    }
    return headers;
  }

  /**
   * Sends on the Connection's transport with plain `request()` calls: fetch's WHATWG machinery cost
   * about 0.45 ms a request here, and per-request read limits are plain options.
   */
  async #send(
    transport: Transport,
    request: ApiRequest,
    timeouts: Timeouts,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      ...(await this.#authHeaders()),
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
    return transport.send({
      method: request.method,
      path: this.#basePath + pathWithQuery(request),
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      readTimeout: timeouts.read,
      signal,
    });
  }

  /** Through a proxy: client-node's own fetch and dispatcher, bounded by a deadline signal. */
  async #sendThroughClientNode(
    ctx: RequestContext,
    timeouts: Timeouts,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const deadline = AbortSignal.timeout(timeouts.connect + timeouts.read);
    ctx.setSignal(signal ? AbortSignal.any([signal, deadline]) : deadline);
    const response = await this.#http.send(ctx).toPromise();
    return {
      code: response.httpStatusCode,
      text: await response.body.text(),
      retryAfter: response.headers['retry-after'],
    };
  }

  /**
   * New sockets are opened with the Connection's connect limit; an operation that asks for a
   * shorter one gets a deadline of connect + read on each request instead of a pool of its own.
   */
  #signalFor(request: ApiRequest, timeouts: Timeouts): AbortSignal | undefined {
    if (timeouts.connect >= this.timeouts.connect) return request.signal;
    const deadline = AbortSignal.timeout(timeouts.connect + timeouts.read);
    return request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  }

  async #attempt(request: ApiRequest, timeouts: Timeouts, signal: AbortSignal | undefined): Promise<Answer> {
    const answer = this.#transport
      ? await this.#send(this.#transport, request, timeouts, signal)
      : await this.#sendThroughClientNode(await this.#context(request), timeouts, signal);
    // undici frees the socket for the pool a turn after the body ends; without this wait the
    // next sequential request finds it busy and opens a second connection (one more handshake).
    // HTTP/2 streams share their session and need no such wait.
    if (this.#transport?.protocol !== 'h2') await nextTurn();
    return answer;
  }

  /** Sends one request; answers 2xx with the parsed body, throws RequestError for everything else. */
  async request(request: ApiRequest): Promise<ApiResponse> {
    const timeouts = request.timeout ?? this.timeouts;
    if (this.#closed) throw new RequestError(request.step, request.target, 'the connection is closed');
    if (request.signal?.aborted) throw abortedBeforeSending(request.step, request.target, request.signal);
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let answer: Answer;
    let delay: number | undefined;
    let retries = 0;
    let waited = 0;
    for (;;) {
      const signal = this.#signalFor(request, timeouts);
      try {
        answer = await this.#attempt(request, timeouts, signal);
      } catch (error) {
        const failure =
          signal?.aborted && !request.signal?.aborted
            ? deadlineError(error, request, timeouts)
            : transportError(this.#scrub(error), request, timeouts, request.signal);
        debug('%s %s failed %dms %s', request.method, request.path, elapsed(), failure.message);
        throw failure;
      }
      delay = answer.code === 429 ? retryDelay(answer.retryAfter) : undefined;
      if (delay === undefined || retries >= RETRY_ON_429.attempts || waited + delay > RETRY_ON_429.totalMs)
        break;
      retries += 1;
      waited += delay;
      debug(
        '%s %s 429 %dms %s %s: the server asked to retry after %dms (retry %d)',
        request.method,
        request.path,
        elapsed(),
        request.step,
        request.target,
        delay,
        retries,
      );
      await this.#pause(delay, request);
    }
    const body = parseBody(answer.text);
    if (answer.code < 200 || answer.code >= 300) {
      const hints = [
        ...(answer.code === 401 ? [this.#credentialsHint] : []),
        ...(answer.code === 429 ? [overloadHint(retries, waited, delay)] : []),
      ];
      const failure = statusError(
        request,
        answer.code,
        body,
        hints.length > 0 ? hints.join('; ') : undefined,
      );
      debug('%s %s %d %dms %s', request.method, request.path, answer.code, elapsed(), failure.message);
      throw failure;
    }
    debug(
      '%s %s %d %dms %s %s',
      request.method,
      request.path,
      answer.code,
      elapsed(),
      request.step,
      request.target,
    );
    if (!isRecord(body)) {
      throw new RequestError(
        request.step,
        request.target,
        `${answer.code}: the response is not a JSON object`,
        {
          code: answer.code,
        },
      );
    }
    return { code: answer.code, body };
  }

  /** Waits before a retry; the caller's signal ends the wait (and the request) at once. */
  async #pause(ms: number, request: ApiRequest): Promise<void> {
    try {
      await sleep(ms, undefined, request.signal ? { signal: request.signal } : {});
    } catch (error) {
      const signal = request.signal;
      if (!signal?.aborted) throw error;
      throw stoppedBy(
        request.step,
        request.target,
        signal,
        ' while waiting to retry after 429 TooManyRequests',
        error,
      );
    }
  }

  /** Errors from the auth layer can quote kubeconfig values; keep the token out of them. */
  #scrub(error: unknown): unknown {
    if (error instanceof Error && this.#redactToken(error.message) !== error.message) {
      return new Error(this.#redactToken(error.message));
    }
    return error;
  }

  /** One group-version's resources, without any caller's signal (the answer is shared). */
  async #fetchDiscovery(apiVersion: string): Promise<Document> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    try {
      const { body } = await this.request({ method: 'GET', path, step: 'Discover', target: apiVersion });
      return parseDiscovery(body);
    } catch (error) {
      if (error instanceof RequestError && error.code === 404) return undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport?.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

export { loadClientNode };
