// The npm scripts as users run them: `npm run simulator`'s command line (usage, a wrong flag), and
// process hygiene: stopping `npm run simulator` by PID stops everything it started.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { USAGE } from '../simulator/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ots-scripts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** PIDs of live processes whose command line mentions `marker`. */
async function processesMentioning(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

async function until(check: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

test.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
  'killing `npm run simulator` by PID with %s leaves no process and no listening port',
  async (signal) => {
    const kubeconfig = join(dir, `kubeconfig-${signal}.json`);
    const npm = spawn('npm', ['run', 'simulator', '--', '--kubeconfig-out', kubeconfig], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => {
      npm.once('exit', () => {
        resolve();
      });
    });
    expect(await until(() => Promise.resolve(existsSync(kubeconfig)), 30_000)).toBe(true);
    const config = JSON.parse(await readFile(kubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
    };
    const port = Number(new URL(config.clusters[0]?.cluster.server ?? '').port);
    expect(await listening(port)).toBe(true);
    expect((await processesMentioning(kubeconfig)).length).toBeGreaterThan(1);

    npm.kill(signal);
    await exited;
    expect(await until(async () => (await processesMentioning(kubeconfig)).length === 0, 10_000)).toBe(true);
    expect(await listening(port)).toBe(false);
  },
  60_000,
);

/** Runs `npm run simulator -- ...args` to its end; stderr without with-node's own line. */
function simulatorCommand(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const npm = spawn('npm', ['run', '--silent', 'simulator', '--', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  npm.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  npm.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    npm.once('close', (code) => {
      resolve({ code, stdout, stderr: stderr.replace(/^with-node: .*\n/gm, '') });
    });
  });
}

test('`npm run simulator -- --help` prints the usage with every flag and exits 0', async () => {
  const help = await simulatorCommand(['--help']);
  expect(help).toEqual({ code: 0, stdout: USAGE, stderr: '' });
  for (const flag of ['--kubeconfig-out FILE', '--port N', '--latency-ms N', '-h, --help'])
    expect(USAGE).toContain(flag);
}, 60_000);

test.each([
  [['--bogus'], "Unknown option '--bogus'"],
  [['--port'], "Option '--port <value>' argument missing"],
  [['--port', 'eighty'], '--port must be a whole number from 0 to 65535, not "eighty"'],
  [['extra'], "Unexpected argument 'extra'"],
])(
  '`npm run simulator -- %s`: one line naming the problem, then the usage; exit code 2',
  async (args, line) => {
    const wrong = await simulatorCommand(args);
    expect(wrong).toEqual({ code: 2, stdout: '', stderr: `simulator: ${line}\n\n${USAGE}` });
  },
  60_000,
);
