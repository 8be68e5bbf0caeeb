// #36 on the real tier: a warning the server repeats is reported once per call. kube-apiserver 1.33+
// warns on every request for v1 Endpoints (KEP-4974), so create()'s dry run and its write, and a
// template-mode delete's read and its delete, are each answered with the same warning for the same
// object: the caller's handler hears it once per call. The audit log shows that the create made both
// requests.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type AuditEvent, auditLogPath, auditMark, clusterKubeconfig } from './audit.ts';

const ENDPOINTS = 'wo-endpoints';
const DEPRECATION = 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice';
const template: ocp.TemplateObject = {
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'warnings-once' },
  objects: [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wo-config' }, data: { a: 'b' } },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: ENDPOINTS },
      // Fields of its own, so that the delete finds them managed by create()'s field manager.
      subsets: [{ addresses: [{ ip: '10.0.0.9' }], ports: [{ port: 80 }] }],
    },
  ],
};
const target = { apiVersion: 'v1', kind: 'Endpoints', name: ENDPOINTS, namespace: 'workers' };

/** The Endpoints' requests in the audit log since `mark`: verb, dry run or not, status code. */
function endpointsRequests(log: string, mark: number): string[] {
  const text = readFileSync(log).subarray(mark).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.objectRef?.namespace === 'workers' && e.objectRef.name === ENDPOINTS)
    .map(
      (e) =>
        `${e.verb}${e.requestURI.includes('dryRun=All') ? ' dry-run' : ''} ${String(e.responseStatus?.code)}`,
    );
}

describe.skipIf(clusterKubeconfig === '')('#36: a warning the server repeats, reported once per call', () => {
  let api: ocp.Connection;
  beforeAll(async () => {
    api = await ocp.connect({ kubeconfig: clusterKubeconfig, context: 'namespace-admin' });
  });
  afterAll(async () => {
    await ocp.delete(template, {}, { namespace: 'workers', api, ownership: 'any' }).catch(() => undefined);
    await api.close();
  });

  test("v1 Endpoints: create()'s dry run and write, then delete()'s read and delete, one warning each call", async () => {
    const log = auditLogPath();
    const heard: ocp.ServerWarning[] = [];
    const onWarning: ocp.WarningHandler = (w) => heard.push(w);
    const mark = auditMark(log);
    await ocp.create(template, {}, { namespace: 'workers', api, onWarning });
    expect(heard).toEqual([{ text: DEPRECATION, code: 'OTC_SERVER_WARNING', operation: 'create', target }]);
    heard.length = 0;
    await ocp.delete(template, {}, { namespace: 'workers', api, onWarning });
    expect(heard).toEqual([{ text: DEPRECATION, code: 'OTC_SERVER_WARNING', operation: 'delete', target }]);
    // The create's two answers, each carrying the warning (kube-apiserver warns on every request for
    // v1 Endpoints), and the delete; the audit log records mutations only, not the delete's read.
    expect(endpointsRequests(log, mark)).toEqual(['patch dry-run 201', 'patch 201', 'delete 200']);
  });
});
