// The simulator's HTTPS server: TLS, HTTP/2 with HTTP/1.1 beside it, its connections, the request
// log and its counters. What each request is answered with comes from dispatch.ts, or from a fault.
import { constants as h2, createSecureServer, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateTlsMaterial, type TlsMaterial } from '../certs.ts';
import { OpenApiDocuments } from '../discovery/openapi/documents.ts';
import { TypeTables } from '../discovery/openapi/tables.ts';
import { infoForObject, RESOURCES } from '../discovery/resources.ts';
import { applyFault } from '../faults/inject.ts';
import { type FaultRule, FaultTable } from '../faults/rules.ts';
import { isObject, type JsonObject } from '../objects/fields.ts';
import { proxiedKind, type RbacBackend, storeBackend } from '../objects/legacy-rbac.ts';
import { fromRbac, toRbac } from '../objects/rbac-conversion.ts';
import { ObjectStore } from '../objects/store.ts';
import type { OlderServer } from '../objects/older-server.ts';
import { StatusError } from '../objects/status.ts';
import { groupVersions } from '../discovery/answers.ts';
import { documentPath } from '../discovery/openapi/documents.ts';
import type { Identity, ResourceInfo, Rule } from '../types.ts';
import { type Answer, type Request, type Response, send } from './answer.ts';
import { authenticate } from './authenticate.ts';
import { keepAliveAsKubeApiserver } from './idle.ts';
import { respondTo } from './dispatch.ts';
import type { Webhook } from '../objects/webhooks.ts';
import { type AggregatedOptions, AggregatedMode } from '../aggregated/mode.ts';

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
  /** How long the merged /openapi/v3 root lags what each server publishes (documents.ts). Default 0. */
  openapiRootLagMs?: number;
  /** Play an older openshift-apiserver's storages (objects/older-server.ts). */
  olderServer?: OlderServer;
  /** Serve as openshift-apiserver behind a real kube-apiserver's aggregator (simulator/aggregated). */
  aggregated?: AggregatedOptions;
}

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

/** kube-apiserver could not be asked: an internal error, as a failed delegated authorizer gives. */
function delegationFailed(error: unknown): Answer {
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: 500,
    type: 'application/json',
    text: JSON.stringify(new StatusError(500, 'InternalError', `Internal error occurred: ${message}`).status),
  };
}

export class SimulatorServer {
  /** Objects merged and owned by their kinds' schemas, from the same tables typing uses. */
  readonly store = new ObjectStore((info) => this.tables.forKind(info));
  readonly faults = new FaultTable();
  /** What discovery lists: RESOURCES, then kinds added while the server runs (index.ts addResource). */
  readonly resources: ResourceInfo[];
  /** Every group-version's document: typed against always, served unless `openapiV3: false`. */
  readonly documents = new OpenApiDocuments();
  readonly openapi: OpenApiDocuments | undefined;
  readonly tables = new TypeTables(this.documents);
  /** The RBAC objects legacy Roles and RoleBindings are: the simulator's own store, in either mode. */
  /**
   * What the legacy RBAC proxy reaches: the store; in aggregated mode, for the length of one
   * synchronous dispatch, kube-apiserver (aggregated/rbac-through-kube.ts).
   */
  rbac: RbacBackend = storeBackend(this.store);
  /** The validating admission webhooks tests add (index.ts addWebhook). */
  readonly webhooks: Webhook[] = [];
  readonly olderServer: OlderServer | undefined;
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
  readonly #aggregated: AggregatedMode | undefined;

