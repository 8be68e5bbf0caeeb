// Which openshift-apiserver the tier under test runs (the kubeconfig extension scripts/cluster/run.ts
// writes): tests about the simulator's own seams (`*.simulator-tier.test.ts`) run only where the
// simulator is the backend, and tests that impersonate the backend ask for its user here.
import { readFileSync } from 'node:fs';
import { BACKEND_EXTENSION } from '../../scripts/cluster/openshift-build.ts';

export interface Backend {
  backend: 'openshift-apiserver' | 'simulator';
  /** Its identity at kube-apiserver. */
  user: string;
}

/** The backend of the tier a kubeconfig names; undefined without one. */
export function backendOf(kubeconfig: string | undefined): Backend | undefined {
  if (!kubeconfig) return undefined;
  const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters?: { cluster?: { extensions?: { name?: string; extension?: Backend }[] } }[];
  };
  return config.clusters?.[0]?.cluster?.extensions?.find((e) => e.name === BACKEND_EXTENSION)?.extension;
}

/** Whether the tier in OTS_CLUSTER_KUBECONFIG runs the simulator as openshift-apiserver. */
export const simulatorBacked = (): boolean =>
  backendOf(process.env.OTS_CLUSTER_KUBECONFIG)?.backend === 'simulator';
