// What a fresh control plane is given before tests use it, since no controller-manager or
// operator runs: the test namespaces and their `default` ServiceAccounts, RBAC for the identities
// of simulator/identities.json and for the simulator's own, the CRDs of the custom kinds the
// simulator serves, the FlowSchemas OpenShift gives openshift-apiserver (flow-schemas.ts), and the
// aggregated openshift-apiserver, real or the simulator (a Service of type ExternalName naming
// localhost and an APIService per group-version).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { groupVersions } from '../../simulator/discovery/answers.ts';
import { simulatorFlowSchemas } from './flow-schemas.ts';
import { IDENTITIES, rbacObjects } from './identities.ts';
import { type KubeClient, objectPath } from './kube.ts';
import { SIMULATOR_SERVICE, SIMULATOR_USER } from './material.ts';
import type { ResourceInfo } from '../../simulator/types.ts';

export const TEST_NAMESPACES = ['infra', 'workers', 'other'];

type KubeObject = Record<string, unknown>;

function namespaces(): KubeObject[] {
  return [...TEST_NAMESPACES, SIMULATOR_SERVICE.namespace].flatMap((name) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    // The ServiceAccount controller would make these; the ServiceAccount admission plugin wants
    // them for every Pod that names none.
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } },
  ]);
}

/** As openshift-apiserver is bound: delegated authentication and authorization, namespaces, impersonation. */
function simulatorRbac(): KubeObject[] {
  const subject = { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: SIMULATOR_USER };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'otc-test:openshift-apiserver:auth-delegator' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [subject],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'otc-test:openshift-apiserver' },
      rules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] },
        { verbs: ['impersonate'], apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'] },
        { verbs: ['impersonate'], apiGroups: ['authentication.k8s.io'], resources: ['userextras/*', 'uids'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'otc-test:openshift-apiserver' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'otc-test:openshift-apiserver',
      },
      subjects: [subject],
    },
  ];
}

function crds(): KubeObject[] {
  const data = readFileSync(new URL('../../test/cluster/data/crds.json.gz', import.meta.url));
  return JSON.parse(gunzipSync(data).toString('utf8')) as KubeObject[];
}

function aggregation(groupVersionNames: readonly string[], port: number, caCert: string): KubeObject[] {
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { ...SIMULATOR_SERVICE },
    // The aggregator's ResolveCluster dials <externalName>:<the APIService's port> for an
    // ExternalName Service, and its availability controller checks endpoints only for ClusterIP.
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port }] },
  };
  const apiServices = groupVersionNames
    .map((gv) => gv.split('/') as [string, string])
    .map(([group, version]) => ({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `${version}.${group}` },
      spec: {
        group,
        version,
        service: { ...SIMULATOR_SERVICE, port },
        caBundle: Buffer.from(caCert).toString('base64'),
        // openshift-apiserver's APIServices use these priorities (cluster-openshift-apiserver-operator).
        groupPriorityMinimum: 9900,
        versionPriority: 15,
      },
    }));
  return [service, ...apiServices];
}

async function applyAll(client: KubeClient, objects: KubeObject[]): Promise<void> {
  for (const object of objects) await client.apply(objectPath(object), object);
}

/**
 * Everything but the aggregation, which waits for the simulator to listen. Returns the names of
 * the CRDs it applied, for the wait on their Established condition.
 */
export async function bootstrap(client: KubeClient): Promise<string[]> {
  await applyAll(client, namespaces());
  await applyAll(client, [...IDENTITIES.flatMap(rbacObjects), ...simulatorRbac(), ...simulatorFlowSchemas()]);
  const definitions = crds();
  await applyAll(client, definitions);
  return definitions.map((crd) => (crd.metadata as { name: string }).name);
}

/** The aggregated backend's Service and one APIService per group-version (`group/version`). */
export async function registerBackend(
  client: KubeClient,
  groupVersionNames: readonly string[],
  port: number,
  caCert: string,
): Promise<void> {
  await applyAll(client, aggregation(groupVersionNames, port, caCert));
}

/** Applies objects in order, as the tier's own field manager. */
export async function applyObjects(client: KubeClient, objects: KubeObject[]): Promise<void> {
  await applyAll(client, objects);
}

/** The group-versions the APIServices name, for the readiness waits. */
export function aggregatedGroupVersions(resources: readonly ResourceInfo[]): string[] {
  return groupVersions(resources).map(({ group, version }) => `${group}/${version}`);
}
