// The live suite's own guarantees, against an in-process simulator: it refuses to run without an
// explicit kubeconfig or context, and a check that fails mid-suite still leaves nothing behind.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { harness, type Harness } from './helpers.ts';
import { limitedRules } from '../simulator/seed.ts';

const run = promisify(execFile);
let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.sim.addToken('limited-token', { user: 'limited', rules: limitedRules() });
  await h.sim.writeKubeconfig(h.kubeconfig);
});
afterAll(async () => {
  await h.close();
});

async function live(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/live.ts', ...args], {
      env: { ...process.env, OTS_LIVE_KUBECONFIG: '', OTS_LIVE_CONTEXT: '', ...extraEnv },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, out: (failed.stdout ?? '') + (failed.stderr ?? '') };
  }
}

test('refuses to run without an explicit kubeconfig or context, even with KUBECONFIG set', async () => {
  const before = h.sim.log.length;
  const result = await live(['--namespace', 'workers'], { KUBECONFIG: h.kubeconfig });
  expect(result.code).toBe(2);
  expect(result.out).toContain('refusing to run without an explicit --kubeconfig PATH or --context NAME');
  expect(h.sim.log.length).toBe(before);
});

test('a check that fails mid-suite still leaves no object behind', async () => {
  const before = h.sim.objectCount();
  const result = await live(
    [
      '--kubeconfig',
      h.kubeconfig,
      '--namespace',
      'workers',
      '--template-namespace',
      'infra',
      '--limited-context',
      'limited',
      '--prefix',
      'ots-live-forced',
    ],
    { OTS_LIVE_FORCE_FAILURE: 'conflict' },
  );
  expect(result.code).toBe(1);
  expect(result.out).toContain(
    '| a field conflict with a second field manager is surfaced and not forced | failed | forced failure in "conflict"',
  );
  expect(result.out).toContain('| cleanup | passed | nothing left behind |');
  expect(result.out).toMatch(/live: 15 passed, 1 failed, 0 skipped/);
  // The run created Templates, ConfigMaps, Secrets and VMs; every one of them is gone again.
  expect(h.sim.mutations().some((e) => e.path.includes('ots-live-forced'))).toBe(true);
  expect(h.sim.objectCount()).toBe(before);
}, 120_000);
