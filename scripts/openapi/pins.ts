// The upstream sources the simulator's schemas (generate-openapi.ts) and the real tier's CRDs
// (generate-crds.ts) are made from, pinned once so that both always read the same releases.
// Kubernetes 1.34 is what OpenShift 4.21 runs; the rest are the releases OpenShift 4.21 ships.
export const KUBE = {
  repository: 'kubernetes-sigs/kubectl-validate',
  ref: 'main',
  folder: 'pkg/openapiclient/builtins/1.34',
};
export const OPENSHIFT = { repository: 'openshift/api', ref: 'release-4.21', path: 'openapi/openapi.json' };
export const KUBEVIRT = {
  repository: 'kubevirt/kubevirt',
  ref: 'v1.7.4',
  path: 'pkg/virt-operator/resource/generate/components/validations_generated.go',
};
export const CDI = {
  repository: 'kubevirt/containerized-data-importer',
  ref: 'v1.64.0',
  path: 'pkg/operator/resources/crds_generated.go',
};
export const PROMETHEUS = {
  repository: 'prometheus-operator/prometheus-operator',
  ref: 'v0.87.0',
  folder: 'example/prometheus-operator-crd',
};
