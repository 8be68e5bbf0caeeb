// `npm run test:cluster`: the real tier end to end. Starts `npm run cluster`'s control plane, then
// runs on it the live suite, every published Template under each fieldValidation mode (when
// ../shared/corpus is beside the clone, as for .ci/run), and the tests of test/cluster (the
// simulator held to the real server, the tier's own faults); stops it, and exits non-zero when any
// part failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterError, findGo, REPOSITORY } from './cluster/build.ts';
import { startCluster } from './cluster/run.ts';

const go = findGo();
if (!go.ok) {
  process.stderr.write(`test:cluster: ${go.why}; npm test and npm run demo need no Go\n`);
  process.exit(1);
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
let cluster;
try {
  cluster = await startCluster();
} catch (error) {
  if (error instanceof ClusterError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
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
    'test/cluster (fidelity, faults)',
    [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.cluster.config.ts'],
    { OTS_CLUSTER_KUBECONFIG: kubeconfig, ...(existsSync(corpus) ? { OTS_CORPUS: corpus } : {}) },
  );
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
