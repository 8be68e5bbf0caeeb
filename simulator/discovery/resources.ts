// The resources the simulator serves and how a request or an object finds its entry. Built-in groups
// are listed in sorted order as the real server does; custom resources keep their CRD's own verb order.
import type { JsonObject } from '../objects/fields.ts';
import type { ResourceInfo } from '../types.ts';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];
/** Custom resources list their verbs in this fixed order (apiextensions-apiserver). */
const CRD_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const NO_COLLECTION_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

function singular(name: string): string {
  if (name === 'endpoints') return name;
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('sses') || name.endsWith('esses')) return name.slice(0, -2);
  return name.replace(/s$/, '');
}

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
    singularName: isSub ? '' : singular(name),
    namespaced: true,
    kind,
    verbs: isSub ? STATUS_VERBS : ALL_VERBS,
    nameRule: 'dns1123-subdomain',
    ...extra,
  };
}

/** A custom resource (CRD-served): fixed verb order; names are always DNS-1123 subdomains. */
export function custom(
  groupVersion: string,
  name: string,
  kind: string,
  extra: Partial<ResourceInfo> = {},
): ResourceInfo {
  return resource(groupVersion, name, kind, { verbs: CRD_VERBS, ...extra });
}

const ALL = { categories: ['all'] };
const CLUSTER = { namespaced: false };
const PATH_SEGMENT = { nameRule: 'path-segment' } as const;

/**
 * The surface of an OpenShift 4.x cluster with OpenShift Virtualization, as far as Templates reach:
 * built-in groups sorted by resource name as the real server lists them, custom resources after.
 */
