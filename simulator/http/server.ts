// The simulator's HTTPS front: TLS, authentication, authorization, routing, faults and the request log.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  constants as h2,
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { permits, reviewAccess } from './access-review.ts';
import { generateTlsMaterial, type TlsMaterial } from '../certs.ts';
import {
  apiGroupList,
  apiResourceList,
  apiVersions,
  findResource,
  RESOURCES,
  groupVersionOf,
  type ResourceInfo,
  versionInfo,
} from '../discovery/resources.ts';
import { type FaultAction, type FaultRule, FaultTable } from '../faults/rules.ts';
import { checkAppliedObject } from '../objects/field-validation.ts';
import { isObject, type Json, type JsonObject } from '../objects/fields.ts';
import { lookupNameError } from '../objects/names.ts';
import { OpenApiDocuments } from '../discovery/openapi/documents.ts';
import { answerOpenApi } from '../discovery/openapi/handler.ts';
import { decodeObjectBody, parseJson, unsupportedMediaType } from './request-body.ts';
import { badRequest, forbidden, invalid, StatusError, unauthorized, type Status } from '../objects/status.ts';
import { ObjectStore } from '../objects/store.ts';
import { processTemplate } from '../templates/templates.ts';

/** One RBAC-style rule. Omitted `namespaces` means every namespace (and cluster scope). */
export interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  namespaces?: string[];
  resourceNames?: string[];
}

/** Who a bearer token is; without `rules` the user may do everything (cluster-admin). */
export interface Identity {
  user: string;
  rules?: Rule[];
}

export interface LogEntry {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  contentType: string | undefined;
  /** The body as text; protobuf bodies are in `bytes`. */
  body: string;
  bytes: Buffer;
  user: string | undefined;
  /** Status sent, or 0 when no answer was sent (hang, reset). */
  status: number;
  time: number;
  durationMs: number;
  connection: number;
}

/**
 * `h2`: HTTP/2 offered first by ALPN with HTTP/1.1 as the fallback, as kube-apiserver and
 * OpenShift serve; `http1`: HTTP/1.1 only (a proxy or load balancer that does not speak h2).
 */
export type Protocol = 'h2' | 'http1';

export interface ServerOptions {
  tokens: Record<string, Identity>;
  latencyMs: number;
  tls?: TlsMaterial;
  protocol?: Protocol;
  /** SETTINGS_MAX_CONCURRENT_STREAMS: 100 is kube-apiserver's default, OpenShift sets 2000. */
  maxConcurrentStreams?: number;
  /** false: no /openapi/v3 (404), as a server with the OpenAPIV3 feature off (before 1.24 by default). */
  openapiV3?: boolean;
}

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

/** The HTTP/2 compatibility response has the same writeHead/write as HTTP/1.1's; TypeScript cannot unify them. */
const writable = (response: Response): ServerResponse => response as ServerResponse;

interface Route {
  info: ResourceInfo;
  namespace: string;
  name: string | undefined;
  subresource: string | undefined;
}

class NotFoundPath extends Error {}

/** What a handled request answers: a status, a body, and the warnings it drew. */
interface Result {
  code: number;
  body: unknown;
  warnings?: string[];
}

interface Answer {
  code: number;
  type: string;
  text: string;
  headers?: Record<string, string>;
  /** Texts sent as `Warning: 299 - "..."`, one header field each, as kube-apiserver does. */
  warnings?: string[];
  /** Raw `Warning` header field values, sent as they are (tests of a client's parser). */
  rawWarnings?: string[];
}

/**
 * One warning header value as kube-apiserver writes it: code 299, agent "-", the text quoted with
 * `"` and `\` escaped (k8s.io/apimachinery pkg/util/net/http.go, NewWarningHeader).
 */
