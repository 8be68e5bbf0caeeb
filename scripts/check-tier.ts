// check-templates --real-tier: `npm run cluster`'s tier (kube-apiserver and etcd from test/cluster,
// the real openshift-apiserver aggregated behind it; scripts/cluster/run.ts) started for one run,
// judged on, and stopped after it, on a failure and on Ctrl-C too. Where Go or openshift-apiserver's
// source is missing it refuses in one line: the simulator never stands in for it, since the point
// of the flag is the real servers' validation, which the simulator does not have.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { kubernetesVersion } from '../simulator/discovery/version.ts';
import { type CheckTarget, kubeconfigTarget } from './check-target.ts';
import { applyObjects, TEST_NAMESPACES } from './cluster/bootstrap.ts';
import { ClusterError, findGo } from './cluster/build.ts';
import { OPENSHIFT_PIN } from './cluster/openshift-build.ts';
import { type Cluster, startCluster } from './cluster/run.ts';

/** What the run judges, by the server it runs on: the first line of check-templates' output. */
export function judges(
  tierSource: string | undefined,
  kubeconfig: string | undefined,
  roundTrip: boolean,
): string {
  if (tierSource !== undefined)
    return (
      `judges: the real tier, started for this run: kube-apiserver ${kubernetesVersion().gitVersion} and ` +
      `openshift-apiserver ${OPENSHIFT_PIN.version} (from ${tierSource}): their own validation, by a round trip`
    );
  if (kubeconfig !== undefined)
    return `judges: the server of ${kubeconfig}: its own validation, by ${roundTrip ? 'a round trip' : 'dry runs (nothing written)'}`;
  return (
    "judges: the embedded simulator: types and names, by the library's engine and the simulator's rules, not " +
    'kube-apiserver\'s validation (a known gap: a ConfigMap key "bad key!" is ok here, 422 on kube-apiserver); ' +
    '--real-tier judges on the real servers'
  );
}

/**
 * The openshift-apiserver source `--real-tier` builds from (the flag, else
 * OPENSHIFT_APISERVER_SOURCE, as `npm run cluster` reads it), or one line naming everything missing.
 */
export function realTierSource(flag: string | undefined): { source: string } | { missing: string } {
  const missing: string[] = [];
  const go = findGo();
  if (!go.ok) missing.push(go.why);
  const path = flag ?? process.env.OPENSHIFT_APISERVER_SOURCE;
  if (path === undefined || path === '')
    missing.push(
      'no openshift-apiserver source: pass --openshift-apiserver-source PATH or set OPENSHIFT_APISERVER_SOURCE ' +
        '(its source directory or tarball; docs/real-tier.md)',
    );
  else if (!existsSync(path)) missing.push(`openshift-apiserver source ${path} does not exist`);
  if (missing.length > 0 || path === undefined)
    return { missing: `--real-tier cannot start the real tier: ${missing.join('; ')}` };
  return { source: resolve(path) };
}

/** Runs once, however many callers ask: the end of the run and a signal may both close. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

/**
 * Starts the tier and answers a target on it: a round trip, its writes read from the tier's audit
 * log. `close()` stops every server and removes the run's data; so does Ctrl-C (SIGINT, SIGTERM),
 * which also ends the process (exit 130), mid-start or mid-check. A start that fails stops what it
 * started and throws a ClusterError, whose message is one line for the user.
 */
export async function realTierTarget(
  source: string,
  kubeconfig: string,
  namespace: string,
): Promise<CheckTarget> {
  const interrupt = new AbortController();
  let stop: (() => Promise<void>) | undefined;
  const onSignal = (): void => {
    // Before the tier is up, the start gives up and stops what it started; after, the run ends here.
    if (!stop) interrupt.abort();
    else
      void stop().finally(() => {
        process.stderr.write('check-templates: interrupted; the real tier is stopped\n');
        process.exit(130);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const unhook = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.stderr.write('check-templates: starting the real tier for this run (docs/real-tier.md)\n');
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      openshift: { kind: 'openshift-apiserver', source },
      signal: interrupt.signal,
    });
  } catch (error) {
    unhook();
    if (interrupt.signal.aborted) {
      process.stderr.write('check-templates: interrupted while the real tier started; it is stopped\n');
      process.exit(130);
    }
    // That tier judges as well: the run can go there instead of waiting for it to stop.
    if (error instanceof ClusterError && error.message.includes('another npm run cluster is running'))
      throw new ClusterError(`${error.message}, or check on it: --kubeconfig FILE --round-trip`, {
        cause: error,
      });
    throw error;
  }
  const stopTier = once(async () => {
    await cluster.stop();
    await rm(kubeconfig, { force: true });
  });
  stop = stopTier;
  // A Ctrl-C the start no longer looked at: the tier came up all the same, and is stopped now.
  if (interrupt.signal.aborted) {
    await stopTier();
    process.stderr.write('check-templates: interrupted; the real tier is stopped\n');
    process.exit(130);
  }
  try {
    // The tier bootstraps its test namespaces; another one the run names is made for it.
    if (!TEST_NAMESPACES.includes(namespace))
      await applyObjects(cluster.admin, [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      ]);
    await cluster.writeKubeconfig(kubeconfig);
    const target = await kubeconfigTarget(kubeconfig, true);
    const close = once(async () => {
      try {
        await target.close();
      } finally {
        await stopTier();
        unhook();
      }
    });
    stop = close;
    return {
      ...target,
      describe: `the real tier at ${cluster.url}, started for this run and stopped after it`,
      close,
    };
  } catch (error) {
    await stopTier();
    unhook();
    throw error instanceof ClusterError ? error : new ClusterError(describe(error), { cause: error });
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
