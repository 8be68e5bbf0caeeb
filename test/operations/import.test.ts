// Importing the package authenticates nothing, contacts nothing and writes nothing.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { harness, type Harness } from '../helpers.ts';

const run = promisify(execFile);
let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

test('import makes no request and writes no file, even with a kubeconfig at hand', async () => {
  const home = await mkdtemp(join(tmpdir(), 'ots-import-'));
  try {
    h.sim.clearLog();
    const entry = resolve('src/index.ts');
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(entry)}); console.log(Object.keys(m).sort().join(','));`,
      ],
      { cwd: home, env: { ...process.env, HOME: home, KUBECONFIG: h.kubeconfig, TMPDIR: home } },
    );
    expect(stdout.trim()).toBe(
      'OperationError,RequestError,ValidationError,connect,create,delete,get,process',
    );
    expect(await readdir(home)).toEqual([]);
    expect(h.sim.log).toHaveLength(0);
    expect(h.sim.stats().connections).toBe(0);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
