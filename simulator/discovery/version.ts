// The Kubernetes version both test servers claim: the real tier's kube-apiserver is built from the
// `k8s.io/kubernetes` module that test/cluster/go.mod requires and stamped with its version
// (scripts/cluster/build.ts), and the simulator's /version says the same, read from the same line,
// so the two never drift apart.
import { readFileSync } from 'node:fs';

export interface KubernetesVersion {
  /** As kube-apiserver's `gitVersion`, e.g. `v1.34.4`. */
  gitVersion: string;
  major: string;
  minor: string;
}

/**
 * The version of `k8s.io/kubernetes` a go.mod requires.
 *
 * @example
 * ```ts
 * kubernetesVersionOf('require k8s.io/kubernetes v1.34.4\n'); // { gitVersion: 'v1.34.4', major: '1', minor: '34' }
 * ```
 */
export function kubernetesVersionOf(goMod: string): KubernetesVersion {
  const match = /^\s*(?:require\s+)?k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)\s*$/m.exec(goMod);
  if (!match?.[1] || !match[2] || !match[3])
    throw new Error('test/cluster/go.mod requires no k8s.io/kubernetes vX.Y.Z');
  return { gitVersion: match[1], major: match[2], minor: match[3] };
}

/**
 * The version in test/cluster/go.mod, read once.
 *
 * @example
 * ```ts
 * const { gitVersion } = kubernetesVersion();
 * ```
 */
export const kubernetesVersion = ((): (() => KubernetesVersion) => {
  let known: KubernetesVersion | undefined;
  return () =>
    (known ??= kubernetesVersionOf(
      readFileSync(new URL('../../test/cluster/go.mod', import.meta.url), 'utf8'),
    ));
})();
