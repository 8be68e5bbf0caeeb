// startSimulator(): a local OpenShift API server over real HTTPS, for tests, the demo and benchmarks.
import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { type ClientCertificate, issueClientCertificate, type TlsMaterial } from './certs.ts';
import type { AggregatedOptions } from './aggregated/mode.ts';
import type { FaultRule } from './faults/rules.ts';
import type { Webhook } from './objects/webhooks.ts';
import type { Json, JsonObject } from './objects/fields.ts';
import { type AddedKind, addKind, changeKindSchema } from './discovery/openapi/kinds.ts';
import { infoForObject } from './discovery/resources.ts';
import { type LogEntry, type Protocol, SimulatorServer } from './http/server.ts';
import { exampleObjects } from './seed.ts';
import type { OlderServer } from './objects/older-server.ts';
import type { Identity, Rule } from './types.ts';

export type { ClientCertificate, TlsMaterial } from './certs.ts';
export type { AggregatedOptions } from './aggregated/mode.ts';
export type { FaultAction, FaultRule } from './faults/rules.ts';
export type { LogEntry, Protocol } from './http/server.ts';
export type { OlderServer } from './objects/older-server.ts';
export type { Identity, Rule } from './types.ts';
export type { Json, JsonObject } from './objects/fields.ts';
export type { AddedKind } from './discovery/openapi/kinds.ts';
export type { Webhook, WebhookCall } from './objects/webhooks.ts';

export interface SimulatorOptions {
  /** Extra bearer tokens and who they are; an admin token is always created. */
  tokens?: Record<string, Identity>;
  /** Namespaces that exist from the start (`default` always does). Default: `infra`, `workers`, `other`. */
  namespaces?: string[];
  /** Seeds the example Templates (`worker-template` and friends in `infra`). Default true. */
  seedExamples?: boolean;
  /** Latency added to every request before it is handled, in milliseconds. */
  latencyMs?: number;
  port?: number;
  /**
   * `h2` (default): HTTP/2 offered first by ALPN, HTTP/1.1 as the fallback, as kube-apiserver
   * serves. `http1`: HTTP/1.1 only. The environment variable OTS_SIMULATOR_PROTOCOL sets the
   * default, so a whole test suite can run against either.
   */
  protocol?: Protocol;
  /** HTTP/2 streams per connection. Default 100 (kube-apiserver); OpenShift configures 2000. */
  maxConcurrentStreams?: number;
  /** false: `/openapi/v3` answers 404, as a server without it. Default true. */
  openapiV3?: boolean;
  /**
   * How long the merged `/openapi/v3` root may list the documents of earlier: kube-aggregator
   * re-reads kube-apiserver's own root (CRDs included) every second, an aggregated server's every
   * minute, while a document's own path answers at once. Default 0: the root follows at once.
   */
  openapiRootLagMs?: number;
  /** The serving CA and certificate; default: made fresh for 127.0.0.1, ::1 and localhost. */
  tls?: TlsMaterial;
  /**
   * Serve only openshift-apiserver's groups, behind a real kube-apiserver's aggregator: identity
   * from the front proxy, authorization and namespaces from kube-apiserver (simulator/aggregated).
   */
  aggregated?: AggregatedOptions;
  /**
   * Play an older openshift-apiserver where it differs. `pre-511`: before openshift-apiserver#511
   * the ImageStreamTag and ImageTag storages wrote their image stream even under `dryRun=All`
   * (objects/older-server.ts). Default: a current server.
   */
  olderServer?: OlderServer;
}

export interface KubeconfigObject {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: { token: string } }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace: string } }[];
  'current-context': string;
  preferences: Record<string, never>;
}

