// Exec credential plugins for the tests: a small Node.js script that behaves, run after run, as
// it is told (answer, answer slowly, fail, hang), and logs each run (its pid, what client-go's
// rules hand it) so a test can count runs and check that a stopped one is dead.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeconfigObject, Simulator } from '../simulator/index.ts';

/** One run's behaviour; the last one is repeated once they are used up. */
export type PluginRun =
  { token: string; expires?: string; delayMs?: number } | { fail: string; delayMs?: number } | { hang: true };

export interface LoggedRun {
  pid: number;
  info: string | undefined;
  extra: string | undefined;
}

export interface TestPlugin {
  /** The kubeconfig `exec` stanza that runs this plugin. */
  exec: Record<string, unknown>;
  runs(): LoggedRun[];
  /** Kills what is still running (a test that failed must not leave a hung plugin behind). */
  killAll(): void;
}

const SCRIPT = `import { appendFileSync, existsSync, readFileSync } from 'node:fs';
const [behaviours, log] = process.argv.slice(2);
const all = JSON.parse(readFileSync(behaviours, 'utf8'));
const n = existsSync(log) ? readFileSync(log, 'utf8').split('\\n').filter(Boolean).length : 0;
appendFileSync(log, JSON.stringify({ pid: process.pid, info: process.env.KUBERNETES_EXEC_INFO, extra: process.env.OTS_PLUGIN_EXTRA }) + '\\n');
const run = all[Math.min(n, all.length - 1)];
if (run.hang) setInterval(() => {}, 1000);
else setTimeout(() => {
  if (run.fail) { process.stderr.write(run.fail); process.exit(1); }
  const status = { token: run.token, ...(run.expires ? { expirationTimestamp: run.expires } : {}) };
  process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));
}, run.delayMs ?? 0);
`;

export const EXPIRED = '2000-01-01T00:00:00Z';
export const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString();

/** Writes a plugin that behaves as `behaviours` say, one entry per run. */
export async function testPlugin(
  dir: string,
  name: string,
  behaviours: PluginRun[],
  exec: Record<string, unknown> = {},
): Promise<TestPlugin> {
  const script = join(dir, 'plugin.mjs');
  if (!existsSync(script)) await writeFile(script, SCRIPT);
  const state = join(dir, `${name}.json`);
  const log = join(dir, `${name}.log`);
  await writeFile(state, JSON.stringify(behaviours));
  appendFileSync(log, '');
  const runs = (): LoggedRun[] =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LoggedRun);
  return {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [script, state, log],
      interactiveMode: 'Never',
      ...exec,
    },
    runs,
    killAll: () => {
      for (const { pid } of runs()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A kubeconfig for the simulator whose only user gets its credentials from `exec`. */
export async function pluginKubeconfig(
  sim: Simulator,
  dir: string,
  name: string,
  exec: Record<string, unknown>,
): Promise<string> {
  const config: KubeconfigObject = sim.kubeconfig;
  for (const context of config.contexts) context.context.user = name;
  const path = join(dir, `${name}.kubeconfig.json`);
  await writeFile(path, JSON.stringify({ ...config, users: [{ name, user: { exec } }] }), { mode: 0o600 });
  return path;
}
