// Where a Connection's credentials come from, how often they are asked for, and what of them
// must never be printed. Static ones (a token, basic auth, a client certificate) are read once.
// An exec plugin is run by the library itself (exec-plugin.ts), once at a time, its credential
// cached until it expires. Auth providers and token files (in-cluster ServiceAccounts) are asked
// at every request, but only for the authorization header: client-node re-reads a token file at
// most once a minute, as client-go does (kubernetes/client-go transport/token_source.go), and no
// TLS state is rebuilt per request.
import type { KubeConfig, User } from '@kubernetes/client-node';
import { RequestError } from '../errors.ts';
import { makeRedactor, type Redactor, redactStatus } from '../util/redact.ts';
import { type ExecCluster, type ExecConfig, ExecPlugin } from './exec-plugin.ts';
import type { ClientNode } from '../util/runtime.ts';

/** What client-node's authenticators fill in (its `applyAuthorizationHeader`, see `authorizer`). */
interface AuthOptions {
  headers: Record<string, string>;
  cert?: string | Buffer;
  key?: string | Buffer;
}

export interface ClientCertificate {
  cert: string;
  key: string;
}

/**
 * client-node's own authenticator dispatch without its TLS half: `applySecurityAuthentication`
 * also reads the CA file and builds a new undici Agent on every call. The method is private in
 * client-node's types (2.0.1, dist/config.js), so it is looked up, not assumed; without it the
 * full public path is used (correct, only slower). test/connection/client-node-choice.test.ts pins it.
 */
function authorizer(kc: KubeConfig): ((opts: AuthOptions) => Promise<void>) | undefined {
  const method = (kc as unknown as { applyAuthorizationHeader?: unknown }).applyAuthorizationHeader;
  if (typeof method !== 'function') return undefined;
  return (opts) => (method as (this: KubeConfig, o: AuthOptions) => Promise<void>).call(kc, opts);
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
}

/** The kubeconfig user's own secrets: its token, password, client key and certificate data. */
export function kubeconfigSecrets(kc: KubeConfig): string[] {
  const user = kc.getCurrentUser();
  return [user?.token, user?.password, user?.keyData, user?.certData].filter(
    (s): s is string => typeof s === 'string',
  );
}

/**
 * The kubeconfig as client-node may see it: without the current user's exec plugin, which the
 * library runs itself, so client-node never spawns one with no limit and no handle.
 */
