// #43 item 2: the tier's servers say their version, stamped at build from the one place each is
// decided (test/cluster/go.mod's k8s.io/kubernetes; test/cluster/data/openshift-apiserver.json),
// kubectl v1.34 parses kube-apiserver's, and the simulator's /version says what the tier's says.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { currentContext } from '../../scripts/cluster/kube.ts';
import { OPENSHIFT_PIN } from '../../scripts/cluster/openshift-build.ts';
import { versionInfo } from '../../simulator/discovery/answers.ts';
import { kubernetesVersion } from '../../simulator/discovery/version.ts';
import { kubectlPath, runKubectl } from '../conformance/kubectl.ts';
import { backendOf } from './backend.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

/** A GET of the backend's own port (TLS unverified: the test reads, it does not trust). */
function direct(port: number, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!clusterKubeconfig)('the tier says its versions', () => {
  const tier = currentContext(clusterKubeconfig ?? '');
  afterAll(() => {
    tier.client.close();
  });

  test("kube-apiserver's /version is go.mod's, and the simulator says the same", async () => {
    const answer = await tier.client.send('GET', '/version');
    expect(answer.status).toBe(200);
    const real = answer.body as Record<string, string>;
    expect(real.gitVersion).toBe(kubernetesVersion().gitVersion);
    const { buildDate: _a, goVersion: _b, ...decided } = real;
    const { buildDate: _c, goVersion: _d, ...simulated } = versionInfo();
    expect(simulated).toEqual(decided);
  });

  test('kubectl v1.34 parses it', async () => {
    kubectlPath();
    const dir = await mkdtemp(join(tmpdir(), 'tier-version-'));
    try {
      await copyFile(clusterKubeconfig ?? '', join(dir, 'kubeconfig'));
      const result = await runKubectl(dir, ['version', '-o', 'json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const server = (JSON.parse(result.stdout) as { serverVersion: { gitVersion: string } }).serverVersion;
      expect(server.gitVersion).toBe(kubernetesVersion().gitVersion);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test.skipIf(backendOf(clusterKubeconfig)?.backend !== 'openshift-apiserver')(
    "openshift-apiserver's /version is the pinned one",
    async () => {
      const apiService = await tier.client.send(
        'GET',
        '/apis/apiregistration.k8s.io/v1/apiservices/v1.template.openshift.io',
      );
      const port = (apiService.body as { spec: { service: { port: number } } }).spec.service.port;
      const answer = await direct(port, '/version');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        gitVersion: OPENSHIFT_PIN.version,
        gitCommit: OPENSHIFT_PIN.commit.slice(0, 9),
        major: OPENSHIFT_PIN.version.replace(/^v/, '').split('.')[0],
      });
    },
  );
});
