// kubectl v1.34 meets the simulator's typing as it meets a cluster's: `apply --server-side` of an
// object its schema refuses fails with the server's message, and `create -f`, which asks for
// `fieldValidation=Strict` when the server's /openapi/v3 says it supports it (kubectl's
// --validate=true default), fails with the strict decoding error.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type KubectlBench, startKubectlBench } from './kubectl.ts';

let bench: KubectlBench;
beforeAll(async () => {
  bench = await startKubectlBench('kubectl-typing-');
}, 120_000);
afterAll(() => bench.close());

const deployment = (name: string, containerExtra: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: workers
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: redis
          image: img
${containerExtra}`;

test('apply --server-side of a container with `capabilities` fails with the typed-patch error', async () => {
  const file = join(bench.dir, 'redis.yaml');
  await writeFile(file, deployment('redis', '          capabilities: {}\n'));
  const applied = await bench.kube('apply', '--server-side', '-f', file);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    'failed to create typed patch object (workers/redis; apps/v1, Kind=Deployment): ' +
      '.spec.template.spec.containers[name="redis"].capabilities: field not declared in schema',
  );
  expect(bench.sim.getObject('apps/v1', 'Deployment', 'workers', 'redis')).toBeUndefined();
  const patch = bench.sim.log.find((e) => e.method === 'PATCH');
  expect([patch?.status, patch?.contentType]).toEqual([500, 'application/apply-patch+yaml']);
});

test('create -f of an unknown field fails with the strict decoding error, nothing stored', async () => {
  const file = join(bench.dir, 'typo.yaml');
  await writeFile(file, deployment('typo', '          imagePullPolcy: Always\n'));
  bench.sim.clearLog();
  const created = await bench.kube('create', '-f', file);
  expect(created.code).not.toBe(0);
  expect(created.stderr).toContain(
    'Error from server (BadRequest): error when creating "' +
      file +
      '": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ' +
      'unknown field "spec.template.spec.containers[0].imagePullPolcy"',
  );
  const post = bench.sim.log.find((e) => e.method === 'POST');
  expect([post?.status, post?.query.fieldValidation]).toEqual([400, 'Strict']);
  expect(bench.sim.getObject('apps/v1', 'Deployment', 'workers', 'typo')).toBeUndefined();
});