function warningHeader(text: string): string {
  return `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * OpenShift 4.14+ deprecates DeploymentConfig and says so on every request for one, with the
 * wording of Kubernetes' deprecated-API warnings (k8s.io/apiserver pkg/endpoints/deprecation).
 */
const DEPRECATED: Readonly<Record<string, string>> = {
  'apps.openshift.io/deploymentconfigs':
    'apps.openshift.io/v1 DeploymentConfig is deprecated in v4.14+, unavailable in v4.10000+',
};

/**
 * Waits `ms` to within a few microseconds: timers alone overshoot by up to a millisecond, which
 * at 10 ms per request would hide a client's own cost inside the benchmark's lower bound.
 */
async function preciseDelay(ms: number): Promise<void> {
  if (ms <= 0) return;
  const deadline = performance.now() + ms;
  if (ms > 3) await sleep(ms - 3);
  while (performance.now() < deadline) await new Promise<void>((resolve) => setImmediate(resolve));
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function parseRoute(resources: readonly ResourceInfo[], segments: string[]): Route {
  let group = '';
  let version: string | undefined;
  let rest: string[];
  if (segments[0] === 'api') {
    version = segments[1];
    rest = segments.slice(2);
  } else {
    group = segments[1] ?? '';
    version = segments[2];
    rest = segments.slice(3);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1] ?? '';
    rest = rest.slice(2);
  }
  const info = findResource(resources, group, version ?? '', rest[0] ?? '');
  if (!info || rest.length > 3) throw new NotFoundPath();
  const subresource = rest[2];
  if (
    subresource !== undefined &&
    !findResource(resources, group, version ?? '', `${info.name}/${subresource}`)
  ) {
    throw new NotFoundPath();
  }
  const name = rest[1];
  const clusterScopedInNamespace = !info.namespaced && namespace !== '';
  const namedWithoutNamespace = info.namespaced && namespace === '' && name !== undefined;
  if (clusterScopedInNamespace || namedWithoutNamespace) throw new NotFoundPath();
  return { info, namespace, name, subresource };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new NotFoundPath();
  }
}

function verbFor(method: string, route: Route): string {
  switch (method) {
    case 'GET':
      return route.name === undefined ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name === undefined ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}

function allowed(identity: Identity, verb: string, route: Route): boolean {
  const resource = route.subresource ? `${route.info.name}/${route.subresource}` : route.info.name;
  return permits(identity, {
    verb,
    group: route.info.group,
    resource,
    namespace: route.namespace,
    name: route.name,
  });
}

function dryRunValues(query: URLSearchParams, kind: string): boolean {
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) {
    throw invalid({ group: 'meta.k8s.io', kind }, '', [
      {
        type: 'Unsupported',
        field: 'dryRun',
        value: `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`,
        detail: 'supported values: "All"',
      },
    ]);
  }
  return values.length > 0;
}

function defaultManager(request: Request): string {
  const agent = request.headers['user-agent'] ?? 'unknown';
  return agent.split('/')[0] ?? 'unknown';
}

export class SimulatorServer {
  readonly store = new ObjectStore();
  readonly faults = new FaultTable();
  /** What discovery lists: RESOURCES, then kinds added while the server runs (index.ts addResource). */
  readonly resources: ResourceInfo[] = [...RESOURCES];
  readonly openapi: OpenApiDocuments | undefined;
  readonly log: LogEntry[] = [];
  readonly tls: TlsMaterial;
  readonly tokens: Map<string, Identity>;
  latencyMs: number;
  readonly protocol: Protocol;
  connections = 0;
  handshakes = 0;
  /** Handshakes that resumed an earlier TLS session (no certificate signature: cheaper). */
  resumedHandshakes = 0;
  /** Requests per negotiated protocol; every HTTP/2 request is one stream. */
  readonly requests = { http1: 0, h2: 0 };
  readonly #server: TlsServer;
  readonly #sockets = new Set<Socket>();
  readonly #sessions = new Set<Http2Session>();
  readonly #sessionIds = new WeakMap<Http2Session, number>();
  readonly #lastStream = new WeakMap<Http2Session, number>();
  #seq = 0;

  constructor(options: ServerOptions) {
    this.tls = options.tls ?? generateTlsMaterial();
    this.tokens = new Map(Object.entries(options.tokens));
    this.latencyMs = options.latencyMs;
    this.protocol = options.protocol ?? 'h2';
    this.openapi = options.openapiV3 === false ? undefined : new OpenApiDocuments();
    const handler = (req: Request, res: Response): void => {
      void this.#handle(req, res);
    };
    // Client certificates are asked for, never required, and judged per request (#authenticate).
    const tls = {
      key: this.tls.serverKey,
      cert: this.tls.serverCert,
      ca: this.tls.clientCaCert,
      requestCert: true,
      rejectUnauthorized: false,
    };
    this.#server =
      this.protocol === 'h2'
        ? createSecureServer(
            {
              ...tls,
              allowHTTP1: true,
              settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 100 },
            },
            handler,
          )
        : createServer({ ...tls, keepAliveTimeout: 30_000 }, handler);
    this.#server.on('connection', (socket: Socket) => {
      this.connections += 1;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('session', (session: Http2Session) => {
      this.#sessions.add(session);
      this.#sessionIds.set(session, this.connections);
      session.on('stream', (stream: ServerHttp2Stream) => {
        this.#lastStream.set(session, Math.max(this.#lastStream.get(session) ?? 0, stream.id ?? 0));
      });
      session.on('close', () => this.#sessions.delete(session));
    });
    this.#server.on('secureConnection', (socket: TLSSocket) => {
      this.handshakes += 1;
      if (socket.isSessionReused()) this.resumedHandshakes += 1;
    });
    this.#server.on('tlsClientError', () => {
      // A client that rejects our certificate is a test case, not a server failure.
    });
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        resolve();
      });
    });
    const address = this.#server.address() as AddressInfo;
    this.#port = address.port;
    return `https://${host}:${address.port}`;
  }

  /** Sockets currently open on the server side. */
  get openSockets(): number {
    return this.#sockets.size;
  }

  #port = 0;

  /** Stops listening and drops every connection, as a crashed API server would. */
  async goDown(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
    this.dropConnections();
    await closed;
  }

  /**
   * Ends every connection at once, as an API server restarting behind a load balancer does:
   * HTTP/2 sessions get a GOAWAY first, then every socket is destroyed.
   */
  dropConnections({ goaway = true }: { goaway?: boolean } = {}): void {
    // The last stream each session accepted: what a server says it may have processed (RFC 9113
    // section 6.8); streams above it the client may safely send again.
    // A session the client just closed is destroyed before its 'close' event removes it here.
    for (const session of goaway ? this.#sessions : [])
      if (!session.destroyed) session.goaway(h2.NGHTTP2_NO_ERROR, this.#lastStream.get(session) ?? 0);
    for (const session of this.#sessions) session.destroy();
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Listens again on the same port after `goDown()`. */
  async comeBack(): Promise<void> {
    await this.listen(this.#port);
  }

  async close(): Promise<void> {
    this.dropConnections();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  #connectionId(request: Request): number {
    if ('stream' in request) {
      const session = request.stream.session;
      return session ? (this.#sessionIds.get(session) ?? 0) : 0;
    }
    const tagged = request.socket as Socket & { simulatorId?: number };
    tagged.simulatorId ??= this.connections;
    return tagged.simulatorId;
  }

  async #readBody(request: Request): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async #handle(request: Request, response: Response): Promise<void> {
    if (request.httpVersionMajor === 2) this.requests.h2 += 1;
    else this.requests.http1 += 1;
    const started = Date.now();
    const startedPrecise = performance.now();
    const url = new URL(request.url ?? '/', 'https://simulator');
    const method = request.method ?? 'GET';
    const bytes = await this.#readBody(request).catch(() => Buffer.alloc(0));
    const body = bytes.toString('utf8');
    const query: Record<string, string | string[]> = {};
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key);
      query[key] = values.length === 1 ? (values[0] ?? '') : values;
    }
    const identity = this.#authenticate(request);
    const entry: LogEntry = {
      seq: ++this.#seq,
      method,
      path: url.pathname,
      query,
      contentType: request.headers['content-type'],
      body,
      bytes,
      user: identity?.user,
      status: 0,
      time: started,
      durationMs: 0,
      connection: this.#connectionId(request),
    };
    this.log.push(entry);
    // The latency counts from the request's arrival, so reading its body is part of it.
    if (this.latencyMs > 0) await preciseDelay(this.latencyMs - (performance.now() - startedPrecise));

    const fault = this.faults.match(method, url.pathname);
    const execute = (): Answer => this.#respondTo(method, url, bytes, identity, request);
    const finish = (code: number): void => {
      entry.status = code;
      entry.durationMs = performance.now() - startedPrecise;
    };
    if (fault) {
      await this.#applyFault(fault, execute, response, finish);
      return;
    }
    const answer = execute();
    this.#send(response, answer);
    finish(answer.code);
  }

  #send(response: Response, answer: Answer): void {
    const warnings = [...(answer.warnings ?? []).map(warningHeader), ...(answer.rawWarnings ?? [])];
    writable(response).writeHead(answer.code, {
      ...(answer.type === '' ? {} : { 'Content-Type': answer.type }),
      'Content-Length': Buffer.byteLength(answer.text),
      'Cache-Control': 'no-cache, private',
      'Audit-Id': randomBytes(8).toString('hex'),
      ...answer.headers,
      ...(warnings.length > 0 ? { Warning: warnings } : {}),
    });
    response.end(answer.text);
  }

  /** Ends one request without an answer: RST_STREAM over HTTP/2, the connection over HTTP/1.1. */
  #reset(response: Response): void {
    if ('stream' in response) response.stream.close(h2.NGHTTP2_INTERNAL_ERROR);
    else response.socket?.destroy();
  }

  async #applyFault(
    fault: FaultAction,
    execute: () => Answer,
    response: Response,
    finish: (code: number) => void,
  ): Promise<void> {
    switch (fault.type) {
      case 'status': {
        const status = new StatusError(
          fault.code,
          fault.reason ?? 'InternalError',
          fault.message ?? 'injected failure',
          fault.details,
        );
        const answer = { code: fault.code, type: 'application/json', text: JSON.stringify(status.status) };
        this.#send(response, answer);
        finish(fault.code);
        return;
      }
      case 'too-many-requests': {
        // API Priority and Fairness rejects before the request is handled (apiserver
        // pkg/server/filters/priority-and-fairness.go: tooManyRequests).
        const status = new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
          retryAfterSeconds: fault.retryAfterSeconds ?? 1,
        });
        const headers: Record<string, string> =
          fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
        this.#send(response, {
          code: 429,
          type: 'application/json',
          text: JSON.stringify(status.status),
          headers,
        });
        finish(429);
        return;
      }
      case 'drop-connections':
        if (fault.execute) execute();
        finish(0);
        this.dropConnections();
        return;
      case 'warn': {
        const answer = execute();
        this.#send(response, { ...answer, rawWarnings: fault.headers });
        finish(answer.code);
        return;
      }
      case 'down-after': {
        const answer = execute();
        this.#send(response, answer);
        finish(answer.code);
        response.once('finish', () => {
          void this.goDown();
        });
        return;
      }
      case 'raw':
        if (fault.execute) execute();
        this.#send(response, {
          code: fault.code,
          type: fault.contentType ?? 'application/json',
          text: fault.body,
        });
        finish(fault.code);
        return;
      case 'delay': {
        await sleep(fault.ms);
        const answer = execute();
        this.#send(response, answer);
        finish(answer.code);
        return;
      }
      case 'hang':
        if (fault.execute) execute();
        finish(0);
        return;
      case 'reset':
        if (fault.execute) execute();
        this.#reset(response);
        finish(0);
        return;
      case 'refuse-stream':
        if ('stream' in response) response.stream.close(h2.NGHTTP2_REFUSED_STREAM);
        else response.socket?.destroy();
        finish(0);
        return;
      case 'truncate':
      case 'stall-body':
      case 'reset-mid-body':
      case 'trickle': {
        const answer = execute();
        const bytes = Buffer.from(answer.text);
        writable(response).writeHead(answer.code, {
          'Content-Type': answer.type,
          'Content-Length': bytes.length,
        });
        finish(answer.code);
        if (fault.type === 'trickle') {
          for (let i = 0; i < bytes.length && !response.destroyed; i += fault.bytes) {
            writable(response).write(bytes.subarray(i, i + fault.bytes));
            await sleep(fault.intervalMs);
          }
          response.end();
          return;
        }
        const half = Math.floor(bytes.length / 2);
        writable(response).write(bytes.subarray(0, half));
        if (fault.type === 'truncate') {
          if ('stream' in response) response.stream.close(h2.NGHTTP2_NO_ERROR);
          else response.socket?.end();
          return;
        }
        if (fault.type === 'reset-mid-body') {
          await sleep(20);
          this.#reset(response);
          return;
        }
        await sleep(fault.ms);
        if (!response.destroyed) response.end(bytes.subarray(half));
        return;
      }
    }
  }

  /**
   * A bearer token, else a client certificate, as kube-apiserver's authenticators do: the
   * certificate must chain to the client CA and be valid now (checked at every request, so a
   * connection that outlives its certificate is refused with 401); its common name is the user.
   */
  #authenticate(request: Request): Identity | undefined {
    const token = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (token !== undefined) return this.tokens.get(token);
    const socket = ('stream' in request ? request.stream.session?.socket : request.socket) as
      TLSSocket | undefined;
    if (!socket?.authorized) return undefined;
    const peer = socket.getPeerCertificate();
    const now = Date.now();
    if (!(Date.parse(peer.valid_from) <= now && now < Date.parse(peer.valid_to))) return undefined;
    const user = peer.subject.CN;
    if (typeof user !== 'string' || user === '') return undefined;
    return [...this.tokens.values()].find((identity) => identity.user === user) ?? { user };
  }

  #respondTo(
    method: string,
    url: URL,
    body: Buffer,
    identity: Identity | undefined,
    request: Request,
  ): Answer {
    const json = (code: number, value: unknown): Answer => ({
      code,
      type: 'application/json',
      text: JSON.stringify(value),
    });
    try {
      if (!identity) throw unauthorized();
      const openapi = answerOpenApi(this.openapi, method, url, request.headers);
      if (openapi) return openapi;
      const result = this.#dispatch(method, url, body, identity, request);
      const warnings = [...(result.warnings ?? [])];
      return { ...json(result.code, result.body), ...(warnings.length > 0 ? { warnings } : {}) };
    } catch (error) {
      if (error instanceof NotFoundPath)
        return { code: 404, type: 'text/plain; charset=utf-8', text: '404 page not found\n' };
      if (error instanceof StatusError) return json(error.code, error.status);
      const message = error instanceof Error ? error.message : String(error);
      return json(500, new StatusError(500, 'InternalError', `Internal error occurred: ${message}`).status);
    }
  }

  #dispatch(method: string, url: URL, body: Buffer, identity: Identity, request: Request): Result {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    // Path segments arrive percent-encoded (a name may hold "%" or "_"); Go's router decodes them.
    const segments = path.split('/').filter(Boolean).map(decodeSegment);
    if (method === 'GET') {
      if (path === '/version') return { code: 200, body: versionInfo() };
      if (path === '/api') return { code: 200, body: apiVersions() };
      if (path === '/apis') return { code: 200, body: apiGroupList(this.resources) };
      if (segments[0] === 'api' && segments.length === 2) {
        const list = apiResourceList(this.resources, '', segments[1] ?? '');
        if (list) return { code: 200, body: list };
      }
      if (segments[0] === 'apis' && segments.length === 3) {
        const list = apiResourceList(this.resources, segments[1] ?? '', segments[2] ?? '');
        if (list) return { code: 200, body: list };
      }
    }
    if (segments[0] !== 'api' && segments[0] !== 'apis') throw new NotFoundPath();
    const route = parseRoute(this.resources, segments);
    const verb = verbFor(method, route);
    if (
      !route.info.verbs.includes(verb) &&
      !(route.subresource && ['get', 'patch', 'update'].includes(verb))
    ) {
      throw new StatusError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource`,
        {
          ...(route.info.group === '' ? {} : { group: route.info.group }),
          kind: route.info.name,
          ...(route.name ? { name: route.name } : {}),
        },
      );
    }
    if (!allowed(identity, verb, route)) {
      throw forbidden(
        route.info,
        route.name,
        identity.user,
        verb,
        route.namespace || undefined,
        route.subresource,
      );
    }
    const lookupError =
      route.name === undefined
        ? undefined
        : lookupNameError(route.info.nameRule, route.info.kind, route.name);
    if (lookupError !== undefined) throw badRequest(lookupError);
    if (
      MUTATING.has(method) &&
      route.info.namespaced &&
      route.namespace &&
      !this.store.namespaceExists(route.namespace)
    ) {
      if (!(method === 'DELETE' && route.info.name === 'namespaces')) {
        throw new StatusError(404, 'NotFound', `namespaces "${route.namespace}" not found`, {
          name: route.namespace,
          kind: 'namespaces',
        });
      }
    }
    const result = this.#resourceRequest(method, url.searchParams, body, route, request, identity);
    const deprecation = DEPRECATED[`${route.info.group}/${route.info.name}`];
    return deprecation === undefined
      ? result
      : { ...result, warnings: [deprecation, ...(result.warnings ?? [])] };
  }

  #resourceRequest(
    method: string,
    query: URLSearchParams,
    bytes: Buffer,
    route: Route,
    request: Request,
    identity: Identity,
  ): Result {
    const { info, namespace, name } = route;
    const body = bytes.toString('utf8');
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (method === 'GET') {
      return name === undefined
        ? { code: 200, body: this.store.list(info, namespace || undefined) }
        : { code: 200, body: this.store.get(info, namespace, name) };
    }
    if (method === 'POST' && name === undefined) {
      const dryRun = dryRunValues(query, 'CreateOptions');
      const parsed = decodeObjectBody(contentType, bytes);
      if (info.name === 'processedtemplates') return { code: 201, body: processTemplate(parsed, namespace) };
      if (info.name === 'selfsubjectaccessreviews')
        return { code: 201, body: reviewAccess(identity, parsed) };
      const manager = query.get('fieldManager') ?? defaultManager(request);
      return {
        code: 201,
        body: this.store.create(info, namespace, parsed, { fieldManager: manager, dryRun }),
      };
    }
    if (method === 'PATCH' && name !== undefined) {
      const dryRun = dryRunValues(query, 'PatchOptions');
      if (contentType === 'application/apply-patch+yaml') {
        if (route.subresource) throw unsupportedMediaType(['application/merge-patch+json']);
        const fieldManager = query.get('fieldManager') ?? '';
        if (fieldManager === '') {
          throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
            { type: 'Required', field: 'fieldManager', detail: 'is required for apply patch' },
          ]);
        }
        const force = query.get('force') === 'true';
        const parsed = parseJson(body);
        const warnings = checkAppliedObject({
          group: info.group,
          version: info.version,
          kind: info.kind,
          namespace,
          name,
          body,
          object: parsed,
          fieldValidation: query.get('fieldValidation'),
        });
        const { object, created } = this.store.apply(info, namespace, name, parsed, {
          fieldManager,
          force,
          dryRun,
        });
        return { code: created ? 201 : 200, body: object, warnings };
      }
      if (contentType === 'application/merge-patch+json') {
        const fieldManager = query.get('fieldManager') ?? defaultManager(request);
        const options = {
          fieldManager,
          dryRun,
          ...(route.subresource ? { subresource: route.subresource } : {}),
        };
        return { code: 200, body: this.store.mergePatch(info, namespace, name, parseJson(body), options) };
      }
      throw unsupportedMediaType(['application/merge-patch+json', 'application/apply-patch+yaml']);
    }
    if (method === 'PUT' && name !== undefined && !route.subresource) {
      const options = {
        fieldManager: query.get('fieldManager') ?? defaultManager(request),
        dryRun: dryRunValues(query, 'UpdateOptions'),
        hasStatus:
          findResource(this.resources, info.group, info.version, `${info.name}/status`) !== undefined,
      };
      return {
        code: 200,
        body: this.store.update(info, namespace, name, decodeObjectBody(contentType, bytes), options),
      };
    }
    if (method === 'DELETE' && name !== undefined) {
      const options =
        body.trim() === '' ? deleteOptionsFromQuery(query) : deleteOptionsFromBody(parseJson(body));
      return { code: 200, body: this.store.delete(info, namespace, name, options) };
    }
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
    );
  }

  /** Adds a fault rule; see {@link FaultRule}. */
  addFault(rule: FaultRule): void {
    this.faults.add(rule);
  }

  seed(object: JsonObject, manager?: string): JsonObject {
    const info = infoForObject(this.resources, object);
    const metadata = isObject(object.metadata) ? object.metadata : {};
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    if (info.namespaced && !this.store.namespaceExists(namespace)) {
      this.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    return this.store.seed(info, namespace, object, manager);
  }
}

function deleteOptionsFromQuery(query: URLSearchParams): {
  uid?: string;
  propagationPolicy?: string;
  dryRun: boolean;
} {
  const policy = query.get('propagationPolicy');
  return {
    dryRun: dryRunValues(query, 'DeleteOptions'),
    ...(policy !== null ? { propagationPolicy: policy } : {}),
  };
}

function deleteOptionsFromBody(body: unknown): { uid?: string; propagationPolicy?: string; dryRun: boolean } {
  const options = isObject(body) ? body : {};
  const preconditions = isObject(options.preconditions) ? options.preconditions : {};
  const dryRun = Array.isArray(options.dryRun) ? options.dryRun : [];
  const query = new URLSearchParams(
    dryRun.map((v: Json): [string, string] => ['dryRun', typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return {
    dryRun: dryRunValues(query, 'DeleteOptions'),
    ...(typeof preconditions.uid === 'string' ? { uid: preconditions.uid } : {}),
    ...(typeof options.propagationPolicy === 'string'
      ? { propagationPolicy: options.propagationPolicy }
      : {}),
  };
}

export function infoForObject(resources: readonly ResourceInfo[], object: JsonObject): ResourceInfo {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const info = resources.find(
    (r) =>
      r.group === group &&
      r.version === version &&
      r.kind === kind &&
      !r.name.includes('/') &&
      r.name !== 'processedtemplates',
  );
  if (!info) throw new Error(`the simulator does not serve ${kind} in ${apiVersion}`);
  return info;
}

export { groupVersionOf };
export type { Status };
