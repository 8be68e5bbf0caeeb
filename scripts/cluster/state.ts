// One control plane at a time per clone: a lock file naming the running script's pid, and a data
// directory per run. A run that died (SIGKILL, a crash) leaves both; the next start removes them.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR, ClusterError } from './build.ts';

const LOCK = join(CACHE_DIR, 'lock');
const RUN_PREFIX = 'run-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockHolder(): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(LOCK, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock and makes this run's data directory, after removing what dead runs left. */
export function claimRun(): string {
  mkdirSync(CACHE_DIR, { recursive: true });
  const holder = lockHolder();
  if (holder !== undefined && holder !== process.pid && alive(holder))
    throw new ClusterError(
      `cluster: another npm run cluster is running (pid ${holder}); stop it first (Ctrl-C)`,
    );
  for (const entry of readdirSync(CACHE_DIR)) {
    if (!entry.startsWith(RUN_PREFIX)) continue;
    const pid = Number.parseInt(entry.slice(RUN_PREFIX.length), 10);
    if (!alive(pid)) rmSync(join(CACHE_DIR, entry), { recursive: true, force: true });
  }
  writeFileSync(LOCK, String(process.pid));
  const dir = join(CACHE_DIR, `${RUN_PREFIX}${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'etcd'), { recursive: true, mode: 0o700 });
  return dir;
}

/** Removes this run's data directory and its lock. */
export function releaseRun(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  if (lockHolder() === process.pid) rmSync(LOCK, { force: true });
}
