// The few requests the cluster script sends kube-apiserver itself (bootstrap and readiness), over
// HTTPS with the throwaway CA. Not the library: the script must work when the library is broken.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { type KubeAnswer, kubeRequest } from '../../simulator/aggregated/kube-request.ts';

export type { KubeAnswer } from '../../simulator/aggregated/kube-request.ts';

export class KubeClient {
  readonly #url: string;
  readonly #token: string;
  readonly #agent: Agent;

  constructor(url: string, caCert: string, token: string) {
    this.#url = url;
    this.#token = token;
    this.#agent = new Agent({ keepAlive: true, ca: caCert, maxSockets: 8 });
  }

  send(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<KubeAnswer> {
    return kubeRequest(this.#agent, this.#url, this.#token, { method, path, body, contentType });
  }

  /** Server-side apply, forced: the script owns what it bootstraps. */
  async apply(path: string, object: Record<string, unknown>): Promise<unknown> {
    const answer = await this.send(
      'PATCH',
      `${path}?fieldManager=otc-test-cluster&force=true`,
      object,
      'application/apply-patch+yaml',
    );
    if (answer.status !== 200 && answer.status !== 201) {
      const metadata = object.metadata as { name?: string } | undefined;
      throw new Error(
        `bootstrap: applying ${String(object.kind)} "${metadata?.name ?? ''}" answered ${answer.status}: ${answer.text.slice(0, 400)}`,
      );
    }
    return answer.body;
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** The collection path of a bootstrap object (only the kinds bootstrap.ts writes). */
export function objectPath(object: Record<string, unknown>): string {
  const kind = String(object.kind);
  const metadata = object.metadata as { name: string; namespace?: string };
  const apiVersion = String(object.apiVersion);
  const plural: Record<string, string> = {
    Namespace: 'namespaces',
    ServiceAccount: 'serviceaccounts',
    Service: 'services',
    ClusterRole: 'clusterroles',
    ClusterRoleBinding: 'clusterrolebindings',
    Role: 'roles',
    RoleBinding: 'rolebindings',
    CustomResourceDefinition: 'customresourcedefinitions',
    APIService: 'apiservices',
    FlowSchema: 'flowschemas',
    Ingress: 'ingresses',
  };
  const resource = plural[kind];
  if (!resource) throw new Error(`bootstrap: no path known for kind ${kind}`);
  const base = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
  const scope = metadata.namespace ? `/namespaces/${metadata.namespace}` : '';
  return `${base}${scope}/${resource}/${encodeURIComponent(metadata.name)}`;
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: { name: string; context: { cluster: string; user: string } }[];
  clusters?: {
    name: string;
    cluster: {
      server: string;
      'certificate-authority-data'?: string;
      extensions?: { name?: string; extension?: Record<string, string> }[];
    };
  }[];
  users?: { name: string; user: { token?: string } }[];
}

export interface CurrentContext {
  client: KubeClient;
  user: string;
  /** The cluster's URL, CA (PEM) and the user's token, for a test's own requests. */
  server: string;
  ca: string;
  token: string;
  /** The value of a cluster extension by name (the tier's audit log path, for one). */
  extension: (name: string) => Record<string, string> | undefined;
}

/** The current context of a JSON kubeconfig with a token user, such as the tier writes. */
export function currentContext(kubeconfig: string): CurrentContext {
  const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as KubeconfigFile;
  const context = config.contexts?.find((c) => c.name === config['current-context'])?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const token = config.users?.find((u) => u.name === context?.user)?.user.token;
  if (!context || !cluster || !token)
    throw new Error(`${kubeconfig}: its current context needs a cluster and a user with a token`);
  const ca = Buffer.from(cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
  return {
    client: new KubeClient(cluster.server, ca, token),
    user: context.user,
    server: cluster.server,
    ca,
    token,
    extension: (name) => cluster.extensions?.find((e) => e.name === name)?.extension,
  };
}