export const RESOURCES: readonly ResourceInfo[] = [
  resource('v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
  resource('v1', 'endpoints', 'Endpoints', { shortNames: ['ep'] }),
  resource('v1', 'events', 'Event', { shortNames: ['ev'] }),
  resource('v1', 'limitranges', 'LimitRange', { shortNames: ['limits'] }),
  resource('v1', 'namespaces', 'Namespace', {
    ...CLUSTER,
    verbs: NO_COLLECTION_VERBS,
    shortNames: ['ns'],
    deleteReturnsObject: true,
    nameRule: 'dns1123-label',
  }),
  resource('v1', 'namespaces/status', 'Namespace', CLUSTER),
  resource('v1', 'nodes', 'Node', { ...CLUSTER, shortNames: ['no'] }),
  resource('v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', {
    shortNames: ['pvc'],
    deleteReturnsObject: true,
  }),
  resource('v1', 'persistentvolumeclaims/status', 'PersistentVolumeClaim'),
  resource('v1', 'persistentvolumes', 'PersistentVolume', {
    ...CLUSTER,
    shortNames: ['pv'],
    deleteReturnsObject: true,
  }),
  resource('v1', 'pods', 'Pod', { shortNames: ['po'], ...ALL, deleteReturnsObject: true }),
  resource('v1', 'pods/status', 'Pod'),
  resource('v1', 'podtemplates', 'PodTemplate'),
  resource('v1', 'replicationcontrollers', 'ReplicationController', { shortNames: ['rc'], ...ALL }),
  resource('v1', 'resourcequotas', 'ResourceQuota', { shortNames: ['quota'] }),
  resource('v1', 'secrets', 'Secret'),
  resource('v1', 'serviceaccounts', 'ServiceAccount', { shortNames: ['sa'], deleteReturnsObject: true }),
  resource('v1', 'services', 'Service', {
    shortNames: ['svc'],
    ...ALL,
    deleteReturnsObject: true,
    nameRule: 'dns1035-label',
  }),
  resource('v1', 'services/status', 'Service'),
  resource('apps/v1', 'controllerrevisions', 'ControllerRevision'),
  resource('apps/v1', 'daemonsets', 'DaemonSet', { shortNames: ['ds'], ...ALL }),
  resource('apps/v1', 'daemonsets/status', 'DaemonSet'),
  resource('apps/v1', 'deployments', 'Deployment', { shortNames: ['deploy'], ...ALL }),
  resource('apps/v1', 'deployments/status', 'Deployment'),
  resource('apps/v1', 'replicasets', 'ReplicaSet', { shortNames: ['rs'], ...ALL }),
  resource('apps/v1', 'replicasets/status', 'ReplicaSet'),
  resource('apps/v1', 'statefulsets', 'StatefulSet', { shortNames: ['sts'], ...ALL }),
  resource('apps/v1', 'statefulsets/status', 'StatefulSet'),
  resource('authorization.k8s.io/v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', {
    ...CLUSTER,
    verbs: ['create'],
  }),
  resource('autoscaling/v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', {
    shortNames: ['hpa'],
    ...ALL,
  }),
  resource('autoscaling/v2', 'horizontalpodautoscalers/status', 'HorizontalPodAutoscaler'),
  resource('batch/v1', 'cronjobs', 'CronJob', { shortNames: ['cj'], ...ALL }),
  resource('batch/v1', 'cronjobs/status', 'CronJob'),
  resource('batch/v1', 'jobs', 'Job', ALL),
  resource('batch/v1', 'jobs/status', 'Job'),
  resource('networking.k8s.io/v1', 'ingressclasses', 'IngressClass', CLUSTER),
  resource('networking.k8s.io/v1', 'ingresses', 'Ingress', { shortNames: ['ing'] }),
  resource('networking.k8s.io/v1', 'ingresses/status', 'Ingress'),
  resource('networking.k8s.io/v1', 'networkpolicies', 'NetworkPolicy', { shortNames: ['netpol'] }),
  resource('policy/v1', 'poddisruptionbudgets', 'PodDisruptionBudget', { shortNames: ['pdb'] }),
  resource('policy/v1', 'poddisruptionbudgets/status', 'PodDisruptionBudget'),
  resource('rbac.authorization.k8s.io/v1', 'clusterrolebindings', 'ClusterRoleBinding', {
    ...CLUSTER,
    ...PATH_SEGMENT,
  }),
  resource('rbac.authorization.k8s.io/v1', 'clusterroles', 'ClusterRole', { ...CLUSTER, ...PATH_SEGMENT }),
  resource('rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', PATH_SEGMENT),
  resource('rbac.authorization.k8s.io/v1', 'roles', 'Role', PATH_SEGMENT),
  resource('apiextensions.k8s.io/v1', 'customresourcedefinitions', 'CustomResourceDefinition', {
    ...CLUSTER,
    shortNames: ['crd', 'crds'],
  }),
  resource(
    'apiextensions.k8s.io/v1',
    'customresourcedefinitions/status',
    'CustomResourceDefinition',
    CLUSTER,
  ),
  resource('apps.openshift.io/v1', 'deploymentconfigs', 'DeploymentConfig', { shortNames: ['dc'], ...ALL }),
  resource('apps.openshift.io/v1', 'deploymentconfigs/instantiate', 'DeploymentRequest', {
    verbs: ['create'],
  }),
  resource('apps.openshift.io/v1', 'deploymentconfigs/status', 'DeploymentConfig'),
  resource('authorization.openshift.io/v1', 'clusterrolebindings', 'ClusterRoleBinding', {
    ...CLUSTER,
    ...PATH_SEGMENT,
  }),
  resource('authorization.openshift.io/v1', 'clusterroles', 'ClusterRole', { ...CLUSTER, ...PATH_SEGMENT }),
  resource('authorization.openshift.io/v1', 'rolebindings', 'RoleBinding', PATH_SEGMENT),
  resource('authorization.openshift.io/v1', 'roles', 'Role', PATH_SEGMENT),
  resource('build.openshift.io/v1', 'buildconfigs', 'BuildConfig', { shortNames: ['bc'], ...ALL }),
  resource('build.openshift.io/v1', 'buildconfigs/instantiate', 'BuildRequest', { verbs: ['create'] }),
  resource('build.openshift.io/v1', 'builds', 'Build', ALL),
  resource('build.openshift.io/v1', 'builds/details', 'Build', { verbs: ['update'] }),
  // Every image.openshift.io name is a path segment at least (openshift-apiserver
  // pkg/image/apis/image/validation); the tag and image kinds must also split (objects/names.ts).
  resource('image.openshift.io/v1', 'images', 'Image', { ...CLUSTER, ...PATH_SEGMENT }),
  resource('image.openshift.io/v1', 'imagesignatures', 'ImageSignature', {
    ...CLUSTER,
    verbs: ['create', 'delete'],
    nameRule: 'image-signature',
  }),
  resource('image.openshift.io/v1', 'imagestreamimages', 'ImageStreamImage', {
    shortNames: ['isimage'],
    verbs: ['get'],
    nameRule: 'image-stream-image',
  }),
  resource('image.openshift.io/v1', 'imagestreamimports', 'ImageStreamImport', {
    verbs: ['create'],
    nameRule: 'image-stream',
  }),
  resource('image.openshift.io/v1', 'imagestreammappings', 'ImageStreamMapping', {
    shortNames: ['ism'],
    verbs: ['create'],
    ...PATH_SEGMENT,
  }),
  resource('image.openshift.io/v1', 'imagestreams', 'ImageStream', {
    shortNames: ['is'],
    ...ALL,
    nameRule: 'image-stream',
  }),
  resource('image.openshift.io/v1', 'imagestreams/status', 'ImageStream'),
  resource('image.openshift.io/v1', 'imagestreamtags', 'ImageStreamTag', {
    shortNames: ['istag'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'],
    nameRule: 'image-stream-tag',
  }),
  resource('image.openshift.io/v1', 'imagetags', 'ImageTag', {
    shortNames: ['itag'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'],
    nameRule: 'image-stream-tag',
  }),
  resource('route.openshift.io/v1', 'routes', 'Route', ALL),
  resource('route.openshift.io/v1', 'routes/status', 'Route'),
  resource('template.openshift.io/v1', 'brokertemplateinstances', 'BrokerTemplateInstance', CLUSTER),
  resource('template.openshift.io/v1', 'processedtemplates', 'Template', {
    singularName: 'processedtemplate',
    verbs: ['create'],
    ...PATH_SEGMENT,
  }),
  resource('template.openshift.io/v1', 'templateinstances', 'TemplateInstance'),
  resource('template.openshift.io/v1', 'templateinstances/status', 'TemplateInstance'),
  resource('template.openshift.io/v1', 'templates', 'Template', {
    deleteReturnsObject: true,
    ...PATH_SEGMENT,
  }),
  custom('cdi.kubevirt.io/v1beta1', 'dataimportcrons', 'DataImportCron', {
    shortNames: ['dic', 'dics'],
    categories: ['all'],
  }),
  custom('cdi.kubevirt.io/v1beta1', 'dataimportcrons/status', 'DataImportCron', { verbs: STATUS_VERBS }),
  custom('cdi.kubevirt.io/v1beta1', 'datasources', 'DataSource', {
    shortNames: ['das'],
    categories: ['all'],
  }),
  custom('cdi.kubevirt.io/v1beta1', 'datasources/status', 'DataSource', { verbs: STATUS_VERBS }),
  custom('cdi.kubevirt.io/v1beta1', 'datavolumes', 'DataVolume', {
    shortNames: ['dv', 'dvs'],
    categories: ['all'],
  }),
  custom('cdi.kubevirt.io/v1beta1', 'datavolumes/status', 'DataVolume', { verbs: STATUS_VERBS }),
  custom(
    'instancetype.kubevirt.io/v1beta1',
    'virtualmachineclusterinstancetypes',
    'VirtualMachineClusterInstancetype',
    {
      ...CLUSTER,
      shortNames: ['vmclusterinstancetype', 'vmclusterinstancetypes', 'vmcf', 'vmcfs'],
    },
  ),
  custom(
    'instancetype.kubevirt.io/v1beta1',
    'virtualmachineclusterpreferences',
    'VirtualMachineClusterPreference',
    {
      ...CLUSTER,
      shortNames: ['vmcp', 'vmcps'],
    },
  ),
  custom('instancetype.kubevirt.io/v1beta1', 'virtualmachineinstancetypes', 'VirtualMachineInstancetype', {
    shortNames: ['vminstancetype', 'vminstancetypes', 'vmf', 'vmfs'],
  }),
  custom('instancetype.kubevirt.io/v1beta1', 'virtualmachinepreferences', 'VirtualMachinePreference', {
    shortNames: ['vmpref', 'vmprefs', 'vmp', 'vmps'],
  }),
  custom('kubevirt.io/v1', 'virtualmachines', 'VirtualMachine', {
    shortNames: ['vm', 'vms'],
    categories: ['all'],
  }),
  custom('kubevirt.io/v1', 'virtualmachines/status', 'VirtualMachine', { verbs: STATUS_VERBS }),
  custom('kubevirt.io/v1', 'virtualmachineinstances', 'VirtualMachineInstance', {
    shortNames: ['vmi', 'vmis'],
    categories: ['all'],
  }),
  custom('kubevirt.io/v1', 'virtualmachineinstancemigrations', 'VirtualMachineInstanceMigration', {
    shortNames: ['vmim', 'vmims'],
    categories: ['all'],
  }),
  custom('monitoring.coreos.com/v1', 'podmonitors', 'PodMonitor', { shortNames: ['pmon'] }),
  custom('monitoring.coreos.com/v1', 'prometheusrules', 'PrometheusRule', { shortNames: ['promrule'] }),
  custom('monitoring.coreos.com/v1', 'servicemonitors', 'ServiceMonitor', { shortNames: ['smon'] }),
];

export function groupVersionOf(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

export function findResource(
  resources: readonly ResourceInfo[],
  group: string,
  version: string,
  name: string,
): ResourceInfo | undefined {
  return resources.find((r) => r.group === group && r.version === version && r.name === name);
}

export function infoForObject(resources: readonly ResourceInfo[], object: JsonObject): ResourceInfo {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const info = resources.find(
    (r) =>
      r.group === group &&
      r.version === version &&
      r.kind === kind &&
      !r.name.includes('/') &&
      r.name !== 'processedtemplates',
  );
  if (!info) throw new Error(`the simulator does not serve ${kind} in ${apiVersion}`);
  return info;
}
