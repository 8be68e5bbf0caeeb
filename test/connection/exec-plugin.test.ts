// Exec credential plugins run by the library itself: a hung plugin is bounded by the request's
// limit, its signal and close() and is killed; concurrent requests after expiry share one run; a
// plugin gets what client-go hands it. Over HTTP/2 and HTTP/1.1 (the wait sits before the wire,
// and a plugin's client certificate decides what the transport opens).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { instance, rejection, settles, WORKER } from '../helpers.ts';
import { alive, EXPIRED, inAnHour, pluginKubeconfig, type PluginRun, testPlugin } from '../plugins.ts';

const TOKEN = 'exec-plugin-token-5d1c9e07b3a2';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ots-exec-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(['h2', 'http1'] as const)('over %s', (protocol) => {
  let sim: Simulator;
  let cases = 0;
  beforeAll(async () => {
    sim = await startSimulator({ protocol });
    sim.addToken(TOKEN, { user: 'plugin-user' });
  });
  afterAll(async () => {
    await sim.close();
  });

  /** A fresh plugin and a kubeconfig that uses it; the plugin is killed whatever the test did. */
  async function plugin(behaviours: PluginRun[], exec: Record<string, unknown> = {}) {
    const name = `${protocol}-${++cases}`;
    const made = await testPlugin(dir, name, behaviours, exec);
    onTestFinished(() => {
      made.killAll();
    });
    return { ...made, kubeconfig: await pluginKubeconfig(sim, dir, name, made.exec) };
  }

  test('a plugin that hangs is bounded by the request and killed; close() ends the wait and kills it', async () => {
    const hung = await plugin([{ token: TOKEN, expires: EXPIRED }, { hang: true }]);
    const api = await ocp.connect({ kubeconfig: hung.kubeconfig });
    onTestFinished(() => api.close());
    sim.clearLog();
    const timedOut = instance(
      await rejection(
        ocp.process(
          'worker-template',
          { VM_NAME: 'a' },
          {
            ...WORKER,
            api,
            requestTimeout: 1000,
            signal: AbortSignal.timeout(1500),
          },
        ),
      ),
      ocp.RequestError,
    );
    expect(timedOut.name).toBe('TimeoutError');
    expect([timedOut.code, timedOut.outcome]).toEqual(['OTC_TIMEOUT', 'not-sent']);
    expect(timedOut.message).toMatch(
      /^Get Template "worker-template" in namespace "infra": timed out before the request was sent: the exec credential plugin ".+" had not answered$/,
    );
    expect(sim.log).toHaveLength(0);
    const second = hung.runs()[1]?.pid ?? 0;
    expect(await settles(() => alive(second), false)).toBe(false);

    // Without a signal, the operation's own connect + read limit ends the wait.
    const limited = await rejection(
      ocp.process('worker-template', { VM_NAME: 'b' }, { ...WORKER, api, requestTimeout: 300 }),
    );
    expect(limited.name).toBe('TimeoutError');
    const limitedError = instance(limited, ocp.RequestError);
    expect([limitedError.code, limitedError.outcome]).toEqual(['OTC_TIMEOUT', 'not-sent']);
    expect(limited.message).toMatch(
      /: timed out after 600 ms \(this operation's requestTimeout, connect \+ read\) before the request was sent: the exec credential plugin ".+" had not answered$/,
    );

    // close() while a request waits with the Connection's own (long) limits.
    const waiting = rejection(ocp.process('worker-template', { VM_NAME: 'c' }, { ...WORKER, api }));
    expect(await settles(() => hung.runs().length, 4)).toBe(4);
    await api.close();
    const closed = instance(await waiting, ocp.RequestError);
    expect(closed.message).toMatch(
      /: the Connection was closed before the request was sent: the exec credential plugin ".+" had not answered$/,
    );
    // A scheduler acts on the code: close() was called, nothing was sent (README, Failures).
    expect([closed.code, closed.outcome]).toEqual(['OTC_CONNECTION_CLOSED', 'not-sent']);
    for (const { pid } of hung.runs()) expect(await settles(() => alive(pid), false)).toBe(false);
    expect(sim.log).toHaveLength(0);
  }, 30_000);

  test('20 concurrent jobs after expiry share one run; a failed run fails them all, the next tries again', async () => {
    const shared = await plugin([
      { token: TOKEN, expires: EXPIRED },
      { fail: 'the identity provider is down', delayMs: 300 },
      { token: TOKEN, expires: inAnHour(), delayMs: 300 },
    ]);
    const api = await ocp.connect({ kubeconfig: shared.kubeconfig });
    onTestFinished(() => api.close());
    const jobs = (from: number) =>
      Array.from({ length: 20 }, (_, i) =>
        ocp.process('worker-template', { VM_NAME: `w${from + i}` }, { ...WORKER, api }),
      );
    const failed = await Promise.allSettled(jobs(0));
    expect(shared.runs()).toHaveLength(2);
    const reasons = new Set(failed.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')));
    expect([...reasons]).toEqual([
      expect.stringMatching(
        /could not get credentials, so nothing was sent: exec credential plugin ".+" failed with exit code 1: the identity provider is down$/,
      ),
    ]);
    const done = await Promise.all(jobs(20));
    expect(done).toHaveLength(20);
    expect(shared.runs()).toHaveLength(3);
  }, 30_000);

  test("a failed run's stderr never shows a credential, one the Connection never held included", async () => {
    const fresh = 'fresh-token-the-connection-never-held-91f3';
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzY2hlZHVsZXIifQ.c2lnbmF0dXJlLXNhbXBsZQ';
    const leaky = await plugin([
      { token: TOKEN, expires: EXPIRED },
      { fail: `refresh failed; retry with Authorization: Bearer ${fresh} or id_token=${jwt}` },
    ]);
    const api = await ocp.connect({ kubeconfig: leaky.kubeconfig });
    onTestFinished(() => api.close());
    const failed = instance(
      await rejection(ocp.process('worker-template', { VM_NAME: 'x' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    expect(failed.message).toMatch(
      /retry with Authorization: Bearer \[redacted\] or id_token=\[redacted JWT\]$/,
    );
    for (const secret of [fresh, jwt, jwt.split('.')[1] ?? jwt])
      expect(`${failed.message}${failed.stack ?? ''}`).not.toContain(secret);
  });

  test('a 401 makes the next request run the plugin again, as client-go does after a refusal', async () => {
    const refreshed = await plugin([{ token: TOKEN, expires: inAnHour() }]);
    const api = await ocp.connect({ kubeconfig: refreshed.kubeconfig });
    onTestFinished(async () => {
      sim.clearFaults();
      await api.close();
    });
    sim.addFault({
      method: 'GET',
      path: /\/templates\/worker-template$/,
      nth: 1,
      action: { type: 'status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' },
    });
    const refused = instance(
      await rejection(ocp.process('worker-template', { VM_NAME: 'r' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    expect(refused.statusCode).toBe(401);
    expect(refreshed.runs()).toHaveLength(1);
    await ocp.process('worker-template', { VM_NAME: 'r' }, { ...WORKER, api });
    await ocp.process('worker-template', { VM_NAME: 's' }, { ...WORKER, api });
    expect(refreshed.runs()).toHaveLength(2);
  });

  test('a plugin gets KUBERNETES_EXEC_INFO, the env entries and the cluster, as client-go hands them', async () => {
    const told = await plugin([{ token: TOKEN, expires: inAnHour() }], {
      env: [{ name: 'OTS_PLUGIN_EXTRA', value: 'from the kubeconfig' }],
      provideClusterInfo: true,
    });
    const api = await ocp.connect({ kubeconfig: told.kubeconfig });
    await ocp.process('worker-template', { VM_NAME: 'i' }, { ...WORKER, api });
    await api.close();
    const [run] = told.runs();
    expect(told.runs()).toHaveLength(1);
    expect(run?.extra).toBe('from the kubeconfig');
    expect(JSON.parse(run?.info ?? '{}')).toEqual({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      spec: {
        interactive: false,
        cluster: {
          server: sim.url,
          'certificate-authority-data': Buffer.from(sim.caCert).toString('base64'),
        },
      },
    });
  });

  test('a missing plugin names its install hint; interactiveMode Always is refused before running', async () => {
    const missing = await plugin([], {
      command: join(dir, 'no-such-plugin'),
      installHint: 'install it with: brew install no-such-plugin',
    });
    const error = await rejection(ocp.connect({ kubeconfig: missing.kubeconfig }));
    expect(error.message).toMatch(
      /^Connect https:\S+: could not get credentials, so nothing was sent: exec credential plugin ".+no-such-plugin": executable not found; install it with: brew install no-such-plugin$/,
    );
    const always = await plugin([{ token: TOKEN }], { interactiveMode: 'Always' });
    const refused = await rejection(ocp.connect({ kubeconfig: always.kubeconfig }));
    expect(refused.message).toMatch(
      /interactiveMode is Always, but this library runs plugins without a terminal$/,
    );
    expect(always.runs()).toHaveLength(0);
  });
});
