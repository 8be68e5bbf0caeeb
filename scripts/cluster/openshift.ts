// The real openshift-apiserver behind the tier's aggregator, as OpenShift 4 runs it: its own
// ServiceAccount bound to cluster-admin (cluster-openshift-apiserver-operator,
// bindata/v3.11.0/openshift-apiserver/apiserver-clusterrolebinding.yaml), storage in the tier's
// etcd through the fault relay, delegated authentication and authorization to kube-apiserver, a
// serving certificate for the Service name the aggregator checks, the custom resources and cluster
// objects it reads at start, and its APIServices registered before it listens (switching them from
// another backend later left kube-apiserver's merged /openapi/v3 answering 502s for half a minute).
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
// The Routes' default domain, the simulator's too (a generated host is `<name>-<namespace>.<this>`).
import { ROUTE_SUBDOMAIN } from '../../simulator/objects/route-host.ts';
import { ClusterError } from './build.ts';
import type { KubeClient } from './kube.ts';
import { FRONT_PROXY_CLIENT, type Material, SIMULATOR_SERVICE } from './material.ts';
import type { Condition } from './ready.ts';

type KubeObject = Record<string, unknown>;

/** The ServiceAccount openshift-apiserver runs as on OpenShift. */
export const OPENSHIFT_SERVICE_ACCOUNT = {
  name: 'openshift-apiserver-sa',
  namespace: SIMULATOR_SERVICE.namespace,
};
/** Its user name at kube-apiserver. */
export const OPENSHIFT_USER = `system:serviceaccount:${OPENSHIFT_SERVICE_ACCOUNT.namespace}:${OPENSHIFT_SERVICE_ACCOUNT.name}`;

/**
 * The group-versions openshift-apiserver serves behind the aggregator here, each an APIService. Its
 * quota and security groups stay with their custom resources in kube-apiserver, which the
 * aggregator would hide behind an APIService of the same group-version.
 */
export const OPENSHIFT_GROUP_VERSIONS = [
  'apps.openshift.io/v1',
  'authorization.openshift.io/v1',
  'build.openshift.io/v1',
  'image.openshift.io/v1',
  'project.openshift.io/v1',
  'route.openshift.io/v1',
  'template.openshift.io/v1',
];

interface CrdFile {
  crds: { source: string; crd: KubeObject }[];
}

/** test/cluster/data/openshift-apiserver-crds.json: minimal CRDs, each with its upstream source. */
export function openshiftCrds(): KubeObject[] {
  const url = new URL('../../test/cluster/data/openshift-apiserver-crds.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as CrdFile).crds.map((entry) => entry.crd);
}

/** Its namespace-scoped identity and where OpenShift puts its post-start work (openshift-infra). */
export function openshiftIdentity(): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-infra' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { ...OPENSHIFT_SERVICE_ACCOUNT } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:openshift:openshift-apiserver' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', ...OPENSHIFT_SERVICE_ACCOUNT }],
    },
  ];
}

/** What a Route's admission reads: the cluster's ingress config (an edge Route is refused without it). */
export function clusterIngress(): KubeObject {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'Ingress',
    metadata: { name: 'cluster' },
    spec: { domain: ROUTE_SUBDOMAIN },
  };
}

/** A token for its ServiceAccount (TokenRequest; no controller-manager runs to make a Secret). */
export async function serviceAccountToken(admin: KubeClient): Promise<string> {
  const { name, namespace } = OPENSHIFT_SERVICE_ACCOUNT;
  const answer = await admin.send('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 7 * 86_400 },
  });
  const token = (answer.body as { status?: { token?: string } } | undefined)?.status?.token;
  if (answer.status !== 201 || !token)
    throw new ClusterError(`cluster: a token for ${OPENSHIFT_USER} answered ${answer.status}`);
  return token;
}

export interface OpenshiftStart {
  binary: string;
  /** test/cluster's binary, which supervises it (stops it when our stdin pipe closes). */
  supervisor: string;
  dir: string;
  material: Material;
  port: number;
  /** etcd's API through the tier's fault relay. */
  etcdUrl: string;
  kubeUrl: string;
  token: string;
}

