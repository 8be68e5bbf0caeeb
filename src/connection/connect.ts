// connect(): kubeconfig or in-cluster credentials in, one checked ClusterConnection out.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeconfigSecrets, withoutExecPlugin } from './credentials.ts';
import { ClusterConnection } from './connection.ts';
import { DEFAULT_MAX_SOCKETS, DEFAULT_TIMEOUT, toTimeouts } from './requests.ts';
import { parseDiscovery } from './discovery.ts';
import { abortedBeforeSending } from './failures.ts';
import { loadClientNode } from '../util/runtime.ts';
import { RequestError, ValidationError } from '../errors.ts';
import { makeRedactor } from '../util/redact.ts';
import { kubeconfigPaths, loadError, loadKubeconfigList, UNLOADABLE } from './kubeconfig.ts';
import type { ConnectOptions } from '../types/index.ts';
import { checkConnectOptions } from '../checks/arguments.ts';
import { type Proxy, proxyFor } from '../wire/proxy.ts';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

function hasDefaultKubeconfig(env: NodeJS.ProcessEnv): boolean {
  return existsSync(join(env.HOME ?? homedir(), '.kube', 'config')) || Boolean(env.KUBERNETES_SERVICE_HOST);
}

/** What client-go's test for in-cluster config misses (the service environment, a ServiceAccount token), or undefined. */
function notInPod(env: NodeJS.ProcessEnv): string | undefined {
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT)
    return 'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set; not running in a pod?';
  return existsSync(SERVICE_ACCOUNT_TOKEN)
    ? undefined
    : `no ServiceAccount token at ${SERVICE_ACCOUNT_TOKEN}`;
}

/** The KUBECONFIG list; when every file is missing, the pod's ServiceAccount as in client-go. */
function loadFromList(k8s: typeof import('@kubernetes/client-node'), paths: readonly string[]): KubeConfig {
  const merged = loadKubeconfigList(k8s, paths);
  if (merged) return merged;
  const kc = new k8s.KubeConfig();
  if (notInPod(globalThis.process.env) !== undefined) {
    const files = paths.map((p) => `"${p}"`).join(', ');
    const problem = files ? `none of the files it lists exists: ${files}` : 'it lists no file';
    throw new RequestError('Connect', 'KUBECONFIG', problem, UNLOADABLE);
  }
  kc.loadFromCluster();
  return kc;
}

function loadKubeConfig(k8s: typeof import('@kubernetes/client-node'), options: ConnectOptions): KubeConfig {
  const kc = new k8s.KubeConfig();
  const env = globalThis.process.env;
  if (options.inCluster) {
    const problem = notInPod(env);
    if (problem !== undefined)
      throw new RequestError('Connect', 'in-cluster ServiceAccount', problem, UNLOADABLE);
    kc.loadFromCluster();
    return kc;
  }
  const source = options.kubeconfig ? `kubeconfig "${options.kubeconfig}"` : 'the default kubeconfig';
  // Set but listing nothing (`:`) is, as in client-go, an empty list, not a reason to read ~/.kube/config.
  if (!options.kubeconfig && env.KUBECONFIG) {
    const listed = loadFromList(k8s, kubeconfigPaths(env.KUBECONFIG));
    return checkedContext(listed, options, 'the KUBECONFIG files');
  }
  if (!options.kubeconfig && !hasDefaultKubeconfig(env)) {
    const problem = 'no KUBECONFIG, no ~/.kube/config and no in-cluster ServiceAccount found';
    throw new RequestError('Connect', source, problem, UNLOADABLE);
  }
  try {
    if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (error) {
    throw loadError(source, error);
  }
  return checkedContext(kc, options, source);
}

/** The context asked for (else the current one), which must name a cluster. */
function checkedContext(kc: KubeConfig, options: ConnectOptions, source: string): KubeConfig {
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context)) {
      const names = kc.getContexts().map((c) => `"${c.name}"`);
      const known = names.length > 0 ? `it has ${names.join(', ')}` : 'it has no contexts';
      throw new ValidationError('connect', [`context "${options.context}" is not in ${source}; ${known}`]);
    }
    kc.setCurrentContext(options.context);
  }
  if (!kc.getCurrentCluster())
    throw new RequestError('Connect', source, 'the current context names no cluster', UNLOADABLE);
  return kc;
}

