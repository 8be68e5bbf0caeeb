// #36 item 4 on the real tier, case by case against the simulator: quota that one object exceeds
// (the dry run's 403) and quota only the batch exceeds (each dry run passes: kube-apiserver checks
// quota per request and charges only real writes; the library's exact sum refuses it before any
// write, #42 item 10),
// a caller who may not list ResourceQuotas, and a validating webhook that denies (served here over
// HTTPS on loopback, named by a ValidatingWebhookConfiguration's url). No controller writes quota
// status on the tier, so each test writes it itself. The audit log, the real write log, shows
// nothing written where nothing should be. A webhook without dry-run support exists on the
// simulator only: admissionregistration.k8s.io/v1 refuses to create one (checked below).
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:https';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Identity, startSimulator, type Simulator } from '../../simulator/index.ts';
import { KubeClient } from '../../scripts/cluster/kube.ts';
import { IDENTITIES } from '../../scripts/cluster/identities.ts';
import {
  auditLogPath,
  clientFor,
  clusterKubeconfig,
  configMap,
  DENIAL,
  eventually,
  NAMESPACE,
  outcomeOf,
  startWebhook,
  template,
  THREE,
  WEBHOOK,
  webhookConfiguration,
  writtenSince,
} from './preflight-quota-helpers.ts';

