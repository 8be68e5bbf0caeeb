// The fault matrix's credential-plugin rows: an exec plugin that hangs, fails or is slow when the
// Template GET needs a fresh credential, and 20 jobs waiting on one run. Each row asserts the
// documented error, that nothing reached the server while no credential was there, how often the
// plugin ran, that a plugin the library stopped is dead, the Connection usable afterwards and no
// socket left open after close().
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { settles, WORKER } from '../helpers.ts';
import { alive, EXPIRED, inAnHour, pluginKubeconfig, type PluginRun, testPlugin } from '../plugins.ts';
import { type MatrixRow, report } from './report.ts';

// Under the sentinel run the plugin hands out the sentinel token, so its stdout is checked too.
const TOKEN = process.env.OTS_SENTINEL_TOKEN ?? 'matrix-plugin-token-0c4e8a61';
const PARAMS = { VM_NAME: 'fp', API_KEY: process.env.OTS_SENTINEL_PARAM ?? 'matrix-api-key' };
const STEP = 'template GET (exec plugin)';
const LIMITS = { connect: 2_000, read: 300 };

interface PluginFault {
  name: string;
  /** The plugin's run after the one at connect (whose credential has expired by then). */
  run: PluginRun;
  jobs: number;
  timeout: { connect: number; read: number };
  expect: 'success' | 'TimeoutError' | 'RequestError';
}
const FAULTS: PluginFault[] = [
  { name: 'plugin hangs', run: { hang: true }, jobs: 1, timeout: LIMITS, expect: 'TimeoutError' },
  {
    name: 'plugin fails',
    run: { fail: 'token endpoint answered 503' },
    jobs: 1,
    timeout: LIMITS,
    expect: 'RequestError',
  },
  {
    // Slower than the read limit: the wait is bounded by connect + read, as the request is.
    name: 'plugin slow (1 s, read limit 300 ms)',
    run: { token: TOKEN, expires: inAnHour(), delayMs: 1_000 },
    jobs: 1,
    timeout: { connect: 5_000, read: 300 },
    expect: 'success',
  },
  {
    // The run as slow as the read limit, as above; a limit of 1 s, since each job's pre-flight puts
    // its dry runs in flight at once (60 for 20 jobs), which a busy machine answers in over 300 ms.
    name: '20 waiters share one run',
    run: { token: TOKEN, expires: inAnHour(), delayMs: 1_000 },
    jobs: 20,
    timeout: { connect: 5_000, read: 1_000 },
    expect: 'success',
  },
];

let sim: Simulator;
let dir: string;
const rows: MatrixRow[] = [];
beforeAll(async () => {
  sim = await startSimulator();
  sim.addToken(TOKEN, { user: 'plugin-user' });
  dir = await mkdtemp(join(tmpdir(), 'ots-plugin-matrix-'));
});
afterAll(async () => {
  report('credential-plugins', rows);
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('fault matrix: credential plugins', () => {
  test.each(FAULTS.map((f) => [f.name, f] as const))('%s', async (_name, fault) => {
    const plugin = await testPlugin(dir, `matrix-${rows.length}`, [
      { token: TOKEN, expires: EXPIRED },
      fault.run,
      { token: TOKEN, expires: inAnHour() },
    ]);
    onTestFinished(() => {
      plugin.killAll();
    });
    const kubeconfig = await pluginKubeconfig(sim, dir, `matrix-${rows.length}`, plugin.exec);
    // connect() keeps the default limits: its own plugin run must not race a busy machine.
    const api = await ocp.connect({ kubeconfig });
    onTestFinished(() => api.close());
    sim.clearLog();
    const jobs = Array.from({ length: fault.jobs }, (_, i) =>
      ocp.create(
        'worker-template',
        { ...PARAMS, VM_NAME: `fp${i}` },
        { ...WORKER, api, requestTimeout: fault.timeout },
      ),
    );
    const settled = await Promise.allSettled(jobs);
    const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const error = failures[0];
    if (process.env.OTS_PRINT_ERRORS && error !== undefined) console.log(inspect(error, { depth: 8 }));
    const requests = sim.log.length;
    if (fault.expect === 'success') {
      expect(failures).toEqual([]);
      // Each object's pre-flight dry run, then its write.
      const patches = sim.mutations().filter((e) => e.method === 'PATCH');
      expect(patches.filter((e) => e.query.dryRun === 'All')).toHaveLength(3 * fault.jobs);
      expect(patches.filter((e) => e.query.dryRun === undefined)).toHaveLength(3 * fault.jobs);
    } else {
      expect(failures).toHaveLength(fault.jobs);
      expect(error).toBeInstanceOf(ocp.RequestError);
      expect((error as ocp.RequestError).name).toBe(fault.expect);
      expect((error as Error).message).toMatch(/^Get Template "worker-template" in namespace "infra": /);
      expect((error as Error).message).toMatch(
        /before the request was sent: the exec|nothing was sent: exec/,
      );
      expect(requests).toBe(0);
      // The server saw nothing: every failure says so, whatever ended the wait.
      for (const failure of failures)
        expect([(failure as ocp.RequestError).code, (failure as ocp.RequestError).outcome]).toEqual([
          fault.expect === 'TimeoutError' ? 'OTC_TIMEOUT' : 'OTC_CREDENTIALS',
          'not-sent',
        ]);
    }
    const runs = plugin.runs();
    expect(runs).toHaveLength(2);
    const stopped = runs[1]?.pid ?? 0;
    const dead = (await settles(() => alive(stopped), false)) ? 'no' : 'yes';
    expect(dead).toBe('yes');

    // The next request runs the plugin again and the Connection works.
    const objects = await ocp.process('worker-template', PARAMS, { ...WORKER, api });
    expect(objects).toHaveLength(3);
    await api.close();
    const open = await settles(() => sim.stats().openSockets, 0);
    expect(open).toBe(0);
    rows.push({
      step: STEP,
      fault: fault.name,
      outcome:
        error instanceof ocp.RequestError
          ? `RequestError → ${error.name} ${error.code}, ${error.outcome}`
          : 'success',
      message: error instanceof Error ? error.message.replace(/"[^"]*\/node"/, '"node"') : '',
      attempts: `${requests}`,
      accounted: `${fault.jobs} job${fault.jobs === 1 ? '' : 's'}, ${runs.length - 1} plugin run after connect; that run's process gone afterwards: ${dead}`,
      usable: 'yes',
      sockets: `${open}`,
    });
  });
});