export interface Simulator {
  url: string;
  /** PEM of the CA that signed the server certificate. */
  caCert: string;
  /** The admin bearer token. */
  token: string;
  /** A kubeconfig with one context per token; `current-context` is the admin's (`simulator`). */
  kubeconfig: KubeconfigObject;
  /** The kubeconfig as text (JSON, which is valid YAML). */
  kubeconfigText: string;
  writeKubeconfig(path: string): Promise<void>;
  /** Every request received, in order. */
  readonly log: LogEntry[];
  clearLog(): void;
  /** Requests that could change state (POST, PUT, PATCH, DELETE). */
  mutations(): LogEntry[];
  /** TCP connections accepted, TLS handshakes completed, and requests per negotiated protocol. */
  stats(): {
    connections: number;
    handshakes: number;
    resumedHandshakes: number;
    openSockets: number;
    http1: number;
    h2: number;
  };
  /** `h2` or `http1`: what the server offers. */
  readonly protocol: Protocol;
  /**
   * Ends every open connection now, GOAWAY first over HTTP/2 unless `goaway: false` (a crashed
   * server or a load balancer that cuts TCP); the server keeps listening.
   */
  dropConnections(options?: { goaway?: boolean }): void;
  setLatency(ms: number): void;
  addFault(rule: FaultRule): void;
  clearFaults(): void;
  /**
   * Calls this validating admission webhook on every matching create and update from now on,
   * dry runs too (objects/webhooks.ts): one that denies, or one without dry-run support.
   *
   * @example
   * sim.addWebhook({ name: 'legacy.example.com', sideEffects: 'Unknown' });
   */
  addWebhook(webhook: Webhook): void;
  clearWebhooks(): void;
  addToken(token: string, identity: Identity): void;
  /**
   * What `user` may do from now on, as editing its RoleBindings would decide; inside a
   * change-first fault, the request it fires on meets the new rules.
   *
   * @example
   * sim.setRules('limited', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
   */
  setRules(user: string, rules: Rule[]): void;
  /**
   * A client certificate the server accepts for `user` until `validMs` from now (whole seconds),
   * as an exec credential plugin would hand out.
   */
  issueClientCertificate(user: string, validMs: number): ClientCertificate;
  /** Stores an object as though `manager` had created it (namespaces are created as needed). */
  seed(object: JsonObject, manager?: string): JsonObject;
  /** Stores a Template named `name` in `namespace` (default `infra`). */
  seedTemplate(name: string, parameters: unknown[], objects: unknown[], namespace?: string): JsonObject;
  /** What the server holds, or undefined. */
  getObject(apiVersion: string, kind: string, namespace: string, name: string): JsonObject | undefined;
  setStatus(apiVersion: string, kind: string, namespace: string, name: string, status: Json): void;
  objectCount(): number;
  /**
   * Serves a new custom resource from now on, as a CRD's creation does: discovery lists it and
   * `/openapi/v3` publishes its schema (its group-version's document and hash change).
   *
   * @example
   * sim.addResource({
   *   group: 'example.com',
   *   version: 'v1',
   *   plural: 'widgets',
   *   kind: 'Widget',
   *   schema: { type: 'object', properties: { spec: { type: 'object' } } },
   * });
   */
  addResource(kind: AddedKind): void;
  /**
   * Updates the CRD of a kind added by `addResource` with a new schema: from now on its objects
   * are typed by it, and `/openapi/v3` lists its group-version under a new hash.
   *
   * @example
   * sim.changeResourceSchema({
   *   group: 'example.com',
   *   version: 'v1',
   *   kind: 'Widget',
   *   schema: { type: 'object', properties: { spec: { type: 'object', properties: {} } } },
   * });
   */
  changeResourceSchema(change: Pick<AddedKind, 'group' | 'version' | 'kind' | 'schema'>): void;
  /** Stops listening and drops every connection; `comeBack()` listens again on the same port. */
  goDown(): Promise<void>;
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

function protocolFromEnvironment(): Protocol {
  const wanted = globalThis.process.env.OTS_SIMULATOR_PROTOCOL;
  if (wanted === undefined || wanted === '' || wanted === 'h2') return 'h2';
  if (wanted === 'http1') return 'http1';
  throw new Error(`OTS_SIMULATOR_PROTOCOL must be "h2" or "http1", not ${JSON.stringify(wanted)}`);
}

function kubeconfigFor(url: string, caCert: string, tokens: Map<string, Identity>): KubeconfigObject {
  const entries = [...tokens.entries()];
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'simulator',
        cluster: { server: url, 'certificate-authority-data': Buffer.from(caCert).toString('base64') },
      },
    ],
    users: entries.map(([token, identity]) => ({ name: identity.user, user: { token } })),
    contexts: entries.map(([, identity], i) => ({
      name: i === 0 ? 'simulator' : identity.user,
      context: { cluster: 'simulator', user: identity.user, namespace: 'workers' },
    })),
    'current-context': 'simulator',
    preferences: {},
  };
}

