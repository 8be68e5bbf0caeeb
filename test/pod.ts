// Runs a script as if in a pod: a private mount namespace where the ServiceAccount token and CA
// sit at the real /var/run/secrets/kubernetes.io/serviceaccount paths. Root gets a plain mount
// namespace; any other user an unprivileged user namespace that maps it to root inside (unshare -r).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Simulator } from '../simulator/index.ts';

const run = promisify(execFile);

export async function runInPod(
  sim: Simulator,
  token: string,
  script: string,
  node: string = process.execPath,
): Promise<string> {
  const root = process.getuid?.() === 0;
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
      `exec "${node}" "${script}"`,
    ].join('\n');
    const namespaces = root ? ['--mount'] : ['--user', '--map-root-user', '--mount'];
    const { stdout } = await run('unshare', [...namespaces, '--propagation', 'private', 'sh', '-c', shell], {
      env: {
        ...process.env,
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: new URL(sim.url).port,
        KUBECONFIG: '',
      },
    });
    return stdout;
  } catch (error) {
    throw new Error(
      `could not run a script in a private mount namespace (unshare ${root ? '--mount' : '--user --map-root-user --mount'}); ` +
        'the kernel must allow unprivileged user namespaces for non-root users',
      { cause: error },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
