// What is the job's own (#42 items 0-4) on the real tier, kube-apiserver 1.34.4, with its audit log
// as the referee of what was written and deleted: the owner label marks every applied object (a
// bare ServiceAccount included, which gets no managedFields entry there), an object another
// manager made first is not taken over unless asked, one another manager declares too is
// relinquished, one another manager force-applies between the replay's read and its DELETE (held
// by the HTTP/2 relay in front of the tier) survives, and a replay under another manager's mark
// deletes nothing.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { auditLogPath, auditMark, clientFor, clusterKubeconfig } from './audit.ts';
import { type H2Relay, startH2Relay } from './h2-relay.ts';
import type { KubeClient } from '../../scripts/cluster/kube.ts';
import { instance, rejection } from '../helpers.ts';

const NAMESPACE = 'workers';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const LABEL = 'openshift-template-client/field-manager';

const template = (name: string, objects: unknown[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects,
});
const configMap = (name: string, data: Record<string, string> = { a: name }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

interface Event {
  verb: string;
  requestURI: string;
  objectRef?: { namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

/** What the audit log recorded for these names from `mark` on, reads and dry runs left out: `verb status`. */
function mutationsSince(mark: number, name: string): string[] {
  return readFileSync(auditLogPath())
    .subarray(mark)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Event)
    .filter((e) => e.objectRef?.namespace === NAMESPACE && e.objectRef.name === name)
    .filter((e) => !['get', 'list', 'watch'].includes(e.verb) && !e.requestURI.includes('dryRun=All'))
    .map((e) => `${e.verb} ${e.responseStatus?.code ?? 0}`);
}

describe.skipIf(clusterKubeconfig === '')('#42: what is the job own, on the real tier', () => {
  let admin: KubeClient;
  let api: ocp.Connection;
  const options = (): { namespace: string; api: ocp.Connection } => ({ namespace: NAMESPACE, api });
  const live = async (path: string) => (await admin.send('GET', path)).body as ocp.KubernetesObject;
  const applyAs = async (manager: string, name: string, data: Record<string, string>, force = false) => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data };
    const query = `fieldManager=${manager}${force ? '&force=true' : ''}`;
    const answer = await admin.send(
      'PATCH',
      `${CONFIGMAPS}/${name}?${query}`,
      body,
      'application/apply-patch+yaml',
    );
    expect(answer.status).toBeLessThan(300);
  };
  const names = ['own-t-account', 'own-t-config', 'own-t-taken', 'own-t-shared', 'own-t-race', 'own-t-wrong'];

  beforeAll(async () => {
    admin = clientFor('admin');
    api = await ocp.connect({ kubeconfig: clusterKubeconfig });
    for (const name of names) await admin.send('DELETE', `${CONFIGMAPS}/${name}`);
    await admin.send('DELETE', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/own-t-account`);
  });
  afterAll(async () => {
    await api.close();
    for (const name of names) await admin.send('DELETE', `${CONFIGMAPS}/${name}`);
    admin.close();
  });

  test('a bare ServiceAccount carries the label and a replay from a new process deletes it', async () => {
    const job = template('own-t-bare', [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'own-t-account' } },
      configMap('own-t-config'),
    ]);
    await ocp.create(job, {}, options());
    const account = await live(`/api/v1/namespaces/${NAMESPACE}/serviceaccounts/own-t-account`);
    expect(account.metadata?.labels).toEqual({ [LABEL]: 'mini-scheduler' });
    const mark = auditMark(auditLogPath());
    // A new Connection: a restarted scheduler with the same inputs and nothing saved.
    await using fresh = await ocp.connect({ kubeconfig: clusterKubeconfig });
    const replay = await ocp.delete(job, {}, { namespace: NAMESPACE, api: fresh });
    expect(replay.map((r) => [r.kind, r.deletion])).toEqual([
      ['ConfigMap', 'deleted'],
      ['ServiceAccount', 'deleted'],
    ]);
    expect(mutationsSince(mark, 'own-t-account')).toEqual(['delete 200']);
  });

  test('an object another manager made first: refused with nothing written; adopted, then relinquished', async () => {
    const made = await admin.send('POST', `${CONFIGMAPS}?fieldManager=kubectl-create`, {
      ...configMap('own-t-taken', { note: 'theirs' }),
      metadata: { name: 'own-t-taken', namespace: NAMESPACE },
    });
    expect(made.status).toBe(201);
    const job = template('own-t-taken', [configMap('own-t-taken')]);
    const mark = auditMark(auditLogPath());
    const error = instance(await rejection(ocp.create(job, {}, options())), ocp.OperationError);
    expect([error.operation, error.failures.map((f) => f.error.code)]).toEqual([
      'Preflight',
      ['OTC_NOT_ADOPTED'],
    ]);
    expect(mutationsSince(mark, 'own-t-taken')).toEqual([]);

    const refs = await ocp.create(job, {}, { ...options(), adopt: true, onWarning: () => undefined });
    expect(refs.map((r) => r.created)).toEqual([false]);
    const replay = await ocp.delete(job, {}, options());
    expect(replay.map((r) => [r.deletion, r.declarers])).toEqual([['relinquished', ['kubectl-create']]]);
    const kept = await live(`${CONFIGMAPS}/own-t-taken`);
    expect([kept.data, kept.metadata?.labels]).toEqual([{ note: 'theirs' }, undefined]);
    expect(mutationsSince(mark, 'own-t-taken')).toEqual(['patch 200', 'patch 200']);
  });

  test('an object another manager declares too is relinquished, not deleted', async () => {
    const job = template('own-t-shared', [configMap('own-t-shared')]);
    await ocp.create(job, {}, options());
    await applyAs('other-team', 'own-t-shared', { theirs: 'yes' });
    const mark = auditMark(auditLogPath());
    const replay = await ocp.delete(job, {}, options());
    expect(replay.map((r) => [r.deletion, r.declarers])).toEqual([['relinquished', ['other-team']]]);
    const kept = await live(`${CONFIGMAPS}/own-t-shared`);
    expect([kept.data, kept.metadata?.labels]).toEqual([{ theirs: 'yes' }, undefined]);
    expect(mutationsSince(mark, 'own-t-shared')).toEqual(['patch 200']);
  });

  test('a replay under another manager mark deletes nothing', async () => {
    const job = template('own-t-wrong', [configMap('own-t-wrong')]);
    await ocp.create(job, {}, { ...options(), fieldManager: 'my-scheduler' });
    const mark = auditMark(auditLogPath());
    const error = instance(await rejection(ocp.delete(job, {}, options())), ocp.OperationError);
    expect([error.code, error.outcome, error.resources]).toEqual(['OTC_WRONG_FIELD_MANAGER', 'not-sent', []]);
    expect(mutationsSince(mark, 'own-t-wrong')).toEqual([]);
    expect(
      (await ocp.delete(job, {}, { ...options(), fieldManager: 'my-scheduler' })).map((r) => r.deletion),
    ).toEqual(['deleted']);
  });

  describe('behind the HTTP/2 relay', () => {
    let relay: H2Relay;
    let relayed: ocp.Connection;
    let dir: string;
    beforeAll(async () => {
      const config = JSON.parse(readFileSync(clusterKubeconfig, 'utf8')) as {
        clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      };
      const cluster = config.clusters[0]?.cluster;
      if (!cluster) throw new Error(`${clusterKubeconfig}: no cluster`);
      const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
      relay = await startH2Relay(cluster.server, ca);
      cluster.server = relay.url;
      cluster['certificate-authority-data'] = Buffer.from(relay.caCert).toString('base64');
      dir = await mkdtemp(join(tmpdir(), 'otc-own-'));
      const kubeconfig = join(dir, 'kubeconfig.json');
      await writeFile(kubeconfig, JSON.stringify(config), { mode: 0o600 });
      relayed = await ocp.connect({ kubeconfig });
    });
    afterAll(async () => {
      await relayed.close();
      await relay.close();
      await rm(dir, { recursive: true, force: true });
    });

    test('an object another manager force-applies between the read and the DELETE survives', async () => {
      const job = template('own-t-race', [configMap('own-t-race')]);
      await ocp.create(job, {}, { namespace: NAMESPACE, api: relayed });
      // The replay's DELETE waits in the relay until the other manager's apply is stored.
      relay.holdOn({
        method: 'DELETE',
        path: `${CONFIGMAPS}/own-t-race`,
        until: () => applyAs('other-team', 'own-t-race', { a: 'theirs' }, true),
      });
      const mark = auditMark(auditLogPath());
      const replay = await ocp.delete(job, {}, { namespace: NAMESPACE, api: relayed });
      expect(replay.map((r) => [r.deletion, r.declarers])).toEqual([['relinquished', ['other-team']]]);
      expect((await live(`${CONFIGMAPS}/own-t-race`)).data).toEqual({ a: 'theirs' });
      // The other's force-apply, the DELETE refused on the read resourceVersion, the relinquishing apply.
      expect(mutationsSince(mark, 'own-t-race')).toEqual(['patch 200', 'delete 409', 'patch 200']);
    });
  });
});