  constructor(options: ServerOptions) {
    this.tls = options.tls ?? generateTlsMaterial();
    this.#aggregated = options.aggregated && new AggregatedMode(options.aggregated);
    this.resources = options.aggregated ? AggregatedMode.served(RESOURCES) : [...RESOURCES];
    if (options.aggregated)
      this.documents.restrictTo(new Set(groupVersions(this.resources).map(documentPath)));
    // Copies: setRules changes them in place, never the caller's objects.
    this.tokens = new Map(
      Object.entries(options.tokens).map(([token, identity]) => [token, { ...identity }]),
    );
    this.latencyMs = options.latencyMs;
    this.olderServer = options.olderServer;
    this.protocol = options.protocol ?? 'h2';
    this.openapi = options.openapiV3 === false ? undefined : this.documents;
    this.documents.rootLagMs = options.openapiRootLagMs ?? 0;
    const handler = (req: Request, res: Response): void => {
      void this.#handle(req, res);
    };
    // Client certificates are asked for, never required, and judged per request (#authenticate).
    const tls = {
      key: this.tls.serverKey,
      cert: this.tls.serverCert,
      ca: options.aggregated?.frontProxyCaCert ?? this.tls.clientCaCert,
      requestCert: true,
      rejectUnauthorized: false,
    };
    const server =
      this.protocol === 'h2'
        ? createSecureServer(
            {
              ...tls,
              allowHTTP1: true,
              settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 100 },
            },
            handler,
          )
        : createServer(tls, handler);
    keepAliveAsKubeApiserver(server);
    this.#server = server;
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
    this.#aggregated?.close();
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
    const admission = this.#aggregated
      ? await this.#aggregated
          .admit(request, url, method, this.resources, (name) => {
            if (!this.store.namespaceExists(name))
              this.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
          })
          .catch((error: unknown) => ({ answer: delegationFailed(error) }))
      : { identity: authenticate(request, this.tokens) };
    const identity = 'identity' in admission ? admission.identity : undefined;
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

    const finish = (code: number): void => {
      entry.status = code;
      entry.durationMs = performance.now() - startedPrecise;
    };
    if ('answer' in admission) {
      send(response, admission.answer);
      finish(admission.answer.code);
      return;
    }
    if (this.#aggregated && 'proxied' in admission) {
      const own = this.rbac;
      const answer = await this.#aggregated.throughKube(admission.identity, admission.proxied, (backend) => {
        this.rbac = backend;
        try {
          return respondTo(this, method, url, bytes, identity, request);
        } finally {
          this.rbac = own;
        }
      });
      send(response, answer);
      finish(answer.code);
      return;
    }
    const fault = this.faults.match(method, url.pathname);
    const execute = (): Answer => respondTo(this, method, url, bytes, identity, request);
    if (fault) {
      await applyFault(fault, {
        response,
        execute,
        finish,
        dropConnections: () => {
          this.dropConnections();
        },
        goDown: () => this.goDown(),
      });
      return;
    }
    const answer = execute();
    send(response, answer);
    finish(answer.code);
  }

  /** A bearer token for `identity` (a copy of it) from now on. */
  addToken(token: string, identity: Identity): void {
    this.tokens.set(token, { ...identity });
  }

  /**
   * What `user` may do from now on, as a changed RoleBinding decides: its identities change in
   * place, so a request already authenticated but not yet authorized (a change-first fault's)
   * meets the new rules, as kube-apiserver authorizes after authenticating.
   */
  setRules(user: string, rules: Rule[]): void {
    for (const identity of this.tokens.values()) if (identity.user === user) identity.rules = rules;
  }

  /** Adds a fault rule; see {@link FaultRule}. */
  addFault(rule: FaultRule): void {
    this.faults.add(rule);
  }

  seed(object: JsonObject, manager?: string): JsonObject {
    // An aggregated server still keeps its namespaces (mirrored from kube-apiserver) in its store.
    const known = this.#aggregated ? [...this.resources, ...RESOURCES] : this.resources;
    const info = infoForObject(known, object);
    const metadata = isObject(object.metadata) ? object.metadata : {};
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    if (info.namespaced && !this.store.namespaceExists(namespace)) {
      this.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    const legacy = proxiedKind(info);
    if (legacy === undefined) return this.store.seed(info, namespace, object, manager);
    const rbac = toRbac(legacy, { ...object, metadata: { ...metadata, namespace } });
    return fromRbac(legacy, this.seed(rbac, manager));
  }

  /** What the server holds, or undefined; a legacy Role or RoleBinding as its RBAC object's view. */
  peek(info: ResourceInfo, namespace: string, name: string): JsonObject | undefined {
    const legacy = proxiedKind(info);
    if (legacy === undefined) return this.store.peek(info, namespace, name);
    try {
      return fromRbac(legacy, this.rbac.as({ user: 'admin' }).get(legacy, namespace, name));
    } catch (error) {
      if (error instanceof StatusError && error.code === 404) return undefined;
      throw error;
    }
  }
}
