// kubectl v1.34's `explain` reads /openapi/v3 (the root, then one document by its hash URL) and
// prints the fields and types a cluster's schema declares; descriptions are not served, so each
// reads "<no description>" where a cluster prints upstream's sentences.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { kubectlPath } from './kubectl.ts';

const run = promisify(execFile);

let sim: Simulator;
let dir: string;
let kubectl: string;

beforeAll(async () => {
  kubectl = kubectlPath();
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'kubectl-explain-'));
  await sim.writeKubeconfig(join(dir, 'kubeconfig'));
}, 120_000);
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function explain(...args: string[]): Promise<string> {
  const env = { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
  const { stdout } = await run(kubectl, ['--cache-dir', join(dir, 'cache'), 'explain', ...args], { env });
  return stdout;
}

/** The `FIELDS:` lines kubectl prints: name, type and -required-, without the description lines. */
function fields(output: string): string[] {
  const [, list = ''] = output.split('FIELDS:\n');
  return list
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => line.trim().replace(/\t/g, ' '));
}

describe('kubectl v1.34 explain', () => {
  test('deployment.spec lists the fields and types a cluster lists, read from /openapi/v3 by hash', async () => {
    sim.clearLog();
    const output = await explain('deployment.spec');
    expect(output).toMatch(/^GROUP: +apps\nKIND: +Deployment\nVERSION: +v1\n\nFIELD: spec <DeploymentSpec>/);
    expect(fields(output)).toEqual([
      'minReadySeconds <integer>',
      'paused <boolean>',
      'progressDeadlineSeconds <integer>',
      'replicas <integer>',
      'revisionHistoryLimit <integer>',
      'selector <LabelSelector> -required-',
      'strategy <DeploymentStrategy>',
      'template <PodTemplateSpec> -required-',
    ]);
    const reads = sim.log.filter((e) => e.path.startsWith('/openapi/v3'));
    expect(reads.map((e) => [e.path, typeof e.query.hash, e.status])).toEqual([
      ['/openapi/v3', 'undefined', 200],
      ['/openapi/v3/apis/apps/v1', 'string', 200],
    ]);
  });

  test("a Template's objects are RawExtensions, and OpenShift and CRD kinds are explained too", async () => {
    expect(await explain('templates.objects')).toMatch(/^FIELD: objects <\[\]RawExtension>$/m);
    expect(fields(await explain('routes.spec'))).toContain('to <RouteTargetReference> -required-');
    expect(await explain('virtualmachines.spec.runStrategy')).toMatch(/^FIELD: runStrategy <string>$/m);
  });
});
