// A request in aggregated mode, before dispatch.ts answers it: authenticated by the front proxy,
// authorized by kube-apiserver, its namespace judged by kube-apiserver's. What passes is answered
// by the simulator as in standalone mode, for an identity RBAC has already admitted.
import type { Answer, Request } from '../http/answer.ts';
import { decodeSegment, NotFoundPath, parseRoute, verbFor } from '../http/routes.ts';
import type { Target } from '../objects/requests.ts';
import { forbidden, StatusError, unauthorized } from '../objects/status.ts';
import type { Identity, ResourceInfo } from '../types.ts';
import { proxiedKind, type RbacBackend } from '../objects/legacy-rbac.ts';
import { type AccessAttributes, Delegate, type KubeApiserver } from './delegate.ts';
import { type ProxiedTarget, throughKube } from './rbac-through-kube.ts';
import { frontProxyUser } from './front-proxy.ts';

/** The groups openshift-apiserver serves on OpenShift 4 that the simulator serves too. */
export const AGGREGATED_GROUPS: readonly string[] = [
  'apps.openshift.io',
  'authorization.openshift.io',
  'build.openshift.io',
  'image.openshift.io',
  'route.openshift.io',
  'template.openshift.io',
];

export interface AggregatedOptions {
  kubeApiserver: KubeApiserver;
  /** The front-proxy CA (kube-apiserver's --requestheader-client-ca-file). */
  frontProxyCaCert: string;
  /** Common names the front proxy's certificate may carry (--requestheader-allowed-names). */
  allowedNames: readonly string[];
}

/** Admitted, with the legacy RBAC object the request names when it is one (rbac-through-kube.ts). */
export type Admission = { identity: Identity; proxied?: ProxiedTarget } | { answer: Answer };

const json = (error: StatusError): Answer => ({
  code: error.code,
  type: 'application/json',
  text: JSON.stringify(error.status),
});

/** Creates of new content: what NamespaceLifecycle refuses in a Terminating namespace. */
function creates(method: string, query: URLSearchParams, contentType: string | undefined): boolean {
  return (
    method === 'POST' || (method === 'PATCH' && (contentType ?? '').startsWith('application/apply-patch'))
  );
}

export class AggregatedMode {
  readonly #options: AggregatedOptions;
  readonly #delegate: Delegate;

  constructor(options: AggregatedOptions) {
    this.#options = options;
    this.#delegate = new Delegate(options.kubeApiserver);
  }

  /** Served resources: only the aggregated groups. */
  static served(resources: readonly ResourceInfo[]): ResourceInfo[] {
    return resources.filter((r) => AGGREGATED_GROUPS.includes(r.group));
  }

  #route(resources: readonly ResourceInfo[], url: URL): Target | undefined {
    const segments = (url.pathname.replace(/\/+$/, '') || '/').split('/').filter(Boolean).map(decodeSegment);
    if (segments[0] !== 'apis' || segments.length < 4) return undefined;
    try {
      return parseRoute(resources, segments);
    } catch (error) {
      if (error instanceof NotFoundPath || error instanceof StatusError) return undefined;
      throw error;
    }
  }

  /**
   * Discovery and /openapi/v3 need only the front proxy's certificate: the aggregator's
   * availability checks and document downloads carry no user. A resource request needs the user,
   * kube-apiserver's yes, and, for a namespaced one, the namespace there.
   */
  async admit(
    request: Request,
    url: URL,
    method: string,
    resources: readonly ResourceInfo[],
    ensureNamespace: (name: string) => void,
  ): Promise<Admission> {
    const verdict = frontProxyUser(request, this.#options.allowedNames);
    if (!verdict.proxied) return { answer: json(unauthorized()) };
    const route = this.#route(resources, url);
    if (!route) return { identity: { user: verdict.remote?.user ?? 'system:anonymous' } };
    const remote = verdict.remote;
    if (!remote) return { answer: json(unauthorized()) };
    const verb = verbFor(method, route);
    const attributes: AccessAttributes = {
      verb,
      group: route.info.group,
      version: route.info.version,
      resource: route.info.name,
      subresource: route.subresource ?? '',
      namespace: route.namespace,
      name: route.name ?? '',
    };
    const decision = await this.#delegate.authorize(remote, attributes);
    if (!decision.allowed) {
      const error = forbidden(
        route.info,
        route.name,
        remote.user,
        verb,
        route.namespace || undefined,
        route.subresource,
      );
      return { answer: json(error) };
    }
    if (route.info.namespaced && route.namespace) {
      const phase = await this.#delegate.namespacePhase(route.namespace);
      if (phase === undefined && method !== 'GET') {
        return {
          answer: json(
            new StatusError(404, 'NotFound', `namespaces "${route.namespace}" not found`, {
              name: route.namespace,
              kind: 'namespaces',
            }),
          ),
        };
      }
      if (phase === 'Terminating' && creates(method, url.searchParams, request.headers['content-type'])) {
        const message = `unable to create new content in namespace ${route.namespace} because it is being terminated`;
        return {
          answer: json(
            new StatusError(403, 'Forbidden', message, { name: route.namespace, kind: 'namespaces' }),
          ),
        };
      }
      if (phase !== undefined) ensureNamespace(route.namespace);
    }
    const identity = { user: remote.user, groups: remote.groups, extra: remote.extra };
    const kind = route.subresource ? undefined : proxiedKind(route.info);
    if (kind === undefined) return { identity };
    return { identity, proxied: { kind, namespace: route.namespace, name: route.name, method } };
  }

  /** A legacy Role or RoleBinding request, answered by `run` with kube-apiserver behind it. */
  throughKube<T>(identity: Identity, target: ProxiedTarget, run: (backend: RbacBackend) => T): Promise<T> {
    return throughKube(this.#delegate, identity, target, run);
  }

  close(): void {
    this.#delegate.close();
  }
}