/**
 * Starts the simulator on 127.0.0.1 with a fresh CA, an admin token and the example Templates.
 *
 * @example
 * const sim = await startSimulator();
 * try { ... sim.kubeconfigText ... } finally { await sim.close(); }
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const token = `sim-admin-${randomBytes(16).toString('hex')}`;
  const tokens: Record<string, Identity> = { [token]: { user: 'admin' }, ...(options.tokens ?? {}) };
  const protocol = options.protocol ?? protocolFromEnvironment();
  const server = new SimulatorServer({
    tokens,
    latencyMs: options.latencyMs ?? 0,
    protocol,
    ...(options.maxConcurrentStreams === undefined
      ? {}
      : { maxConcurrentStreams: options.maxConcurrentStreams }),
    ...(options.openapiV3 === undefined ? {} : { openapiV3: options.openapiV3 }),
    ...(options.openapiRootLagMs === undefined ? {} : { openapiRootLagMs: options.openapiRootLagMs }),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.aggregated ? { aggregated: options.aggregated } : {}),
    ...(options.olderServer ? { olderServer: options.olderServer } : {}),
  });
  for (const namespace of ['default', ...(options.namespaces ?? ['infra', 'workers', 'other'])]) {
    server.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }
  if (options.seedExamples !== false) for (const object of exampleObjects()) server.seed(object);
  const url = await server.listen(options.port ?? 0);
  const caCert = server.tls.caCert;
  const kubeconfig = (): KubeconfigObject => kubeconfigFor(url, caCert, server.tokens);

  return {
    url,
    caCert,
    token,
    get kubeconfig() {
      return kubeconfig();
    },
    get kubeconfigText() {
      return `${JSON.stringify(kubeconfig(), null, 2)}\n`;
    },
    async writeKubeconfig(path) {
      // Written whole under another name, then renamed: whoever waits for the file never reads half of it.
      const partial = `${path}.${String(globalThis.process.pid)}.partial`;
      await writeFile(partial, `${JSON.stringify(kubeconfig(), null, 2)}\n`, { mode: 0o600 });
      await rename(partial, path);
    },
    log: server.log,
    clearLog: () => {
      server.log.length = 0;
    },
    mutations: () => server.log.filter((e) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(e.method)),
    stats: () => ({
      connections: server.connections,
      handshakes: server.handshakes,
      resumedHandshakes: server.resumedHandshakes,
      openSockets: server.openSockets,
      ...server.requests,
    }),
    protocol,
    dropConnections: (options) => {
      server.dropConnections(options);
    },
    setLatency: (ms) => {
      server.latencyMs = ms;
    },
    addWebhook: (webhook) => {
      server.webhooks.push(webhook);
    },
    clearWebhooks: () => {
      server.webhooks.length = 0;
    },
    addFault: (rule) => {
      server.addFault(rule);
    },
    clearFaults: () => {
      server.faults.clear();
    },
    addToken: (newToken, identity) => {
      server.addToken(newToken, identity);
    },
    setRules: (user, rules) => {
      server.setRules(user, rules);
    },
    issueClientCertificate: (user, validMs) => issueClientCertificate(server.tls, user, validMs),
    seed: (object, manager) => server.seed(object, manager),
    seedTemplate: (name, parameters, objects, namespace = 'infra') =>
      server.seed({
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name, namespace },
        parameters: parameters as Json[],
        objects: objects as Json[],
      }),
    getObject: (apiVersion, kind, namespace, name) => {
      const info = infoForObject(server.resources, { apiVersion, kind });
      return server.peek(info, namespace, name);
    },
    setStatus: (apiVersion, kind, namespace, name, status) => {
      server.store.setStatus(infoForObject(server.resources, { apiVersion, kind }), namespace, name, status);
    },
    objectCount: () => server.store.count(),
    addResource: (kind) => {
      addKind(server.resources, server.documents, kind);
    },
    changeResourceSchema: (change) => {
      changeKindSchema(server.resources, server.documents, change);
    },
    goDown: () => server.goDown(),
    comeBack: () => server.comeBack(),
    close: () => server.close(),
  };
}

export type { Rule as AuthorizationRule };
