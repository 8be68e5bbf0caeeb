// Runs a script as if in a pod: a private mount namespace where the ServiceAccount token and CA
// sit at the real /var/run/secrets/kubernetes.io/serviceaccount paths (needs root and unshare).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Simulator } from '../simulator/index.ts';

const run = promisify(execFile);

export async function runInPod(sim: Simulator, token: string, script: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ots-pod-'));
  try {
    await writeFile(join(dir, 'token'), token);
    await writeFile(join(dir, 'ca.crt'), sim.caCert);
    await writeFile(join(dir, 'namespace'), 'workers');
    const shell = [
      'set -e',
      'mount -t tmpfs tmpfs /run',
      'mkdir -p /run/secrets/kubernetes.io/serviceaccount',
      `cp ${dir}/token ${dir}/ca.crt ${dir}/namespace /run/secrets/kubernetes.io/serviceaccount/`,
      `exec "${process.execPath}" "${script}"`,
    ].join('\n');
    // Mount namespaces need root; on a CI runner that is not root, sudo provides it.
    const root = process.getuid?.() === 0;
    const command = root ? 'unshare' : 'sudo';
    const args = ['--mount', '--propagation', 'private', 'sh', '-c', shell];
    const { stdout } = await run(command, root ? args : ['-n', '-E', 'unshare', ...args], {
      env: {
        ...process.env,
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: new URL(sim.url).port,
        KUBECONFIG: '',
      },
    });
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
