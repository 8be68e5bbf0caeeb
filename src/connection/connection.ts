// One Connection: transport, credentials, discovery and schema caches, and the single request
// function every call goes through (timeouts, signals, 429 retries, debug lines, redaction).
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { debuglog } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { type Document, parseDiscovery } from './discovery.ts';
import { SharedAnswers } from './shared-answers.ts';
import { Credentials } from './credentials.ts';
import { OpenApiSchemas, refusedAsUntyped, rootPath } from './openapi.ts';
import { RequestError } from '../errors.ts';
import {
  abortedBeforeSending,
  closedBeforeSending,
  credentialsError,
  deadlineError,
  statusError,
  transportError,
  stoppedBy,
} from './failures.ts';
import { overloadHint, retryDelay, shouldRetry, throttledHint, type Throttling } from './retry.ts';
import type { ClientNode, Undici } from '../util/runtime.ts';
import { CredentialsError } from '../wire/wire-errors.ts';
import { traceAttempt, tracingRequests } from './tracing.ts';
import type { Traced } from '../wire/h2.ts';
import { type Answer, Transport } from '../wire/transport.ts';
import type { Connection, ServerWarning, WarningHandler } from '../types/index.ts';
import { isRecord } from '../util/json.ts';
import { type Proxy, proxySecrets } from '../wire/proxy.ts';
import {
  type ApiRequest,
  type ApiResponse,
  type Bound,
  boundOf,
  caList,
  parseBody,
  pathWithQuery,
  type Timeouts,
  unlessNotFound,
} from './requests.ts';
import { parseWarnings, type WarningRoute, WarningSink } from './warnings.ts';

const debug = debuglog('openshift-templates');
const sinceMs = (started: number): number => Math.round(performance.now() - started);
// A debug line shows no query or body: without the mark a dry run reads as the write it checks.
const dryRunMark = (request: ApiRequest): string =>
  request.query?.dryRun === 'All' ||
  [(request.body as { dryRun?: unknown } | undefined)?.dryRun].flat().includes('All')
    ? ' (dry run)'
    : '';
// `GET /api/v1 200 3ms Connect https://…`: the start of a request's debug line.
const said = (r: ApiRequest, code: number, started: number): string =>
  `${r.method} ${r.path} ${code} ${sinceMs(started)}ms ${r.step} ${r.target}`;
const USER_AGENT = 'openshift-template-client';

export class ClusterConnection implements Connection {
  readonly server: string;
  readonly timeouts: Timeouts;
  readonly discovery: SharedAnswers<Document>;
  readonly schemas: OpenApiSchemas;
  readonly #transport: Transport;
  readonly #credentials: Credentials;
  readonly #credentialsHint: string;
  /** Any path prefix of the server URL (a proxy may serve under one). */
  readonly #basePath: string;
  /** Fires once, at close(): ends 429 waits and requests sent through client-node. */
  readonly #closing = new AbortController();
  readonly #warnings: WarningSink;
  /** The proxy's label (no credentials), named in transport failures; undefined when direct. */
  readonly #proxy: string | undefined;

