// A client nobody here wrote, kubectl v1.34, against the simulator: apply --server-side, get,
// delete, a field-manager conflict, and explain, checked against what the server holds and serves.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import { type KubectlBench, type KubectlResult, startKubectlBench } from './kubectl.ts';

let bench: KubectlBench;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  bench = await startKubectlBench('kubectl-conformance-');
  ({ sim, dir } = bench);
}, 120_000);
afterAll(() => bench.close());

function kube(...args: string[]): Promise<KubectlResult> {
  return bench.kube(...args);
}

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: conf
  namespace: workers
data:
  mode: fast
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: workers
stringData:
  token: s3cr3t
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-a
  namespace: workers
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        devices: {}
        memory:
          guest: 1Gi
`;

describe('kubectl v1.34', () => {
  test('api-resources lists the OpenShift 4.x and Virtualization surface with names, short names and scope', async () => {
    const listed = await kube('api-resources', '--no-headers', '-o', 'wide');
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS [CATEGORIES]
    const find = (name: string, apiVersion: string): string[] | undefined =>
      rows.find((r) => r[0] === name && r.includes(apiVersion));
    for (const [name, apiVersion, namespaced, kind] of [
      ['configmaps', 'v1', 'true', 'ConfigMap'],
      ['persistentvolumeclaims', 'v1', 'true', 'PersistentVolumeClaim'],
      ['namespaces', 'v1', 'false', 'Namespace'],
      ['statefulsets', 'apps/v1', 'true', 'StatefulSet'],
      ['jobs', 'batch/v1', 'true', 'Job'],
      ['cronjobs', 'batch/v1', 'true', 'CronJob'],
      ['horizontalpodautoscalers', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler'],
      ['ingresses', 'networking.k8s.io/v1', 'true', 'Ingress'],
      ['networkpolicies', 'networking.k8s.io/v1', 'true', 'NetworkPolicy'],
      ['poddisruptionbudgets', 'policy/v1', 'true', 'PodDisruptionBudget'],
      ['rolebindings', 'rbac.authorization.k8s.io/v1', 'true', 'RoleBinding'],
      ['selfsubjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectAccessReview'],
      ['routes', 'route.openshift.io/v1', 'true', 'Route'],
      ['imagestreams', 'image.openshift.io/v1', 'true', 'ImageStream'],
      ['buildconfigs', 'build.openshift.io/v1', 'true', 'BuildConfig'],
      ['deploymentconfigs', 'apps.openshift.io/v1', 'true', 'DeploymentConfig'],
      ['rolebindings', 'authorization.openshift.io/v1', 'true', 'RoleBinding'],
      ['templates', 'template.openshift.io/v1', 'true', 'Template'],
      ['virtualmachines', 'kubevirt.io/v1', 'true', 'VirtualMachine'],
      ['datavolumes', 'cdi.kubevirt.io/v1beta1', 'true', 'DataVolume'],
      [
        'virtualmachineclusterinstancetypes',
        'instancetype.kubevirt.io/v1beta1',
        'false',
        'VirtualMachineClusterInstancetype',
      ],
      ['virtualmachinepreferences', 'instancetype.kubevirt.io/v1beta1', 'true', 'VirtualMachinePreference'],
      ['servicemonitors', 'monitoring.coreos.com/v1', 'true', 'ServiceMonitor'],
    ] as const) {
      const row = find(name, apiVersion);
      expect(row, `${name} in ${apiVersion}`).toBeDefined();
      const at = row?.indexOf(apiVersion) ?? -1;
      expect(row?.slice(at + 1, at + 3)).toEqual([namespaced, kind]);
    }
    expect(find('virtualmachines', 'kubevirt.io/v1')?.[1]).toBe('vm,vms');
    expect(find('deploymentconfigs', 'apps.openshift.io/v1')?.[1]).toBe('dc');
    // Subresources and create-only resources are not listed as resources of their own.
    expect(rows.some((r) => r[0]?.includes('/'))).toBe(false);
  });

  test('apply --server-side creates all three objects as kubectl asked', async () => {
    await writeFile(join(dir, 'objects.yaml'), MANIFEST);
    const applied = await kube('apply', '--server-side', '-f', join(dir, 'objects.yaml'));
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toEqual([
      'configmap/conf serverside-applied',
      'secret/creds serverside-applied',
      'virtualmachine.kubevirt.io/vm-a serverside-applied',
    ]);
    const conf = sim.getObject('v1', 'ConfigMap', 'workers', 'conf');
    expect(conf?.data).toEqual({ mode: 'fast' });
    expect(
      (conf?.metadata as { managedFields: { manager: string; operation: string }[] }).managedFields,
    ).toMatchObject([{ manager: 'kubectl', operation: 'Apply' }]);
    const creds = sim.getObject('v1', 'Secret', 'workers', 'creds');
    expect(creds?.data).toEqual({ token: Buffer.from('s3cr3t').toString('base64') });
    expect(creds?.stringData).toBeUndefined();
    expect(sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'vm-a')?.spec).toMatchObject({
      runStrategy: 'Halted',
    });
    const patches = sim.log.filter((e) => e.method === 'PATCH');
    expect(patches.map((e) => e.contentType)).toEqual(Array(3).fill('application/apply-patch+yaml'));
    expect(patches[0]?.query).toMatchObject({ fieldManager: 'kubectl', force: 'false' });
  });

  test('get -o json returns what the server holds', async () => {
    const got = await kube('get', 'virtualmachine', 'vm-a', '-n', 'workers', '-o', 'json');
    expect(got.code).toBe(0);
    const vm = JSON.parse(got.stdout) as { metadata: { uid: string }; status: unknown };
    expect(vm.metadata.uid).toBe(
      (sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'vm-a')?.metadata as { uid: string }).uid,
    );
    expect(vm.status).toEqual({ printableStatus: 'Stopped', ready: false });
    const template = await kube(
      'get',
      'templates.template.openshift.io',
      'worker-template',
      '-n',
      'infra',
      '-o',
      'json',
    );
    expect(JSON.parse(template.stdout)).toMatchObject({
      kind: 'Template',
      metadata: { name: 'worker-template' },
    });
  });

  test('a second field manager gets the 409 conflict, and nothing changes', async () => {
    await writeFile(join(dir, 'other.yaml'), MANIFEST.split('---')[0]?.replace('fast', 'slow') ?? '');
    const conflict = await kube(
      'apply',
      '--server-side',
      '--field-manager=other',
      '-f',
      join(dir, 'other.yaml'),
    );
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.mode');
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'conf')?.data).toEqual({ mode: 'fast' });
    const forced = await kube(
      'apply',
      '--server-side',
      '--field-manager=other',
      '--force-conflicts',
      '-f',
      join(dir, 'other.yaml'),
    );
    expect(forced.code).toBe(0);
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'conf')?.data).toEqual({ mode: 'slow' });
  });

  test('delete removes every object, and a second delete reports NotFound', async () => {
    const deleted = await kube('delete', '-f', join(dir, 'objects.yaml'));
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain('configmap "conf" deleted');
    expect(deleted.stdout).toContain('virtualmachine.kubevirt.io "vm-a" deleted');
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'conf')).toBeUndefined();
    expect(sim.getObject('v1', 'Secret', 'workers', 'creds')).toBeUndefined();
    expect(sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'vm-a')).toBeUndefined();
    const again = await kube('delete', 'configmap', 'conf', '-n', 'workers');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('Error from server (NotFound): configmaps "conf" not found');
  });
});

test('the standalone simulator writes a kubeconfig that kubectl can use', async () => {
  const kubeconfig = join(dir, 'standalone.json');
  const child = spawn(process.execPath, ['simulator/main.ts', '--kubeconfig-out', kubeconfig], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening on')) resolve();
      });
      child.once('exit', (code) => {
        reject(new Error(`simulator exited early with ${String(code)}`));
      });
    });
    const got = await kube(
      '--kubeconfig',
      kubeconfig,
      'get',
      'templates.template.openshift.io',
      '-n',
      'infra',
      '-o',
      'name',
    );
    expect(got.stdout.trim().split('\n').sort()).toEqual([
      'template.template.openshift.io/generated-template',
      'template.template.openshift.io/worker-template',
    ]);
  } finally {
    child.kill('SIGTERM');
  }
}, 60_000);

/** The `FIELDS:` lines `kubectl explain` prints: name, type and -required-, not the descriptions. */
function explainedFields(output: string): string[] {
  const [, list = ''] = output.split('FIELDS:\n');
  return list
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => line.trim().replace(/\t/g, ' '));
}

// explain reads /openapi/v3 (the root, then the group-version's document by its hash URL) and
// prints what a cluster's schema declares; no descriptions are served, so each reads
// "<no description>" where a cluster prints upstream's sentences.
describe('kubectl v1.34 explain', () => {
  test('deployment.spec lists the fields and types a cluster lists, read from /openapi/v3', async () => {
    sim.clearLog();
    const explained = await kube('explain', 'deployment.spec');
    expect(explained.stdout).toMatch(
      /^GROUP: +apps\nKIND: +Deployment\nVERSION: +v1\n\nFIELD: spec <DeploymentSpec>/,
    );
    expect(explainedFields(explained.stdout)).toEqual([
      'minReadySeconds <integer>',
      'paused <boolean>',
      'progressDeadlineSeconds <integer>',
      'replicas <integer>',
      'revisionHistoryLimit <integer>',
      'selector <LabelSelector> -required-',
      'strategy <DeploymentStrategy>',
      'template <PodTemplateSpec> -required-',
    ]);
    // The root is read again every time (no-cache); documents only by hash (immutable, cached).
    const reads = sim.log.filter((e) => e.path.startsWith('/openapi/v3'));
    expect(reads.some((e) => e.path === '/openapi/v3' && [200, 304].includes(e.status))).toBe(true);
    for (const read of reads.filter((e) => e.path !== '/openapi/v3')) expect(read.query.hash).toBeDefined();
  });

  test("a Template's objects are RawExtensions; OpenShift and CRD kinds are explained too", async () => {
    expect((await kube('explain', 'templates.objects')).stdout).toMatch(
      /^FIELD: objects <\[\]RawExtension>$/m,
    );
    expect(explainedFields((await kube('explain', 'routes.spec')).stdout)).toContain(
      'to <RouteTargetReference> -required-',
    );
    expect((await kube('explain', 'virtualmachines.spec.runStrategy')).stdout).toMatch(
      /^FIELD: runStrategy <string>$/m,
    );
  });
});
