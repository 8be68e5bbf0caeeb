// What the simulator asks kube-apiserver, as openshift-apiserver does under its own identity:
// may this user do this (a SubjectAccessReview, as k8s.io/apiserver's delegating authorizer
// sends), and does this namespace exist (openshift-apiserver reads namespaces from kube-apiserver
// and admits with the same NamespaceLifecycle rules).
import { Agent, request as httpsRequest } from 'node:https';

export interface KubeApiserver {
  url: string;
  caCert: string;
  /** The simulator's own bearer token there (bound to system:auth-delegator). */
  token: string;
}

export interface AccessAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface KubeAnswer {
  status: number;
  body: unknown;
}

/** Who a request is sent as: the simulator itself, or a user it impersonates. */
export interface Impersonated {
  user: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Impersonate-* headers, as client-go's impersonating transport sends them. */
function impersonation(as: Impersonated | undefined): Record<string, string | string[]> {
  if (!as) return {};
  const headers: Record<string, string | string[]> = { 'impersonate-user': as.user };
  if (as.groups && as.groups.length > 0) headers['impersonate-group'] = as.groups;
  for (const [key, values] of Object.entries(as.extra ?? {}))
    headers[`impersonate-extra-${encodeURIComponent(key)}`] = values;
  return headers;
}

export class Delegate {
  readonly #server: KubeApiserver;
  readonly #agent: Agent;

  constructor(server: KubeApiserver) {
    this.#server = server;
    this.#agent = new Agent({ keepAlive: true, ca: server.caCert, maxSockets: 16 });
  }

  /** One request to kube-apiserver, as the simulator or as `as`; the answer whatever its status. */
  async request(method: string, path: string, body?: unknown, as?: Impersonated): Promise<KubeAnswer> {
    const url = new URL(path, this.#server.url);
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method,
          agent: this.#agent,
          headers: {
            authorization: `Bearer ${this.#server.token}`,
            ...impersonation(as),
            accept: 'application/json',
            // Node frames no DELETE body by itself (no chunked encoding for DELETE): without a
            // length its bytes would reach kube-apiserver as the next request on the socket.
            ...(text === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
          },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = raw;
            try {
              parsed = JSON.parse(raw);
            } catch {
              // Not JSON: kept as text for the error below.
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`kube-apiserver did not answer ${method} ${url.pathname} in 30 s`)),
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  /** kube-apiserver's decision, with its reason when it gives one. */
  async authorize(
    user: { user: string; groups: string[]; extra: Record<string, string[]> },
    attributes: AccessAttributes,
  ): Promise<{ allowed: boolean; reason: string }> {
    const answer = await this.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: user.user, groups: user.groups, extra: user.extra, resourceAttributes: attributes },
    });
    const status = (answer.body as { status?: { allowed?: unknown; reason?: unknown } }).status;
    if (answer.status !== 201 || typeof status?.allowed !== 'boolean')
      throw new Error(
        `SubjectAccessReview answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`,
      );
    return { allowed: status.allowed, reason: typeof status.reason === 'string' ? status.reason : '' };
  }

  /** The namespace's phase there, or undefined when it does not exist. */
  async namespacePhase(name: string): Promise<string | undefined> {
    const answer = await this.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`);
    if (answer.status === 404) return undefined;
    const phase = (answer.body as { status?: { phase?: unknown } }).status?.phase;
    if (answer.status !== 200) throw new Error(`reading namespace "${name}" answered ${answer.status}`);
    return typeof phase === 'string' ? phase : 'Active';
  }

  close(): void {
    this.#agent.destroy();
  }
}
