// What the simulator asks kube-apiserver, as openshift-apiserver does under its own identity:
// may this user do this (a SubjectAccessReview, as k8s.io/apiserver's delegating authorizer
// sends), and does this namespace exist (openshift-apiserver reads namespaces from kube-apiserver
// and admits with the same NamespaceLifecycle rules).
import { Agent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { type KubeAnswer, kubeRequest } from './kube-request.ts';

export type { KubeAnswer } from './kube-request.ts';

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

/**
 * The delegating authorizer's retries: a SubjectAccessReview answered 429, 500 or 504, or whose
 * connection failed, is sent again up to 5 tries in all, 500 ms apart growing 1.5× with 20 %
 * jitter; only the last failure becomes the request's 500 (k8s.io/apiserver
 * pkg/server/options/authentication.go DefaultAuthWebhookRetryBackoff, pkg/util/webhook/webhook.go
 * DefaultShouldRetry and WithExponentialBackoff). Under API Priority and Fairness the review is
 * itself throttled, and without these retries a burst's 429s there turned into the caller's 500s.
 */
async function withWebhookBackoff(send: () => Promise<KubeAnswer>): Promise<KubeAnswer> {
  const TRIES = 5;
  let delayMs = 500;
  for (let attempt = 1; ; attempt += 1) {
    const last = attempt === TRIES;
    try {
      const answer = await send();
      if (last || ![429, 500, 504].includes(answer.status)) return answer;
    } catch (error) {
      if (last) throw error;
    }
    await sleep(delayMs * (1 + Math.random() * 0.2));
    delayMs *= 1.5;
  }
}

interface Decision {
  allowed: boolean;
  reason: string;
}

/**
 * The delegating authorizer's cache: every allowed and every denied answer kept 10 s, keyed by the
 * whole review, at most 8192 of them (k8s.io/apiserver pkg/server/options/authorization.go's
 * AllowCacheTTL and DenyCacheTTL, openshift-apiserver's defaults; plugin/pkg/authorizer/webhook/
 * webhook.go's LRU). A failed review is not kept; concurrent misses each send their own review.
 */
class DecisionCache {
  static readonly TTL_MS = 10_000;
  static readonly SIZE = 8192;
  readonly #entries = new Map<string, { decision: Decision; expires: number }>();

  get(key: string): Decision | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expires <= Date.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.decision;
  }

  add(key: string, decision: Decision): void {
    this.#entries.delete(key);
    this.#entries.set(key, { decision, expires: Date.now() + DecisionCache.TTL_MS });
    const oldest = this.#entries.keys().next();
    if (this.#entries.size > DecisionCache.SIZE && oldest.done !== true) this.#entries.delete(oldest.value);
  }
}

export class Delegate {
  readonly #server: KubeApiserver;
  readonly #agent: Agent;
  readonly #decisions = new DecisionCache();

  constructor(server: KubeApiserver) {
    this.#server = server;
    this.#agent = new Agent({ keepAlive: true, ca: server.caCert, maxSockets: 16 });
  }

  /** One request to kube-apiserver, as the simulator or as `as`; the answer whatever its status. */
  request(method: string, path: string, body?: unknown, as?: Impersonated): Promise<KubeAnswer> {
    const { url, token } = this.#server;
    return kubeRequest(this.#agent, url, token, { method, path, body, headers: impersonation(as) });
  }

  /** kube-apiserver's decision, with its reason when it gives one. */
  async authorize(
    user: { user: string; groups: string[]; extra: Record<string, string[]> },
    attributes: AccessAttributes,
  ): Promise<Decision> {
    const spec = { user: user.user, groups: user.groups, extra: user.extra, resourceAttributes: attributes };
    const key = JSON.stringify(spec);
    const kept = this.#decisions.get(key);
    if (kept !== undefined) return kept;
    const answer = await withWebhookBackoff(() =>
      this.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec,
      }),
    );
    const status = (answer.body as { status?: { allowed?: unknown; reason?: unknown } } | undefined)?.status;
    if (answer.status !== 201 || typeof status?.allowed !== 'boolean')
      throw new Error(`SubjectAccessReview answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    const decision = {
      allowed: status.allowed,
      reason: typeof status.reason === 'string' ? status.reason : '',
    };
    this.#decisions.add(key, decision);
    return decision;
  }

  /** The namespace's phase there, or undefined when it does not exist. */
  async namespacePhase(name: string): Promise<string | undefined> {
    const answer = await this.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`);
    if (answer.status === 404) return undefined;
    const phase = (answer.body as { status?: { phase?: unknown } } | undefined)?.status?.phase;
    if (answer.status !== 200) throw new Error(`reading namespace "${name}" answered ${answer.status}`);
    return typeof phase === 'string' ? phase : 'Active';
  }

  close(): void {
    this.#agent.destroy();
  }
}
