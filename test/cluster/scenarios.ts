// What the fidelity comparison sends both servers: a small object of each built-in kind the
// simulator serves (the server fills in its defaults), and requests a real server refuses.
import * as ocp from '../../src/index.ts';

type Body = Record<string, unknown> & { kind: string };

const labels = { app: 'fidelity' };
const podSpec = { containers: [{ name: 'main', image: 'registry.example/app:1' }] };
const podTemplate = { metadata: { labels }, spec: podSpec };

/** One object per built-in kind, as little as each kind's validation accepts. */
export const DEFAULTED_OBJECTS: Body[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f-config' }, data: { a: 'b' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'f-secret' }, stringData: { a: 'b' } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'f-account' } },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'f-service' },
    spec: { selector: labels, ports: [{ port: 80 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'f-claim' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'f-pod' }, spec: podSpec },
  {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'f-rc' },
    spec: { selector: labels, template: podTemplate },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'f-deployment' },
    spec: { selector: { matchLabels: labels }, template: podTemplate },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'f-statefulset' },
    spec: { selector: { matchLabels: labels }, serviceName: 'f-service', template: podTemplate },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'f-job' },
    spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'f-cronjob' },
    spec: {
      schedule: '0 * * * *',
      jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'f-policy' },
    spec: { podSelector: { matchLabels: labels } },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'f-pdb' },
    spec: { minAvailable: 1, selector: { matchLabels: labels } },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'f-hpa' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'f-deployment' },
      maxReplicas: 3,
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'f-role' },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'f-binding' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'f-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'f-account' }],
  },
  {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: 'f-vm' },
    spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: {} } } } },
  },
];

const templateOf = (name: string, objects: Record<string, unknown>[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects,
});

export interface Refusal {
  name: string;
  run: (api: ocp.Connection) => Promise<unknown>;
}

const options = (api: ocp.Connection) => ({ namespace: 'workers', api }) as const;

/** Requests a real server refuses after typing: validation, conflicts, missing things. */
export const REFUSALS: Refusal[] = [
  {
    name: 'StatefulSet without spec.selector (422)',
    run: (api) =>
      ocp.create(
        templateOf('r-sts', [
          {
            apiVersion: 'apps/v1',
            kind: 'StatefulSet',
            metadata: { name: 'r-sts' },
            spec: { serviceName: 'x', template: podTemplate },
          },
        ]),
        {},
        options(api),
      ),
  },
  {
    name: 'Service port out of range (422)',
    run: (api) =>
      ocp.create(
        templateOf('r-svc', [
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'r-svc' },
            spec: { ports: [{ port: 70000 }] },
          },
        ]),
        {},
        options(api),
      ),
  },
  {
    name: 'Endpoints address that is not an IP (422)',
    run: (api) =>
      ocp.create(
        templateOf('r-ep', [
          {
            apiVersion: 'v1',
            kind: 'Endpoints',
            metadata: { name: 'r-ep' },
            subsets: [{ addresses: [{ ip: 'not-an-ip' }], ports: [{ port: 80 }] }],
          },
        ]),
        {},
        options(api),
      ),
  },
  {
    name: 'field conflict with another manager (409)',
    run: async (api) => {
      const template = templateOf('r-conflict', [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r-conflict' }, data: { a: 'one' } },
      ]);
      await ocp.create(template, {}, { ...options(api), fieldManager: 'first-owner' });
      const second = templateOf('r-conflict', [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r-conflict' }, data: { a: 'two' } },
      ]);
      try {
        return await ocp.create(second, {}, options(api));
      } finally {
        await ocp.delete(template, {}, options(api));
      }
    },
  },
  {
    name: 'get of an object that does not exist (404)',
    run: (api) =>
      ocp.get({
        ...options(api),
        resources: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'r-absent' }],
      }),
  },
  {
    name: 'create in a namespace that does not exist (404)',
    run: (api) =>
      ocp.create(
        templateOf('r-nons', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r-nons' } }]),
        {},
        { namespace: 'no-such-namespace', api },
      ),
  },
  {
    name: 'delete with a UID precondition of a replaced object (409)',
    run: async (api) => {
      const template = templateOf('r-uid', [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r-uid' } },
      ]);
      const [ref] = await ocp.create(template, {}, options(api));
      await ocp.delete(template, {}, options(api));
      await ocp.create(template, {}, options(api));
      try {
        return await ocp.delete({ ...options(api), resources: ref ? [ref] : [] });
      } finally {
        await ocp.delete(template, {}, options(api));
      }
    },
  },
];
