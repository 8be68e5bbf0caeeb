// The fidelity comparison's object of each OpenShift kind the simulator serves, as little as each
// kind's validation accepts, so that what the real openshift-apiserver fills in shows by field path.
const labels = { app: 'fidelity' };
const podTemplate = {
  metadata: { labels },
  spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] },
};
/**
 * The image tag kinds' streams are named per run: the real server keeps a deleted tag's history in
 * its stream's status and refuses to create the tag again (422), and the tier outlives a run.
 */
const run = process.pid.toString(36);

export const OPENSHIFT_OBJECTS: (Record<string, unknown> & { kind: string })[] = [
  {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    // A dot in the name: the generated host has a dash there.
    metadata: { name: 'f.route' },
    spec: { to: { kind: 'Service', name: 'f-service' } },
  },
  { apiVersion: 'image.openshift.io/v1', kind: 'ImageStream', metadata: { name: 'f-stream' } },
  {
    apiVersion: 'image.openshift.io/v1',
    kind: 'ImageStreamTag',
    metadata: { name: `f-tagged-${run}:v1` },
    tag: { from: { kind: 'DockerImage', name: 'registry.example/app:1' } },
  },
  {
    apiVersion: 'image.openshift.io/v1',
    kind: 'ImageTag',
    metadata: { name: `f-imagetag-${run}:v1` },
    spec: { name: 'v1', from: { kind: 'DockerImage', name: 'registry.example/app:1' } },
  },
  {
    apiVersion: 'build.openshift.io/v1',
    kind: 'BuildConfig',
    metadata: { name: 'f-build' },
    spec: {
      source: { type: 'Git', git: { uri: 'https://example.com/app.git' } },
      strategy: { type: 'Docker', dockerStrategy: {} },
    },
  },
  {
    apiVersion: 'apps.openshift.io/v1',
    kind: 'DeploymentConfig',
    metadata: { name: 'f-dc' },
    spec: {
      replicas: 1,
      selector: labels,
      template: podTemplate,
      triggers: [
        { type: 'ConfigChange' },
        {
          type: 'ImageChange',
          imageChangeParams: {
            automatic: false,
            containerNames: ['main'],
            from: { kind: 'ImageStreamTag', name: 'f-stream:latest' },
          },
        },
      ],
    },
  },
  {
    apiVersion: 'authorization.openshift.io/v1',
    kind: 'Role',
    metadata: { name: 'f-legacy-role' },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
  },
  {
    apiVersion: 'authorization.openshift.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'f-legacy-binding' },
    roleRef: { name: 'f-legacy-role', namespace: 'workers' },
    subjects: [{ kind: 'ServiceAccount', name: 'f-account', namespace: 'workers' }],
  },
  {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: 'f-template' },
    objects: [],
  },
  {
    apiVersion: 'template.openshift.io/v1',
    kind: 'TemplateInstance',
    metadata: { name: 'f-instance' },
    spec: { template: { metadata: { name: 'f-inner' }, objects: [] } },
  },
];
