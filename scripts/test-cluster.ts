// `npm run test:cluster [-- --openshift-apiserver-source PATH | --openshift=simulator]`: the real
// tier end to end. Starts `npm run cluster`'s control plane with the real openshift-apiserver, then
// runs on it the live suite, every published Template under each fieldValidation mode (when
// ../shared/corpus is beside the clone, as for .ci/run), and the tests of test/cluster (the
// simulator held to the real servers, the tier's own faults); then a second tier with the simulator
// as openshift-apiserver for the tests about its own seams (`*.simulator-tier.test.ts`). Stops
// each, and exits non-zero when any part failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ClusterError, findGo, REPOSITORY } from './cluster/build.ts';
import { chooseBackend, type OpenshiftBackend } from './cluster/openshift-build.ts';
import { type Cluster, startCluster } from './cluster/run.ts';

const go = findGo();
if (!go.ok) {
  process.stderr.write(`test:cluster: ${go.why}; npm test and npm run demo need no Go\n`);
  process.exit(1);
}

let backend: OpenshiftBackend;
try {
  const { values } = parseArgs({
    options: { 'openshift-apiserver-source': { type: 'string' }, openshift: { type: 'string' } },
  });
  backend = chooseBackend(values.openshift, values['openshift-apiserver-source']);
} catch (error) {
  process.stderr.write(
    `test:cluster: ${error instanceof Error ? error.message.replace(/^cluster: /, '') : String(error)}\n`,
  );
  process.exit(2);
}

const corpus = join(REPOSITORY, '..', 'shared', 'corpus');
const dir = mkdtempSync(join(tmpdir(), 'otc-cluster-'));
const kubeconfig = join(dir, 'kubeconfig.json');
const node = process.execPath;
const failed: string[] = [];

/** Runs one part in a child; never synchronously, since this process serves the simulator. */
async function step(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  process.stdout.write(`\ntest:cluster: ${name}\n`);
  const child = spawn(node, args, { cwd: REPOSITORY, stdio: 'inherit', env: { ...process.env, ...env } });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on('exit', (exitCode, exitSignal) => {
      resolve([exitCode, exitSignal]);
    });
  });
  if (code !== 0) failed.push(`${name} (exit ${code ?? signal ?? '?'})`);
}

const started = Date.now();

async function start(openshift: OpenshiftBackend): Promise<Cluster> {
  try {
    return await startCluster({ openshift });
  } catch (error) {
    if (error instanceof ClusterError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const vitest = join('node_modules', 'vitest', 'vitest.mjs');
let cluster = await start(backend);
try {
  await cluster.writeKubeconfig(kubeconfig);
  process.stdout.write(
    `test:cluster: ${cluster.url} ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  await step('the live suite', [
    'scripts/live.ts',
    '--kubeconfig',
    kubeconfig,
    '--namespace',
    'workers',
    '--template-namespace',
    'infra',
    '--limited-context',
    'limited',
  ]);
  if (existsSync(corpus)) {
    for (const mode of ['Strict', 'Warn', 'Ignore']) {
      await step(`published Templates, fieldValidation ${mode}`, [
        'scripts/check-templates.ts',
        corpus,
        '--param',
        'APPLICATION_USER=tester',
        '--field-validation',
        mode,
        '--expect',
        'test/fixtures/published-templates.expect.json',
        '--kubeconfig',
        kubeconfig,
        '--round-trip',
      ]);
    }
  } else {
    process.stdout.write(`test:cluster: no ${corpus}: the published-Templates check is skipped\n`);
  }
  await step(
    `test/cluster (fidelity, faults) on ${cluster.backend}`,
    [vitest, 'run', '--config', 'vitest.cluster.config.ts'],
    {
      OTS_CLUSTER_KUBECONFIG: kubeconfig,
      ...(existsSync(corpus) ? { OTS_CORPUS: corpus } : {}),
      // faults.test.ts starts tiers of its own with the same openshift-apiserver.
      ...(backend.kind === 'openshift-apiserver' ? { OPENSHIFT_APISERVER_SOURCE: backend.source } : {}),
    },
  );
  if (cluster.backend !== 'simulator') {
    // The simulator's own seams, on a tier that runs it as openshift-apiserver.
    await cluster.stop();
    cluster = await start({ kind: 'simulator' });
    await cluster.writeKubeconfig(kubeconfig);
    await step(
      'test/cluster/*.simulator-tier.test.ts on the simulator',
      [vitest, 'run', '--config', 'vitest.cluster.config.ts', 'simulator-tier'],
      { OTS_CLUSTER_KUBECONFIG: kubeconfig },
    );
  }
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(
  failed.length === 0
    ? `\ntest:cluster: every part passed (${((Date.now() - started) / 1000).toFixed(0)} s)\n`
    : `\ntest:cluster: failed: ${failed.join('; ')}\n`,
);
process.exit(failed.length === 0 ? 0 : 1);