/** verifySsl: false as client-go's --insecure-skip-tls-verify: on the cluster, so the exec plugin's cluster info says it too. */
function withoutTlsVerification(kc: KubeConfig): void {
  const current = kc.getCurrentCluster()?.name;
  kc.clusters = kc.clusters.map((c) => (c.name === current ? { ...c, skipTLSVerify: true } : c));
}

/** The TLS settings of the current cluster and user, for the Connection's own transport. */
async function tlsOptions(kc: KubeConfig): Promise<Record<string, unknown>> {
  const https: Record<string, unknown> = {};
  await kc.applyToHTTPSOptions(https);
  const agentOptions = Object.fromEntries(
    ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername']
      .filter((k) => https[k] !== undefined)
      .map((k) => [k, https[k]]),
  );
  // The proxy is the transport's business (proxy.ts), so client-node is asked without it.
  const cluster = kc.getCurrentCluster();
  const direct = cluster && (({ proxyUrl: _, ...rest }) => rest)(cluster);
  const dispatcher = kc.createDispatcherOptions(direct, agentOptions);
  return dispatcher.type === 'agent' ? { ...dispatcher.connect } : {};
}

/** The proxy this Connection tunnels through, as client-go would choose it, or none. */
function proxyOf(kc: KubeConfig): Proxy | undefined {
  const cluster = kc.getCurrentCluster();
  if (!cluster) return undefined;
  const proxy = proxyFor(cluster.server, cluster, globalThis.process.env);
  if (typeof proxy === 'string') throw new ValidationError('connect', [proxy], 'OTC_PROXY_CONFIG');
  return proxy;
}

/** Opens and checks a connection; see `connect` in index.ts for the public documentation. */
export async function openConnection(options: ConnectOptions = {}): Promise<ClusterConnection> {
  const issues = checkConnectOptions(options);
  if (issues.length > 0) throw new ValidationError('connect', issues);
  const signal = options.signal;
  const target = options.kubeconfig ? `kubeconfig "${options.kubeconfig}"` : 'the default kubeconfig';
  if (signal?.aborted) throw abortedBeforeSending({ step: 'Connect', target }, signal);
  const { k8s, undici } = await loadClientNode();
  const kc = loadKubeConfig(k8s, options);
  if (options.verifySsl === false) withoutTlsVerification(kc);
  const timeouts = toTimeouts(options.requestTimeout, DEFAULT_TIMEOUT);
  const proxy = proxyOf(kc);
  let tls: Record<string, unknown>;
  try {
    // The exec plugin runs at the first request, within its limits (credentials.ts).
    tls = await tlsOptions(withoutExecPlugin(kc, k8s));
  } catch (error) {
    throw loadError('the TLS settings of the current context', error, makeRedactor(kubeconfigSecrets(kc)));
  }
  if (options.verifySsl === false) tls.rejectUnauthorized = false;
  const { maxSockets = DEFAULT_MAX_SOCKETS, http2 = true, onWarning } = options;
  const settings = { proxy, timeouts, maxSockets, http2, onWarning };
  const connection = new ClusterConnection(kc, k8s, undici, tls, settings);
  try {
    // One cheap, authenticated request proves TLS and credentials, and core discovery is cached.
    const check = { method: 'GET', path: '/api/v1', step: 'Connect', target: connection.server } as const;
    const { body } = await connection.request({ ...check, signal });
    connection.discovery.remember('v1', parseDiscovery(body));
  } catch (error) {
    await connection.close();
    throw error;
  }
  return connection;
}
