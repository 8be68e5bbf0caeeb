// The API surface the simulator serves, in the shapes of docs/wire-reference.md §2. Built-in groups are
// listed in sorted order as the real server does; kubevirt.io keeps its CRD's own verb order.

/** One entry of an APIResourceList, plus how the simulator treats it. */
export interface ResourceInfo {
  group: string;
  version: string;
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** DELETE answers with the deleted object instead of a Status (pods, services, templates, ...). */
  deleteReturnsObject?: boolean;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];
const KUBEVIRT_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

function resource(
  groupVersion: string,
  name: string,
  kind: string,
  extra: Partial<ResourceInfo> = {},
): ResourceInfo {
  const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
  const isSub = name.includes('/');
  return {
    group: group ?? '',
    version: version ?? '',
    name,
    singularName: isSub ? '' : name.replace(/s$/, ''),
    namespaced: true,
    kind,
    verbs: isSub ? STATUS_VERBS : ALL_VERBS,
    ...extra,
  };
}

export const RESOURCES: readonly ResourceInfo[] = [
  resource('v1', 'configmaps', 'ConfigMap'),
  resource('v1', 'namespaces', 'Namespace', {
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    deleteReturnsObject: true,
  }),
  resource('v1', 'pods', 'Pod', { shortNames: ['po'], categories: ['all'], deleteReturnsObject: true }),
  resource('v1', 'pods/status', 'Pod'),
  resource('v1', 'secrets', 'Secret'),
  resource('v1', 'serviceaccounts', 'ServiceAccount', { shortNames: ['sa'], deleteReturnsObject: true }),
  resource('v1', 'services', 'Service', {
    shortNames: ['svc'],
    categories: ['all'],
    deleteReturnsObject: true,
  }),
  resource('apps/v1', 'deployments', 'Deployment', { shortNames: ['deploy'], categories: ['all'] }),
  resource('apps/v1', 'deployments/status', 'Deployment'),
  resource('rbac.authorization.k8s.io/v1', 'clusterroles', 'ClusterRole', { namespaced: false }),
  resource('rbac.authorization.k8s.io/v1', 'roles', 'Role'),
  resource('apiextensions.k8s.io/v1', 'customresourcedefinitions', 'CustomResourceDefinition', {
    namespaced: false,
    shortNames: ['crd', 'crds'],
  }),
  resource('apiextensions.k8s.io/v1', 'customresourcedefinitions/status', 'CustomResourceDefinition', {
    namespaced: false,
  }),
  resource('template.openshift.io/v1', 'brokertemplateinstances', 'BrokerTemplateInstance', {
    namespaced: false,
  }),
  resource('template.openshift.io/v1', 'processedtemplates', 'Template', {
    singularName: 'processedtemplate',
    verbs: ['create'],
  }),
  resource('template.openshift.io/v1', 'templateinstances', 'TemplateInstance'),
  resource('template.openshift.io/v1', 'templateinstances/status', 'TemplateInstance'),
  resource('template.openshift.io/v1', 'templates', 'Template', { deleteReturnsObject: true }),
  resource('kubevirt.io/v1', 'virtualmachines', 'VirtualMachine', {
    verbs: KUBEVIRT_VERBS,
    shortNames: ['vm', 'vms'],
    categories: ['all'],
  }),
  resource('kubevirt.io/v1', 'virtualmachines/status', 'VirtualMachine'),
  resource('kubevirt.io/v1', 'virtualmachineinstances', 'VirtualMachineInstance', {
    verbs: KUBEVIRT_VERBS,
    shortNames: ['vmi', 'vmis'],
    categories: ['all'],
  }),
];

export function groupVersionOf(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

export function findResource(group: string, version: string, name: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.name === name);
}

function resourceEntry(r: ResourceInfo): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: r.name,
    singularName: r.singularName,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
  };
  if (r.shortNames) entry.shortNames = r.shortNames;
  if (r.categories) entry.categories = r.categories;
  return entry;
}

export function groupVersions(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of RESOURCES) seen.set(groupVersionOf(r), { group: r.group, version: r.version });
  return [...seen.values()];
}

export function apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
  const resources = RESOURCES.filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersionOf({ group, version }),
    resources: resources.map(resourceEntry),
  };
}

export function apiVersions(): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  };
}

export function apiGroupList(): Record<string, unknown> {
  const groups = groupVersions()
    .filter((gv) => gv.group !== '')
    .map((gv) => {
      const groupVersion = { groupVersion: `${gv.group}/${gv.version}`, version: gv.version };
      return { name: gv.group, versions: [groupVersion], preferredVersion: groupVersion };
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function versionInfo(): Record<string, unknown> {
  return {
    major: '1',
    minor: '34',
    gitVersion: 'v1.34.2',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.24.9',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

function openApiPrefix(gv: { group: string; version: string }): string {
  return gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}

/**
 * `GET /openapi/v3`: the index kubectl reads before `apply`. Schemas are not served; each
 * group-version document only says that PATCH accepts `fieldValidation`, which is what kubectl's
 * QueryParamVerifierV3 looks for before it leaves validation to the server.
 */
export function openApiIndex(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const gv of groupVersions()) {
    const prefix = openApiPrefix(gv);
    paths[prefix] = { serverRelativeURL: `/openapi/v3/${prefix}?hash=${gv.group || 'core'}-${gv.version}` };
  }
  return { paths };
}

export function openApiDocument(prefix: string): Record<string, unknown> | undefined {
  const gv = groupVersions().find((candidate) => openApiPrefix(candidate) === prefix);
  if (!gv) return undefined;
  const paths: Record<string, unknown> = {};
  for (const r of RESOURCES.filter(
    (x) => x.group === gv.group && x.version === gv.version && !x.name.includes('/'),
  )) {
    if (!r.verbs.includes('patch')) continue;
    const scope = r.namespaced ? '/namespaces/{namespace}' : '';
    paths[`/${prefix}${scope}/${r.name}/{name}`] = {
      patch: {
        operationId: `patch${r.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
        parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
          name,
          in: 'query',
          schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
        })),
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.34.2' },
    paths,
    components: { schemas: {} },
  };
}
