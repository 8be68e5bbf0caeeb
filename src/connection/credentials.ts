// A Connection's credentials and what of them must never be printed. Static ones are read once;
// an exec plugin is run by exec-plugin.ts; auth providers and token files are asked at every
// request for the authorization header only (client-node caches a token file for a minute).
import type { KubeConfig, User } from '@kubernetes/client-node';
import { RequestError } from '../errors.ts';
import { makeRedactor, type Redactor, redactStatus } from '../util/redact.ts';
import { hasText } from '../util/json.ts';
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
 * client-node's authenticator dispatch without its TLS half (which builds an Agent per call). It is
 * private, so looked up; without it the public path is used. test/connection/client-node-choice.test.ts.
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

/** The kubeconfig without the current user's exec plugin, which the library runs itself. */
export function withoutExecPlugin(kc: KubeConfig, k8s: ClientNode): KubeConfig {
  const user = kc.getCurrentUser();
  if (!user?.exec) return kc;
  const copy = new k8s.KubeConfig();
  const users = kc.users.map((u) => (u.name === user.name ? (({ exec: _, ...rest }: User) => rest)(u) : u));
  const { clusters, contexts, currentContext } = kc;
  copy.loadFromOptions({ clusters, users, contexts, currentContext });
  return copy;
}

/** As client-go: a token, basic auth or client certificate wins over the exec plugin. */
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
  /** Exec plugins and auth providers (the in-cluster token file is one) change at any time. */
  readonly #dynamic: boolean;
  readonly #authorize: ((opts: AuthOptions) => Promise<void>) | undefined;
  /** Every credential this Connection ever held, so none can be printed. */
  readonly #secrets = new Set<string>();
  #redact: Redactor = (t) => t;
  #static: Promise<Record<string, string>> | undefined;
  #staticReady: Record<string, string> | undefined;
  #certificate: string | undefined;
  readonly #plugin: ExecPlugin | undefined;
  onCertificate: ((certificate: ClientCertificate) => void) | undefined;

  constructor(kc: KubeConfig, k8s: ClientNode, tls: Record<string, unknown> | undefined) {
    this.#kc = withoutExecPlugin(kc, k8s);
    this.#k8s = k8s;
    const user = kc.getCurrentUser();
    const exec = execConfigOf(user);
    this.#plugin = exec && new ExecPlugin(exec, clusterInfo(kc, tls), this);
    this.#dynamic = Boolean(this.#plugin ?? user?.authProvider);
    this.#authorize = authorizer(this.#kc);
    this.#certificate = text(tls?.cert);
    this.remember([...kubeconfigSecrets(kc), text(tls?.key)]);
  }

  /** The headers for the next request; `bound()` ends a wait for an exec plugin. */
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

  /** Static headers already known, without a promise or a turn; else `headers()`. */
  get ready(): Record<string, string> | undefined {
    return this.#staticReady;
  }

  /** The current redactor, which also lists the credentials (for cuts, see `cutText`). */
  get redactor(): Redactor {
    return this.#redact;
  }

  /** The error with every credential hidden in its message, stack and Status, and its causes'. */
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
    for (const value of values) if (hasText(value)) this.#secrets.add(value);
    if (this.#secrets.size !== before) this.#redact = makeRedactor(this.#secrets);
  }

  async #publicPath(): Promise<Record<string, string>> {
    const ctx = new this.#k8s.RequestContext('https://unused.invalid', 'GET');
    await this.#kc.applySecurityAuthentication(ctx);
    const headers = ctx.getHeaders();
    this.#rememberHeaders(headers);
    return headers;
  }

  refused(headers: Record<string, string>): void {
    this.#plugin?.refused(headers.Authorization);
  }

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
