// One Connection: the kubeconfig, one keep-alive pool with real connect/read timeouts, the single
// request function every call goes through, and the per-connection discovery cache.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { debuglog } from 'node:util';
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { makeRedactor, type Redactor, redactStatus, RequestError, ValidationError } from './errors.ts';
import type { Connection, RequestTimeout } from './types.ts';
import { isRecord } from './validate.ts';

const debug = debuglog('openshift-templates');

export const DEFAULT_TIMEOUT = { connect: 10_000, read: 60_000 } as const;
const USER_AGENT = 'openshift-template-client';
/** Sockets per Connection: sequential work uses one; concurrent operations share a few. */
const MAX_SOCKETS = 8;

type ClientNode = typeof import('@kubernetes/client-node');
type AgentClass = typeof import('undici').Agent;
type Dispatcher = InstanceType<AgentClass>;

/** The oldest Node.js that client-node 2.x and its undici 8 load on. */
const MINIMUM_NODE = [22, 19] as const;

let clientNode: Promise<{ k8s: ClientNode; Agent: AgentClass }> | undefined;

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
function loadClientNode(): Promise<{ k8s: ClientNode; Agent: AgentClass }> {
  const refused = unsupportedNode(globalThis.process.versions.node);
  if (refused !== undefined) return Promise.reject(new ValidationError('connect', [refused]));
  clientNode ??= (async () => {
    const [k8s, undici] = await Promise.all([import('@kubernetes/client-node'), import('undici')]);
    return { k8s, Agent: undici.Agent };
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

/** A discovered resource: the plural name for URLs and whether it lives in a namespace. */
export interface ResourceInfo {
  name: string;
  namespaced: boolean;
  kind: string;
}

interface DiscoveredResource extends ResourceInfo {
  singularName?: string;
  verbs?: string[];
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

/** A fired signal is a timeout when its reason is one (`AbortSignal.timeout()`), else a cancellation. */
function signalKind(signal: AbortSignal): 'timeout' | 'abort' {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'abort';
}

const SIGNAL_TEXT = { timeout: 'timed out', abort: 'aborted' } as const;

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
  // Processing renders without storing anything; only applies and deletes leave an unknown outcome.
  const mutates = request.method !== 'GET' && request.step !== 'Process';
  const mutation = mutates ? '; the mutation may or may not have been applied' : '';
  if (codes.includes('UND_ERR_CONNECT_TIMEOUT')) {
    return new RequestError(request.step, request.target, `connect timed out after ${timeout.connect} ms`, {
      cause: error,
      kind: 'timeout',
    });
  }
  if (codes.includes('UND_ERR_HEADERS_TIMEOUT') || codes.includes('UND_ERR_BODY_TIMEOUT')) {
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
  if (signal?.aborted) {
    const kind = signalKind(signal);
    return new RequestError(request.step, request.target, `${SIGNAL_TEXT[kind]}${mutation}`, {
      cause: error,
      kind,
    });
  }
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

/** The signal had fired before anything was sent: nothing reached the server. */
export function abortedBeforeSending(step: string, target: string, signal: AbortSignal): RequestError {
  const kind = signalKind(signal);
  return new RequestError(step, target, `${SIGNAL_TEXT[kind]} before the request was sent`, {
    cause: signal.reason,
    kind,
  });
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

/** The single request function's home: every call to the API server goes through `request()`. */
export class ClusterConnection implements Connection {
  readonly server: string;
  readonly timeouts: Timeouts;
  readonly #kc: KubeConfig;
  readonly #k8s: ClientNode;
  readonly #Agent: AgentClass;
  readonly #tls: Record<string, unknown> | undefined;
  readonly #http: InstanceType<ClientNode['IsomorphicFetchHttpLibrary']>;
  readonly #agents = new Map<number, Dispatcher>();
  readonly #discovery = new Map<string, Promise<DiscoveredResource[] | undefined>>();
  readonly #redactToken: Redactor;
  /** What a 401 means for this kubeconfig, in words a user can act on. */
  readonly #credentialsHint: string;
  #closed = false;

  constructor(
    kc: KubeConfig,
    k8s: ClientNode,
    Agent: AgentClass,
    tls: Record<string, unknown> | undefined,
    timeouts: Timeouts,
    secrets: string[],
  ) {
    this.#kc = kc;
    this.#k8s = k8s;
    this.#Agent = Agent;
    this.#tls = tls;
    this.timeouts = timeouts;
    this.server = kc.getCurrentCluster()?.server ?? '';
    this.#http = new k8s.IsomorphicFetchHttpLibrary();
    this.#redactToken = makeRedactor(secrets);
    const user = kc.getCurrentUser()?.name ?? '(none)';
    this.#credentialsHint =
      `the server refused the credentials of user "${user}" (context "${kc.getCurrentContext()}"): ` +
      'log in again or refresh the token';
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The shared pool for this connect limit; undefined through a proxy (client-node's own then). */
  #agent(timeouts: Timeouts): Dispatcher | undefined {
    if (this.#tls === undefined) return undefined;
    let agent = this.#agents.get(timeouts.connect);
    if (!agent) {
      agent = new this.#Agent({
        connect: { ...this.#tls, timeout: timeouts.connect, keepAlive: true, keepAliveInitialDelay: 30_000 },
        connections: MAX_SOCKETS,
      });
      this.#agents.set(timeouts.connect, agent);
    }
    return agent;
  }

  /** The request as client-node builds it: URL, headers, body, then its authentication headers. */
  async #context(request: ApiRequest): Promise<RequestContext> {
    const url = new URL(this.server.replace(/\/+$/, '') + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const ctx = new this.#k8s.RequestContext(url.toString(), request.method);
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
   * Sends through the shared pool with `Dispatcher.request()`: fetch's WHATWG machinery cost about
   * 0.45 ms a request here, and per-request read limits and `reset` are plain options of it.
   */
  async #send(
    ctx: RequestContext,
    agent: Dispatcher,
    request: ApiRequest,
    timeouts: Timeouts,
  ): Promise<{ code: number; text: string }> {
    const url = new URL(ctx.getUrl());
    const body = ctx.getBody();
    const response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: request.method,
      headers: ctx.getHeaders(),
      body: typeof body === 'string' ? body : null,
      headersTimeout: timeouts.read,
      bodyTimeout: timeouts.read,
      // undici closes the socket after a DELETE with a body unless told the server expects one
      // (undici lib/dispatcher/client-h1.js, writeBuffer); the API server reads DeleteOptions there.
      ...(request.method === 'DELETE' ? { reset: false } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return { code: response.statusCode, text: await response.body.text() };
  }

  /** Through a proxy: client-node's own fetch and dispatcher, bounded by a deadline signal. */
  async #sendThroughClientNode(
    ctx: RequestContext,
    request: ApiRequest,
    timeouts: Timeouts,
  ): Promise<{ code: number; text: string }> {
    const deadline = AbortSignal.timeout(timeouts.connect + timeouts.read);
    ctx.setSignal(request.signal ? AbortSignal.any([request.signal, deadline]) : deadline);
    const response = await this.#http.send(ctx).toPromise();
    return { code: response.httpStatusCode, text: await response.body.text() };
  }

  /** Sends one request; answers 2xx with the parsed body, throws RequestError for everything else. */
  async request(request: ApiRequest): Promise<ApiResponse> {
    const timeouts = request.timeout ?? this.timeouts;
    if (this.#closed) throw new RequestError(request.step, request.target, 'the connection is closed');
    if (request.signal?.aborted) throw abortedBeforeSending(request.step, request.target, request.signal);
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let code: number;
    let text: string;
    try {
      const ctx = await this.#context(request);
      const agent = this.#agent(timeouts);
      ({ code, text } = agent
        ? await this.#send(ctx, agent, request, timeouts)
        : await this.#sendThroughClientNode(ctx, request, timeouts));
      // undici frees the socket for the pool a turn after the body ends; without this wait the
      // next sequential request finds it busy and opens a second connection (one more handshake).
      await nextTurn();
    } catch (error) {
      const failure = transportError(this.#scrub(error), request, timeouts, request.signal);
      debug('%s %s failed %dms %s', request.method, request.path, elapsed(), failure.message);
      throw failure;
    }
    const body = parseBody(text);
    if (code < 200 || code >= 300) {
      const failure = statusError(request, code, body, code === 401 ? this.#credentialsHint : undefined);
      debug('%s %s %d %dms %s', request.method, request.path, code, elapsed(), failure.message);
      throw failure;
    }
    debug('%s %s %d %dms %s %s', request.method, request.path, code, elapsed(), request.step, request.target);
    if (!isRecord(body)) {
      throw new RequestError(request.step, request.target, `${code}: the response is not a JSON object`, {
        code,
      });
    }
    return { code, body };
  }

  /** Errors from the auth layer can quote kubeconfig values; keep the token out of them. */
  #scrub(error: unknown): unknown {
    if (error instanceof Error && this.#redactToken(error.message) !== error.message) {
      return new Error(this.#redactToken(error.message));
    }
    return error;
  }

  /**
   * The resources of one group-version, fetched once per connection; concurrent first lookups
   * share the request. `undefined` when the server does not serve the group-version (404).
   */
  discover(
    apiVersion: string,
    signal: AbortSignal | undefined,
    timeout: Timeouts | undefined,
  ): Promise<DiscoveredResource[] | undefined> {
    let pending = this.#discovery.get(apiVersion);
    if (!pending) {
      pending = this.#fetchDiscovery(apiVersion, signal, timeout);
      this.#discovery.set(apiVersion, pending);
      // A failed lookup is forgotten so that a later operation can try again.
      pending.catch(() => this.#discovery.delete(apiVersion));
    }
    return pending;
  }

  async #fetchDiscovery(
    apiVersion: string,
    signal: AbortSignal | undefined,
    timeout: Timeouts | undefined,
  ): Promise<DiscoveredResource[] | undefined> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    try {
      const { body } = await this.request({
        method: 'GET',
        path,
        step: 'Discover',
        target: apiVersion,
        signal,
        timeout,
      });
      return parseDiscovery(body);
    } catch (error) {
      if (error instanceof RequestError && error.code === 404) return undefined;
      throw error;
    }
  }

  /** Seeds the discovery cache with a document fetched elsewhere (connect's check). */
  rememberDiscovery(apiVersion: string, resources: DiscoveredResource[]): void {
    this.#discovery.set(apiVersion, Promise.resolve(resources));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((agent) => agent.close().catch(() => agent.destroy())));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The resource for a kind in a discovery document. Subresources (`pods/status`) share their
 * parent's kind and are skipped; where two resources share a kind (template.openshift.io serves
 * kind Template as both `processedtemplates` and `templates`), the one whose singular name is the
 * kind wins, then the one that can be read.
 */
export function resourceForKind(
  resources: readonly DiscoveredResource[],
  kind: string,
): ResourceInfo | undefined {
  const candidates = resources.filter((r) => r.kind === kind && r.name !== '' && !r.name.includes('/'));
  const lower = kind.toLowerCase();
  const best =
    candidates.find((r) => r.singularName === lower) ??
    candidates.find((r) => r.verbs?.includes('get')) ??
    candidates[0];
  return best ? { name: best.name, namespaced: best.namespaced, kind: best.kind } : undefined;
}

export function parseDiscovery(body: unknown): DiscoveredResource[] {
  const resources = isRecord(body) && Array.isArray(body.resources) ? (body.resources as unknown[]) : [];
  return resources.filter(isRecord).map((r) => ({
    name: typeof r.name === 'string' ? r.name : '',
    namespaced: r.namespaced === true,
    kind: typeof r.kind === 'string' ? r.kind : '',
    ...(typeof r.singularName === 'string' ? { singularName: r.singularName } : {}),
    ...(Array.isArray(r.verbs) ? { verbs: r.verbs.filter((v): v is string => typeof v === 'string') } : {}),
  }));
}

export { loadClientNode };
