// The npm scripts' process hygiene: stopping `npm run simulator` by PID stops everything it started.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

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
