// The live suite's configuration, its own objects, their cleanup, and the results record.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import * as ocp from '../../src/index.ts';

export interface LiveConfig {
  kubeconfig: string | undefined;
  context: string | undefined;
  namespace: string;
  templateNamespace: string;
  limitedContext: string | undefined;
  results: string | undefined;
  forceFailure: string | undefined;
  prefix: string;
}

/** The runner passes unset options as empty strings. */
function given(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

export function liveConfig(env: NodeJS.ProcessEnv = process.env): LiveConfig {
  const kubeconfig = given(env.OTS_LIVE_KUBECONFIG);
  const context = given(env.OTS_LIVE_CONTEXT);
  if (!kubeconfig && !context) {
    throw new Error(
      'the live suite needs an explicit kubeconfig or context (OTS_LIVE_KUBECONFIG / OTS_LIVE_CONTEXT)',
    );
  }
  const namespace = env.OTS_LIVE_NAMESPACE ?? '';
  if (!namespace) throw new Error('the live suite needs a target namespace (OTS_LIVE_NAMESPACE)');
  return {
    kubeconfig,
    context,
    namespace,
    templateNamespace: given(env.OTS_LIVE_TEMPLATE_NAMESPACE) ?? namespace,
    limitedContext: given(env.OTS_LIVE_LIMITED_CONTEXT),
    results: given(env.OTS_LIVE_RESULTS),
    forceFailure: given(env.OTS_LIVE_FORCE_FAILURE),
    prefix: given(env.OTS_LIVE_PREFIX) ?? `ots-live-${randomBytes(3).toString('hex')}`,
  };
}

export interface Outcome {
  check: string;
  status: 'passed' | 'failed' | 'skipped';
  detail: string;
}

export function record(config: LiveConfig, outcome: Outcome): void {
  if (config.results) appendFileSync(config.results, `${JSON.stringify(outcome)}\n`);
}

export function connectOptions(config: LiveConfig, context = config.context): ocp.ConnectOptions {
  return {
    ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
    ...(context ? { context } : {}),
    requestTimeout: { connect: 10_000, read: 30_000 },
  };
}

/** The kubeconfig cluster extension by which a test tier says that no controller runs on it. */
export const NO_CONTROLLERS_EXTENSION = 'openshift-template-client.test/no-controllers';

/**
 * Whether the kubeconfig's cluster says no controller runs there (`npm run cluster`: no
 * controller-manager, no virt-controller), so no object ever gains a status by itself.
 */
export function tierHasNoControllers(config: LiveConfig): boolean {
  if (!config.kubeconfig) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(config.kubeconfig, 'utf8'));
  } catch {
    return false; // YAML kubeconfigs come from real clusters, which run their controllers.
  }
  const clusters = (parsed as { clusters?: { cluster?: { extensions?: { name?: string }[] } }[] }).clusters;
  return (clusters ?? []).some((c) =>
    c.cluster?.extensions?.some((e) => e.name === NO_CONTROLLERS_EXTENSION),
  );
}

export function kubeConfig(config: LiveConfig, context = config.context): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (config.kubeconfig) kc.loadFromFile(config.kubeconfig);
  else kc.loadFromDefault();
  if (context) kc.setCurrentContext(context);
  return kc;
}

/** Everything the suite created, by identity, with the UID it had: cleanup touches nothing else. */
export class Ledger {
  readonly #refs = new Map<string, ocp.ResourceRef>();

  add(refs: readonly ocp.ResourceRef[]): void {
    for (const ref of refs)
      if (ref.uid) this.#refs.set(`${ref.apiVersion}|${ref.kind}|${ref.namespace}|${ref.name}`, ref);
  }

  forget(refs: readonly ocp.ResourceRef[]): void {
    for (const ref of refs) this.#refs.delete(`${ref.apiVersion}|${ref.kind}|${ref.namespace}|${ref.name}`);
  }

  get refs(): ocp.ResourceRef[] {
    return [...this.#refs.values()];
  }
}

/** The suite's Template: every check renders from it; names carry the run's unique prefix. */
export function liveTemplate(
  name: string,
  prefix: string,
  namespace: string,
  withVm: boolean,
): Record<string, unknown> {
  const objects: unknown[] = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${prefix}-\${NAME}-config` },
      data: { mode: '${MODE}', token: '${TOKEN}' },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${prefix}-\${NAME}-secret` },
      stringData: { a: 'alpha', '${KEY_B}': 'bravo' },
    },
  ];
  if (withVm) {
    objects.push({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: `${prefix}-\${NAME}-vm` },
      spec: {
        runStrategy: 'Halted',
        template: { spec: { domain: { devices: {}, memory: { guest: '128Mi' } }, volumes: [] } },
      },
    });
  }
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: {
      name,
      namespace,
      labels: { 'app.kubernetes.io/created-by': 'openshift-template-client-live-suite' },
    },
    parameters: [
      { name: 'NAME', required: true },
      { name: 'MODE', value: 'fast' },
      { name: 'KEY_B', value: 'b' },
      { name: 'TOKEN', generate: 'expression', from: '[a-z0-9]{12}' },
    ],
    objects,
  };
}

/** A Template that aims an object at another namespace through a parameter. */
export function escapingTemplate(name: string, prefix: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name, namespace },
    parameters: [{ name: 'ELSEWHERE', value: 'default' }],
    objects: [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-inside` } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${prefix}-escape`, namespace: '${ELSEWHERE}' },
      },
    ],
  };
}