export function withoutExecPlugin(kc: KubeConfig, k8s: ClientNode): KubeConfig {
  const user = kc.getCurrentUser();
  if (!user?.exec) return kc;
  const copy = new k8s.KubeConfig();
  copy.loadFromOptions({
    clusters: kc.clusters,
    users: kc.users.map((u) => (u.name === user.name ? (({ exec: _, ...rest }: User) => rest)(u) : u)),
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return copy;
}

/**
 * As client-go: a user's token, basic auth or client certificate wins over its exec plugin, which
 * then never runs (exec.go, UpdateTransportConfig).
 */
function execConfigOf(user: User | null): ExecConfig | undefined {
  if (!user?.exec || user.token || user.username || user.certData || user.certFile) return undefined;
  return user.exec as ExecConfig;
}

function clusterInfo(kc: KubeConfig, tls: Record<string, unknown> | undefined): ExecCluster {
  const cluster = kc.getCurrentCluster();
  const ca = tls?.ca;
  const caData = typeof ca === 'string' || Buffer.isBuffer(ca) ? Buffer.from(ca).toString('base64') : '';
  return {
    server: cluster?.server ?? '',
    ...(cluster?.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
    ...(cluster?.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(caData ? { 'certificate-authority-data': caData } : {}),
    ...(cluster?.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
  };
}

export class Credentials {
  readonly #kc: KubeConfig;
  readonly #k8s: ClientNode;
  /** Exec plugins and auth providers (the in-cluster token file is one) can change at any time. */
  readonly #dynamic: boolean;
  readonly #authorize: ((opts: AuthOptions) => Promise<void>) | undefined;
  /** Every credential this Connection ever held, so none can be printed. */
  readonly #secrets = new Set<string>();
  #redact: Redactor = (t) => t;
  #static: Promise<Record<string, string>> | undefined;
  /** The static headers once `#static` has resolved, so a request need not wait a turn for them. */
  #staticReady: Record<string, string> | undefined;
  #certificate: string | undefined;
  readonly #plugin: ExecPlugin | undefined;
  /** Called when an exec plugin hands out a new client certificate. */
  onCertificate: ((certificate: ClientCertificate) => void) | undefined;

  constructor(kc: KubeConfig, k8s: ClientNode, tls: Record<string, unknown> | undefined) {
    this.#kc = withoutExecPlugin(kc, k8s);
    this.#k8s = k8s;
    const user = kc.getCurrentUser();
    const exec = execConfigOf(user);
    this.#plugin =
      exec &&
      new ExecPlugin(exec, clusterInfo(kc, tls), {
        remember: (values) => {
          this.remember(values);
        },
        redactor: () => this.#redact,
      });
    this.#dynamic = Boolean(this.#plugin ?? user?.authProvider);
    this.#authorize = authorizer(this.#kc);
    this.#certificate = text(tls?.cert);
    this.remember([...kubeconfigSecrets(kc), text(tls?.key)]);
  }

  /**
   * The authentication headers for the next request. Waiting for an exec plugin is part of the
   * request, so `bound()` gives the signal that ends the wait; it is made only when one is needed.
   */
  headers(bound: () => AbortSignal): Promise<Record<string, string>> {
    if (this.#plugin) return this.#pluginHeaders(this.#plugin, bound);
    if (this.#static) return this.#static;
    const headers =
      this.#dynamic && this.#authorize ? this.#dynamicHeaders(this.#authorize) : this.#publicPath();
    if (!this.#dynamic) {
      this.#static = headers;
      headers.then(
        (ready) => {
          if (this.#static === headers) this.#staticReady = ready;
        },
        // A failure is not cached: the next request tries again.
        () => (this.#static = undefined),
      );
    }
    return headers;
  }

  /**
   * The headers without waiting, where they are static and already known; undefined otherwise
   * (then `headers()` is the way). Saves each request of a burst a promise and a turn.
   */
  get ready(): Record<string, string> | undefined {
    return this.#staticReady;
  }

  /** Hides every credential the Connection ever held. */
  redact(value: string): string {
    return this.#redact(value);
  }

  /** The current redactor, which also lists the credentials (for cuts, see `cutText`). */
  get redactor(): Redactor {
    return this.#redact;
  }

  /**
   * The error with every credential hidden: its message, stack and Status, and those of its causes
   * (an exec plugin's failure quotes its stderr; a webhook may quote the token it refused).
   */
  scrub<E>(error: E): E {
    let current: unknown = error;
    for (let depth = 0; current instanceof Error && depth < 10; depth++) {
      // Own properties, defined only where a secret was found: a DOMException's message is a getter.
      this.#redactProperty(current, 'message');
      this.#redactProperty(current, 'stack');
      if (current instanceof RequestError && current.status) {
        const status = redactStatus(current.status, this.#redact);
        if (JSON.stringify(status) !== JSON.stringify(current.status))
          Object.defineProperty(current, 'status', { value: status });
      }
      current = current.cause;
    }
    return error;
  }

  #redactProperty(error: Error, name: 'message' | 'stack'): void {
    const value = error[name];
    if (typeof value !== 'string') return;
    const clean = this.#redact(value);
    if (clean !== value)
      Object.defineProperty(error, name, { value: clean, writable: true, configurable: true });
  }

  remember(values: Iterable<string | null | undefined>): void {
    const before = this.#secrets.size;
    for (const value of values) if (typeof value === 'string' && value !== '') this.#secrets.add(value);
    if (this.#secrets.size !== before) this.#redact = makeRedactor(this.#secrets);
  }

  /** Static credentials, through client-node's public path, once. */
  async #publicPath(): Promise<Record<string, string>> {
    const ctx = new this.#k8s.RequestContext('https://unused.invalid', 'GET');
    await this.#kc.applySecurityAuthentication(ctx);
    const headers = ctx.getHeaders();
    this.#rememberHeaders(headers);
    return headers;
  }

  /** The server answered 401 to a request sent with `headers`. */
  refused(headers: Record<string, string>): void {
    this.#plugin?.refused(headers.Authorization);
  }

  /** Kills an exec plugin still running; none runs after it. */
  close(): void {
    this.#plugin?.close();
  }

  async #pluginHeaders(plugin: ExecPlugin, bound: () => AbortSignal): Promise<Record<string, string>> {
    const credential = await plugin.credential(bound);
    const headers: Record<string, string> = {};
    if (credential.token !== undefined) headers.Authorization = `Bearer ${credential.token}`;
    this.#impersonate(headers);
    if (credential.certificate) this.#observe(credential.certificate);
    return headers;
  }

  #impersonate(headers: Record<string, string>): void {
    // applySecurityAuthentication adds this in its TLS half, which the per-request paths skip.
    const impersonate = this.#kc.getCurrentUser()?.impersonateUser;
    if (impersonate) headers['Impersonate-User'] = impersonate;
  }

  async #dynamicHeaders(authorize: (opts: AuthOptions) => Promise<void>): Promise<Record<string, string>> {
    const opts: AuthOptions = { headers: {} };
    await authorize(opts);
    const headers = { ...opts.headers };
    this.#impersonate(headers);
    this.#rememberHeaders(headers);
    const cert = text(opts.cert);
    const key = text(opts.key);
    if (cert !== undefined && key !== undefined) this.#observe({ cert, key });
    return headers;
  }

  #rememberHeaders(headers: Record<string, string>): void {
    const authorization = Object.entries(headers).find(
      ([name]) => name.toLowerCase() === 'authorization',
    )?.[1];
    if (authorization === undefined) return;
    this.remember([authorization, authorization.replace(/^\S+\s+/, '')]);
  }

  #observe(certificate: ClientCertificate): void {
    this.remember([certificate.key]);
    if (certificate.cert === this.#certificate) return;
    this.#certificate = certificate.cert;
    this.onCertificate?.(certificate);
  }
}
