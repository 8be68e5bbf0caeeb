// #34 item 7 on the real tier, its other half: a 500 after a write that etcd committed. The tier's
// etcd API (test/cluster/etcdfault.go) lets the first write of an object whose name starts with
// otc-etcd-commit-timeout- commit and then answers etcd's own "etcdserver: request timed out",
// as etcd does when a proposal it handed to raft is not applied in time. kube-apiserver's etcd
// client does not send the write again (go.etcd.io/etcd/client/v3 retry.go,
// isSafeRetryMutableRPC), and kube-apiserver answers the error as it is: a 500 with no reason
// (k8s.io/apiserver pkg/storage/etcd3/store.go, then
// pkg/endpoints/handlers/responsewriters/status.go ErrorToAPIStatus). The object is stored, so
// create() must say 'unknown', never 'refused'.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { KubeClient } from '../../scripts/cluster/kube.ts';
import {
  type AuditEvent,
  auditLogPath,
  auditMark,
  clientFor,
  clusterKubeconfig,
  writesSince,
} from './audit.ts';
import { instance, rejection } from '../helpers.ts';

const NAMESPACE = 'workers';
const MARKER = 'otc-etcd-commit-timeout-';
const pathOf = (name: string): string => `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`;
const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: name },
});

/** Every non-dry-run write of `name` in the audit log from `mark` on, whatever its answer. */
function attemptsSince(log: string, mark: number, name: string): AuditEvent[] {
  return readFileSync(log)
    .subarray(mark)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => ['create', 'patch', 'update'].includes(e.verb) && e.objectRef?.name === name)
    .filter((e) => e.objectRef?.namespace === NAMESPACE && !e.requestURI.includes('dryRun=All'));
}

describe.skipIf(clusterKubeconfig === '')(
  '#34 item 7: a 500 after a committed etcd write, on the real tier',
  () => {
    let admin: KubeClient;
    let api: ocp.Connection;
    let log: string;
    const names: string[] = [];

    beforeAll(async () => {
      admin = clientFor('admin');
      log = auditLogPath();
      api = await ocp.connect({ kubeconfig: clusterKubeconfig });
    });
    afterAll(async () => {
      await api.close();
      for (const name of names) await admin.send('DELETE', pathOf(name));
      admin.close();
    });

    test("etcd's request timed out after the commit: unknown, the object stored, a replay and a delete work", async () => {
      // A fresh suffix per run: the fault fires once per key for the control plane's life.
      const suffix = randomBytes(4).toString('hex');
      const [first, marked] = [`otc-etcd-fault-first-${suffix}`, `${MARKER}${suffix}`];
      names.push(first, marked);
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'etcd-fault' },
        objects: [configMap(first), configMap(marked)],
      };
      const mark = auditMark(log);

      // Default options: the pre-flight's dry runs never reach etcd, so they pass.
      const error = instance(
        await rejection(ocp.create(template, {}, { namespace: NAMESPACE, api })),
        ocp.OperationError,
      );
      expect([error.operation, error.code, error.outcome]).toEqual(['Apply', 'OTC_APPLY_FAILED', 'unknown']);
      expect(error.resources.map((r) => r.name)).toEqual([first]);
      expect(error.failures.map((f) => f.resource.name)).toEqual([marked]);
      const failure = instance(error.failures[0]?.error, ocp.RequestError);
      expect([failure.statusCode, failure.reason ?? '', failure.outcome, failure.code]).toEqual([
        500,
        '',
        'unknown',
        'OTC_SERVER_ERROR',
      ]);
      expect(failure.status?.message).toBe('etcdserver: request timed out');
      expect(failure.message).toContain('etcdserver: request timed out');

      // It was written all the same: stored in etcd, and one write of it, answered 500, audited.
      const stored = await admin.send('GET', pathOf(marked));
      expect(stored.status).toBe(200);
      const uid = (stored.body as { metadata: { uid: string } }).metadata.uid;
      expect(attemptsSince(log, mark, marked).map((e) => [e.verb, e.responseStatus?.code])).toEqual([
        ['patch', 500],
      ]);
      expect(writesSince(log, mark, [first, marked]).map((e) => e.objectRef?.name)).toEqual([first]);

      // The replay of the same inputs finds both objects and takes them as its own.
      const refs = await ocp.create(template, {}, { namespace: NAMESPACE, api });
      expect(refs.map((r) => [r.name, r.created])).toEqual([
        [first, false],
        [marked, false],
      ]);
      expect(refs[1]?.uid).toBe(uid);

      // delete() goes in reverse order.
      const deleted = await ocp.delete(template, {}, { namespace: NAMESPACE, api });
      expect(deleted.map((r) => [r.name, r.deletion])).toEqual([
        [marked, 'deleted'],
        [first, 'deleted'],
      ]);
      for (const name of [first, marked]) expect((await admin.send('GET', pathOf(name))).status).toBe(404);
    });
  },
);