describe.skipIf(clusterKubeconfig === '')('#36 item 4 on the real tier: quota and webhooks', () => {
  let sim: Simulator;
  let admin: KubeClient;
  let webhook: { server: Server; port: number; caCert: string };
  let auditLog: string;
  let mark: number;
  let dir: string;
  const real: Record<string, ocp.Connection> = {};
  const simulated: Record<string, ocp.Connection> = {};

  /** Deletes what the tests make, on both servers; a namespace stays (the tier never finishes deleting one). */
  async function cleanUp(): Promise<void> {
    for (const name of [...THREE, 'pfq-probe']) {
      await admin.send('DELETE', `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`);
      await admin.send('DELETE', `/api/v1/namespaces/${NAMESPACE}/secrets/${name}`);
    }
    for (const name of ['pfq-full', 'pfq-batch', 'pfq-unknown']) {
      const gone = await admin.send('DELETE', `/api/v1/namespaces/${NAMESPACE}/resourcequotas/${name}`);
      // Until kube-apiserver's quota admission no longer sees it, the next test would meet it.
      if (gone.status === 200)
        await eventually(`quota ${name} gone`, async () => !(await secretRefused(name)));
      if (sim.getObject('v1', 'ResourceQuota', NAMESPACE, name))
        await ocp.delete(
          template([{ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name } }]),
          {},
          { namespace: NAMESPACE, api: simulated.cluster, ownership: 'any' },
        );
    }
    for (const name of ['pfq-deny', 'pfq-legacy'])
      await admin.send(
        'DELETE',
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
      );
    await ocp.delete(
      template(THREE.map((n) => configMap(n))),
      {},
      { namespace: NAMESPACE, api: simulated.cluster, ownership: 'any' },
    );
    sim.clearWebhooks();
  }

  /** Whether a Secret's dry run is refused by this quota: whether quota admission sees it. */
  async function secretRefused(name: string): Promise<boolean> {
    const probe = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pfq-probe' } };
    const answer = await admin.send('POST', `/api/v1/namespaces/${NAMESPACE}/secrets?dryRun=All`, probe);
    return answer.status === 403 && answer.text.includes(`quota: ${name},`);
  }

  /**
   * A quota on both servers, its status written as a controller would. Every quota here also holds
   * `secrets: 0`, so a Secret's dry run tells when kube-apiserver's quota admission sees it.
   */
  async function quota(
    name: string,
    hard: Record<string, string>,
    used: Record<string, string>,
  ): Promise<void> {
    const status = { hard: { ...hard, secrets: '0' }, used: { ...used, secrets: '0' } };
    const path = `/api/v1/namespaces/${NAMESPACE}/resourcequotas`;
    const made = await admin.send('POST', path, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name },
      spec: { hard: status.hard },
    });
    expect(made.status).toBe(201);
    const written = await admin.send(
      'PATCH',
      `${path}/${name}/status`,
      { status },
      'application/merge-patch+json',
    );
    expect(written.status).toBe(200);
    sim.seed({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name, namespace: NAMESPACE },
      spec: { hard: status.hard },
    });
    sim.setStatus('v1', 'ResourceQuota', NAMESPACE, name, status);
    await eventually(`quota ${name} in force`, () => secretRefused(name));
  }

  const usedOnTier = async (name: string): Promise<unknown> =>
    (
      (await admin.send('GET', `/api/v1/namespaces/${NAMESPACE}/resourcequotas/${name}`)).body as {
        status?: { used?: unknown };
      }
    ).status?.used;
  const usedOnSim = (name: string): unknown =>
    (sim.getObject('v1', 'ResourceQuota', NAMESPACE, name)?.status as { used?: unknown } | undefined)?.used;
  const simWrites = (): string[] =>
    sim
      .mutations()
      .filter((e) => e.path.includes('/configmaps/') && e.query.dryRun === undefined && e.status < 400)
      .map((e) => e.path.split('/').at(-1) ?? '');

  beforeAll(async () => {
    const tokens: Record<string, Identity> = {};
    for (const identity of IDENTITIES.slice(1))
      tokens[`${identity.user}-token`] = {
        user: identity.user,
        ...(identity.rules ? { rules: identity.rules } : {}),
      };
    sim = await startSimulator({ tokens, namespaces: [NAMESPACE] });
    admin = clientFor('admin');
    const made = await admin.send('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NAMESPACE },
    });
    expect([201, 409]).toContain(made.status);
    webhook = await startWebhook();
    auditLog = auditLogPath();
    dir = await mkdtemp(join(tmpdir(), 'pfq-'));
    const simConfig = join(dir, 'kubeconfig.json');
    await sim.writeKubeconfig(simConfig);
    for (const context of ['cluster', 'limited']) {
      real[context] = await ocp.connect({ kubeconfig: clusterKubeconfig, context });
      simulated[context] = await ocp.connect({
        kubeconfig: simConfig,
        context: context === 'cluster' ? 'simulator' : context,
      });
    }
  });
  beforeEach(() => {
    mark = statSync(auditLog).size;
    sim.clearLog();
  });
  // Whatever a test made, even one that failed half-way, is gone before the next.
  afterEach(cleanUp);
  afterAll(async () => {
    await cleanUp();
    admin.close();
    await Promise.all([...Object.values(real), ...Object.values(simulated)].map((c) => c.close()));
    await new Promise((resolve) => webhook.server.close(resolve));
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('one object exceeds a quota: both servers refuse every dry run alike, nothing written, nothing charged', async () => {
    await quota('pfq-full', { configmaps: '2' }, { configmaps: '2' });
    const objects = THREE.map((n) => configMap(n));
    const [onTier, onSim] = [
      await outcomeOf(real.cluster, objects),
      await outcomeOf(simulated.cluster, objects),
    ];
    expect(onTier).toEqual({
      warnings: [],
      error: {
        operation: 'Preflight',
        resources: [],
        failures: THREE.map((n) => [
          n,
          403,
          `configmaps "${n}" is forbidden: exceeded quota: pfq-full, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`,
        ]),
      },
    });
    expect(onSim).toEqual(onTier);
    expect(writtenSince(auditLog, mark)).toEqual([]);
    expect(simWrites()).toEqual([]);
    expect(await usedOnTier('pfq-full')).toEqual({ configmaps: '2', secrets: '0' });
    expect(usedOnSim('pfq-full')).toEqual(await usedOnTier('pfq-full'));
  });

  test('only the batch exceeds a quota: refused in the pre-flight on both, nothing written, nothing charged', async () => {
    await quota('pfq-batch', { 'count/configmaps': '2' }, { 'count/configmaps': '0' });
    const objects = THREE.map((n) => configMap(n));
    const [onTier, onSim] = [
      await outcomeOf(real.cluster, objects),
      await outcomeOf(simulated.cluster, objects),
    ];
    // Each dry run passes (quota is checked per request and never charged by one): the library's
    // exact sum refuses, on the first object past the limit, with no answer of the server's.
    expect(onTier).toEqual({
      warnings: [],
      error: { operation: 'Preflight', resources: [], failures: [['pfq-3', undefined, '']] },
    });
    expect(onSim).toEqual(onTier);
    const error = await ocp.create(template(objects), {}, { namespace: NAMESPACE, api: real.cluster }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof ocp.OperationError))
      throw new Error('expected an OperationError', { cause: error });
    expect([error.code, error.outcome]).toEqual(['OTC_PREFLIGHT_REFUSED', 'refused']);
    const failure = error.failures[0]?.error;
    expect([failure?.code, failure?.outcome]).toEqual(['OTC_QUOTA_EXCEEDED', 'refused']);
    expect(failure?.message).toBe(
      'Apply ConfigMap "pfq-3" in namespace "pfq": ResourceQuota "pfq-batch" in namespace "pfq" is exceeded by the batch: ' +
        'count/configmaps needs 3 where 0 of 2 are used. This object is the first past the limit; nothing was written ' +
        '(each object passed its dry run: quota is checked per request and charged only on writes)',
    );
    expect(writtenSince(auditLog, mark)).toEqual([]);
    expect(simWrites()).toEqual([]);
    expect(await usedOnTier('pfq-batch')).toEqual({ 'count/configmaps': '0', secrets: '0' });
    expect(usedOnSim('pfq-batch')).toEqual(await usedOnTier('pfq-batch'));
  });

  test('the batch within the quota: written on both, and the writes alone charged', async () => {
    await quota('pfq-batch', { 'count/configmaps': '3' }, { 'count/configmaps': '0' });
    const objects = THREE.map((n) => configMap(n));
    const [onTier, onSim] = [
      await outcomeOf(real.cluster, objects),
      await outcomeOf(simulated.cluster, objects),
    ];
    expect(onTier).toEqual({ warnings: [], created: THREE });
    expect(onSim).toEqual(onTier);
    expect(writtenSince(auditLog, mark)).toEqual(THREE);
  });

  test('a quota whose usage is unknown: both servers refuse a dry run it covers alike', async () => {
    const hard = { configmaps: '5', 'count/configmaps': '5', secrets: '0' };
    const path = `/api/v1/namespaces/${NAMESPACE}/resourcequotas`;
    const body = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'pfq-unknown' },
      spec: { hard },
    };
    expect((await admin.send('POST', path, body)).status).toBe(201);
    const status = { status: { hard } };
    const written = await admin.send(
      'PATCH',
      `${path}/pfq-unknown/status`,
      status,
      'application/merge-patch+json',
    );
    expect(written.status).toBe(200);
    sim.seed({ ...body, metadata: { name: 'pfq-unknown', namespace: NAMESPACE } });
    sim.setStatus('v1', 'ResourceQuota', NAMESPACE, 'pfq-unknown', { hard });
    await eventually('quota pfq-unknown in force', () => secretRefused('pfq-unknown'));
    const dryRun = `/api/v1/namespaces/${NAMESPACE}/configmaps/pfq-1?fieldManager=probe&dryRun=All`;
    const simAdmin = new KubeClient(sim.url, sim.caCert, sim.token);
    try {
      const answers = await Promise.all(
        [admin, simAdmin].map((c) =>
          c.send('PATCH', dryRun, configMap('pfq-1'), 'application/apply-patch+yaml'),
        ),
      );
      const [fromTier, fromSim] = answers.map((a) => [a.status, (a.body as { message?: unknown }).message]);
      expect(fromTier).toEqual([
        403,
        'configmaps "pfq-1" is forbidden: status unknown for quota: pfq-unknown, resources: configmaps,count/configmaps',
      ]);
      expect(fromSim).toEqual(fromTier);
    } finally {
      simAdmin.close();
    }
  });

  test('a caller who may not list ResourceQuotas: one warning on both servers that the sum was not checked', async () => {
    const objects = THREE.map((n) => configMap(n));
    const [onTier, onSim] = [
      await outcomeOf(real.limited, objects),
      await outcomeOf(simulated.limited, objects),
    ];
    expect(onTier).toEqual({
      warnings: [
        'the batch\'s sum against the ResourceQuotas of namespace "pfq" was not checked: listing them answered 403 ' +
          '(list resourcequotas is optional; each object was still checked against quota by its own dry run)',
      ],
      created: THREE,
    });
    expect(onSim).toEqual(onTier);
    expect(writtenSince(auditLog, mark)).toEqual(THREE);
  });

  test('a webhook that denies one object: the same 400 from both servers, the wave refuses, nothing written', async () => {
    const made = await admin.send(
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      webhookConfiguration(webhook.port, webhook.caCert),
    );
    expect(made.status).toBe(201);
    sim.addWebhook({
      name: WEBHOOK,
      matches: (call) =>
        call.resource === 'configmaps' &&
        (call.object.metadata as { labels?: Record<string, string> }).labels?.pfq === 'checked',
      deny: () => DENIAL,
    });
    const checked = configMap('pfq-2', { pfq: 'checked' });
    const dryRun = `/api/v1/namespaces/${NAMESPACE}/configmaps/pfq-2?fieldManager=probe&dryRun=All`;
    await eventually(
      'the webhook called',
      async () => (await admin.send('PATCH', dryRun, checked, 'application/apply-patch+yaml')).status === 400,
    );
    const simAdmin = new KubeClient(sim.url, sim.caCert, sim.token);
    try {
      const answers = await Promise.all(
        [admin, simAdmin].map((c) => c.send('PATCH', dryRun, checked, 'application/apply-patch+yaml')),
      );
      const [fromTier, fromSim] = answers.map((a) => ({ code: a.status, body: a.body }));
      expect(fromTier).toEqual({
        code: 400,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `admission webhook "${WEBHOOK}" denied the request: ${DENIAL}`,
          code: 400,
        },
      });
      expect(fromSim).toEqual(fromTier);
    } finally {
      simAdmin.close();
    }
    mark = statSync(auditLog).size;
    const objects = [configMap('pfq-1'), checked, configMap('pfq-3')];
    const [onTier, onSim] = [
      await outcomeOf(real.cluster, objects),
      await outcomeOf(simulated.cluster, objects),
    ];
    expect(onTier).toEqual({
      warnings: [],
      error: {
        operation: 'Preflight',
        resources: [],
        failures: [['pfq-2', 400, `admission webhook "${WEBHOOK}" denied the request: ${DENIAL}`]],
      },
    });
    expect(onSim).toEqual(onTier);
    expect(writtenSince(auditLog, mark)).toEqual([]);
    expect(simWrites()).toEqual([]);
  });

  test('a webhook without dry-run support cannot be created through admissionregistration.k8s.io/v1', async () => {
    const answer = await admin.send(
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      webhookConfiguration(webhook.port, webhook.caCert, 'Unknown'),
    );
    expect(answer.status).toBe(422);
    expect(answer.text).toContain('Unsupported value: \\"Unknown\\"');
  });
});