/**
 * Writes its config and kubeconfig and starts it. The config's fields: vendored
 * github.com/openshift/api openshiftcontrolplane/v1 OpenShiftAPIServerConfig.
 */
export async function startOpenshift(start: OpenshiftStart): Promise<ChildProcess> {
  const file = (name: string): string => join(start.dir, name);
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kube',
        cluster: {
          server: start.kubeUrl,
          'certificate-authority-data': Buffer.from(start.material.kube.caCert).toString('base64'),
        },
      },
    ],
    users: [{ name: 'openshift-apiserver', user: { token: start.token } }],
    contexts: [{ name: 'kube', context: { cluster: 'kube', user: 'openshift-apiserver' } }],
    'current-context': 'kube',
  };
  const config = {
    apiVersion: 'openshiftcontrolplane.config.openshift.io/v1',
    kind: 'OpenShiftAPIServerConfig',
    servingInfo: {
      bindAddress: `127.0.0.1:${start.port}`,
      bindNetwork: 'tcp4',
      certFile: file('openshift-apiserver.crt'),
      keyFile: file('openshift-apiserver.key'),
      maxRequestsInFlight: 400,
      requestTimeoutSeconds: 3600,
    },
    storageConfig: { urls: [start.etcdUrl], ca: '', storagePrefix: 'openshift.io' },
    kubeClientConfig: { kubeConfig: file('openshift-apiserver.kubeconfig') },
    imagePolicyConfig: { internalRegistryHostname: 'image-registry.openshift-image-registry.svc:5000' },
    routingConfig: { subdomain: ROUTE_SUBDOMAIN },
    apiServerArguments: {
      'shutdown-delay-duration': ['0s'],
      // Left empty, library-go fills these with in-cluster paths; empty strings mean plain HTTP to
      // the loopback etcd.
      'etcd-certfile': [''],
      'etcd-keyfile': [''],
      'etcd-cafile': [''],
    },
  };
  await Promise.all(
    [
      [file('openshift-apiserver.crt'), start.material.simulator.serverCert],
      [file('openshift-apiserver.key'), start.material.simulator.serverKey],
      [file('openshift-apiserver.kubeconfig'), JSON.stringify(kubeconfig)],
      [file('openshift-apiserver.yaml'), JSON.stringify(config)],
    ].map(([path, text]) => writeFile(path ?? '', text ?? '', { mode: 0o600 })),
  );
  const kube = file('openshift-apiserver.kubeconfig');
  // This version does not read the config's aggregatorConfig, hence the front-proxy flags.
  const flags = [
    `--config=${file('openshift-apiserver.yaml')}`,
    `--authentication-kubeconfig=${kube}`,
    `--authorization-kubeconfig=${kube}`,
    `--requestheader-client-ca-file=${start.material.files.frontProxyCa}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    '--v=1',
  ];
  const log = createWriteStream(file('openshift-apiserver.log'));
  const child = spawn(start.supervisor, ['supervise', '--', start.binary, 'start', ...flags], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  return child;
}

/**
 * Ready is a write, not /readyz: without its caches synced openshift-apiserver says ready and
 * refuses every write. A dry-run Template and an edge Route (which reads the cluster's ingress
 * config) through the aggregator, as the admin.
 */
export function dryRunWrites(admin: KubeClient, namespace: string): Condition {
  const writes: [string, KubeObject][] = [
    [
      `/apis/template.openshift.io/v1/namespaces/${namespace}/templates`,
      {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'otc-ready' },
        objects: [],
      },
    ],
    [
      `/apis/route.openshift.io/v1/namespaces/${namespace}/routes`,
      {
        apiVersion: 'route.openshift.io/v1',
        kind: 'Route',
        metadata: { name: 'otc-ready' },
        spec: { to: { kind: 'Service', name: 'otc-ready' }, tls: { termination: 'edge' } },
      },
    ],
  ];
  return {
    name: 'a dry-run write through the aggregator to openshift-apiserver',
    check: async () => {
      for (const [path, body] of writes) {
        const answer = await admin.send('POST', `${path}?dryRun=All`, body);
        if (answer.status !== 201)
          return `POST ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`;
      }
      return undefined;
    },
  };
}