  constructor(
    kc: KubeConfig,
    k8s: ClientNode,
    undici: Undici,
    tls: Record<string, unknown>,
    settings: {
      proxy: Proxy | undefined;
      timeouts: Timeouts;
      maxSockets: number;
      http2: boolean;
      onWarning: WarningHandler | undefined;
    },
  ) {
    this.#warnings = new WarningSink(settings.onWarning);
    this.#proxy = settings.proxy?.label;
    this.timeouts = settings.timeouts;
    this.server = kc.getCurrentCluster()?.server ?? '';
    const url = URL.canParse(this.server) ? new URL(this.server) : undefined;
    this.#basePath = url ? url.pathname.replace(/\/+$/, '') : '';
    if (settings.proxy)
      debug('Connect %s through proxy %s (%s)', this.server, settings.proxy.label, settings.proxy.source);
    this.#credentials = new Credentials(kc, k8s, tls);
    this.#credentials.remember(proxySecrets(settings.proxy));
    const transport = new Transport(undici, {
      origin: url?.origin ?? this.server,
      tls,
      connectTimeout: settings.timeouts.connect,
      maxSockets: settings.maxSockets,
      http2: settings.http2,
      // client-go's 30 s / 15 s PING check, sooner with a shorter read limit (docs/wire-reference.md).
      health: {
        idleMs: Math.min(30_000, settings.timeouts.read),
        pingTimeoutMs: Math.min(15_000, settings.timeouts.read),
      },
      through: settings.proxy && {
        proxy: settings.proxy,
        // As in client-go: the cluster's CA and insecure-skip-tls-verify cover an https:// proxy too.
        tls: { ca: caList(tls.ca), rejectUnauthorized: tls.rejectUnauthorized !== false },
        userAgent: USER_AGENT,
      },
    });
    // As client-go: a new exec certificate retires the connections made with the old one.
    this.#credentials.onCertificate = (c) => {
      transport.useClientCertificate(c);
    };
    this.#transport = transport;
    this.discovery = new SharedAnswers('Discover', (apiVersion, route, throttling) =>
      this.#fetchDiscovery(apiVersion, route, throttling),
    );
    this.schemas = new OpenApiSchemas(
      this.server,
      (request) => this.request(request),
      () => transport.protocol === 'h2',
    );
    const user = kc.getCurrentUser()?.name ?? '(none)';
    this.#credentialsHint =
      `the server refused the credentials of user "${user}" (context "${kc.getCurrentContext()}"): ` +
      'log in again or refresh the token';
  }

  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  get multiplexed(): boolean {
    return this.#transport.protocol === 'h2';
  }

  /** One attempt, its failure told in words; one async step on the common path (static credentials, HTTP/2). */
  async #attempt(
    request: ApiRequest,
    timeouts: Timeouts,
    started: number,
    traced: Traced | undefined,
    bound: Bound,
  ): Promise<Answer> {
    const { signal } = bound;
    try {
      const auth = this.#credentials.ready ?? (await this.#headersFor(signal));
      const answer = await this.#transport.send({
        method: request.method,
        path: this.#basePath + pathWithQuery(request),
        headers: this.#headers(auth, request),
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        readTimeout: timeouts.read,
        signal,
        traced,
      });
      if (answer.code === 401) this.#credentials.refused(auth);
      // undici frees the socket a turn after the body ends: else the next request opens another.
      if (this.#transport.protocol !== 'h2') await nextTurn();
      return answer;
    } catch (error) {
      const failure = this.#credentials.scrub(this.#explain(error, request, timeouts, bound));
      if (debug.enabled)
        debug('%s %s failed %dms %s', request.method, request.path, sinceMs(started), failure.message);
      throw failure;
    }
  }

  #headersFor(signal: AbortSignal): Promise<Record<string, string>> {
    return this.#credentials
      .headers(() => AbortSignal.any([signal, this.#closing.signal]))
      .catch((error: unknown) => {
        throw new CredentialsError(error);
      });
  }

  #headers(auth: Record<string, string>, request: ApiRequest): Record<string, string> {
    const headers: Record<string, string> = { ...auth, accept: 'application/json', 'user-agent': USER_AGENT };
    if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
    if (request.ifNoneMatch !== undefined) headers['if-none-match'] = request.ifNoneMatch;
    return headers;
  }

  #explain(error: unknown, request: ApiRequest, timeouts: Timeouts, bound: Bound): RequestError {
    if (error instanceof CredentialsError)
      return credentialsError(error, request, timeouts, request.signal, this.closed);
    if (bound.signal.aborted && !request.signal?.aborted && !this.closed)
      return deadlineError(error, request, bound.ms);
    return transportError(error, request, timeouts, request.signal, this.#proxy);
  }

  /** Sends one request: a 2xx (or a 304 to `ifNoneMatch`) with its parsed body, else a RequestError thrown. */
  async request(request: ApiRequest): Promise<ApiResponse> {
    const timeouts = request.timeout ?? this.timeouts;
    if (this.closed) throw closedBeforeSending(request);
    if (request.signal?.aborted) throw abortedBeforeSending(request, request.signal);
    const started = performance.now();
    let answer: Answer;
    let delay: number | undefined;
    let retries = 0;
    let waited = 0;
    const throttling: Throttling = request.throttling ?? { tooMany: 0, retryAfterMs: undefined };
    let throttled = false;
    const traced = tracingRequests() ? this.#tracerFor(request) : undefined;
    const bound = boundOf(timeouts, request.signal);
    try {
      for (;;) {
        answer = await this.#attempt(request, timeouts, started, traced, bound);
        if (answer.warnings.length > 0) this.#warn(answer.warnings, request);
        delay = answer.code === 429 ? retryDelay(answer.retryAfter) : undefined;
        if (answer.code === 429) {
          throttling.tooMany += 1;
          throttling.retryAfterMs = delay;
        }
        if (!shouldRetry(delay, retries, waited)) break;
        // A wait that would end past the bound ends the request now.
        throttled = performance.now() + delay >= bound.at;
        if (throttled) break;
        retries += 1;
        waited += delay;
        debug(
          '%s: the server asked to retry after %dms (retry %d)',
          said(request, 429, started),
          delay,
          retries,
        );
        await this.#pause(delay, request);
      }
    } finally {
      bound.end();
    }
    const notModified = answer.code === 304 && request.ifNoneMatch !== undefined;
    if (!notModified && (answer.code < 200 || answer.code >= 300)) {
      // Redacted before it is parsed, cut or formatted: a gateway's page may echo a header.
      const body = parseBody(this.#credentials.redactor(answer.text));
      const tooMany = throttled ? throttledHint(throttling, bound.ms) : overloadHint(retries, waited, delay);
      const hint = answer.code === 401 ? this.#credentialsHint : answer.code === 429 ? tooMany : undefined;
      const as = throttled ? 'OTC_THROTTLED' : undefined;
      const status = statusError(request, answer.code, body, hint, this.#credentials.redactor, as);
      const failure = this.#credentials.scrub(status);
      debug('%s %s %d %dms %s', request.method, request.path, answer.code, sinceMs(started), failure.message);
      if (refusedAsUntyped(answer.code, body)) this.schemas.untypedRefusal(request.path);
      throw failure;
    }
    if (debug.enabled) debug('%s%s', said(request, answer.code, started), dryRunMark(request));
    const body = parseBody(answer.text);
    const etag = answer.etag === undefined ? {} : { etag: answer.etag };
    if (isRecord(body) || (body === undefined && (notModified || request.emptyAnswerOk === true)))
      return { code: answer.code, body, ...etag };
    const bad = { statusCode: answer.code, code: 'OTC_BAD_RESPONSE', outcome: 'unknown' } as const;
    const detail = `${answer.code}: the response is not a JSON object`;
    throw new RequestError(request.step, request.target, detail, { ...bad, resource: request.object });
  }

  /** Traces each attempt of one request, numbering them (429 retries, refused streams sent again). */
  #tracerFor(request: ApiRequest): Traced {
    let attempt = 0;
    const { method, step, target } = request;
    const path = this.#basePath + request.path;
    const operation = request.warnings?.operation ?? 'connect';
    return (work, protocol) =>
      traceAttempt({ method, path, protocol, attempt: ++attempt, operation, step, target }, work);
  }

  /** A warning the library itself has for the caller, on the same channel as the server's. */
  notify(warning: ServerWarning, route: WarningRoute): void {
    this.#warnings.deliver(warning, route);
  }

  /** Hands each 299 warning of an answer on, with nothing in it that the library must not print. */
  #warn(values: string[], request: ApiRequest): void {
    for (const raw of parseWarnings(values)) {
      const text = this.#credentials.redactor(request.redact ? request.redact(raw) : raw);
      debug('%s %s warning %s %s: %s', request.method, request.path, request.step, request.target, text);
      const operation = request.warnings?.operation ?? 'connect';
      const about = request.object ? { target: request.object } : {};
      this.#warnings.deliver({ text, code: 'OTC_SERVER_WARNING', operation, ...about }, request.warnings);
    }
  }

  /** Waits before a retry; the caller's signal or close() ends the wait (and the request) at once. */
  async #pause(ms: number, request: ApiRequest): Promise<void> {
    const wake = request.signal
      ? AbortSignal.any([request.signal, this.#closing.signal])
      : this.#closing.signal;
    try {
      await sleep(ms, undefined, { signal: wake });
    } catch (error) {
      const waiting = ' while waiting to retry after 429 TooManyRequests';
      if (request.signal?.aborted) throw stoppedBy(request, request.signal, waiting, error, 'not-sent');
      if (this.closed)
        throw closedBeforeSending(request, `${waiting.trim()}; the request was not sent again`);
      throw error;
    }
  }

  /** One group-version's resources, without any caller's signal (the answer is shared). */
  async #fetchDiscovery(
    apiVersion: string,
    route: WarningRoute | undefined,
    throttling: Throttling,
  ): Promise<Document> {
    const path = `/${rootPath(apiVersion)}`;
    const request = { method: 'GET', path, step: 'Discover', target: apiVersion } as const;
    const answer = await unlessNotFound(this.request({ ...request, warnings: route, throttling }));
    return answer && parseDiscovery(answer.body);
  }

  /**
   * Final: nothing is sent after it. Requests in flight and handshakes under way are ended, and
   * every operation still running rejects with "the Connection was closed".
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.#closing.abort();
    this.#credentials.close();
    await this.#transport.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
