// #34 item 7 on the real tier: a 500 InternalError is 'unknown' unless upstream source shows its
// message is produced before anything is stored. The tier can produce one such message honestly: a
// validating webhook that fails closed and cannot be called (k8s.io/apiserver
// pkg/admission/plugin/webhook/validating/dispatcher.go, before the write). The other half, a 500
// after a committed write, is test/cluster/etcd-fault.test.ts.
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';
import { AUDIT_LOG_EXTENSION } from '../../scripts/check-target.ts';
import { instance } from '../helpers.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';
const NAMESPACE = 'workers';
const WEBHOOK_PATH =
  '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/otc-internal-error-closed';
const LABEL = { 'otc-internal-error': 'closed' };

/** A webhook nobody listens for, failing closed, for ConfigMaps with this file's label only. */
const WEBHOOK = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'otc-internal-error-closed' },
  webhooks: [
    {
      name: 'closed.internal-error.otc.example.com',
      // Port 1 on loopback: nothing listens, so the call fails at once.
      clientConfig: { url: 'https://127.0.0.1:1/validate' },
      rules: [
        { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
      ],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      objectSelector: { matchLabels: LABEL },
      timeoutSeconds: 2,
    },
  ],
};
const configMap = (name: string, labels: Record<string, string> = LABEL) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data: { a: name },
});
const pathOf = (name: string): string => `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`;

/** Writes of `name` in the audit log from `mark` on (answered below 400, not dry runs). */
function writesOf(log: string, mark: number, name: string): number {
  interface Event {
    verb: string;
    requestURI: string;
    objectRef?: { name?: string };
    responseStatus?: { code?: number };
  }
  return readFileSync(log)
    .subarray(mark)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Event)
    .filter((e) => ['create', 'patch', 'update'].includes(e.verb) && e.objectRef?.name === name)
    .filter((e) => !e.requestURI.includes('dryRun=All') && (e.responseStatus?.code ?? 0) < 400).length;
}

describe.skipIf(clusterKubeconfig === '')('#34 item 7: a 500 InternalError from the real tier', () => {
  let client: KubeClient;
  let api: ocp.Connection;
  let auditLog: string;

  beforeAll(async () => {
    const context = currentContext(clusterKubeconfig);
    client = context.client;
    auditLog = context.extension(AUDIT_LOG_EXTENSION)?.path ?? '';
    await client.apply(WEBHOOK_PATH, WEBHOOK);
    // The webhook is in force once a labelled dry run is refused by it.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await client.send(
        'PATCH',
        `${pathOf('ie-probe')}?fieldManager=probe&dryRun=All`,
        configMap('ie-probe'),
        'application/apply-patch+yaml',
      );
      if (answer.status === 500) break;
      if (Date.now() > deadline) throw new Error('the webhook never took effect');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    api = await ocp.connect({ kubeconfig: clusterKubeconfig });
  });
  afterAll(async () => {
    await api.close();
    await client.send('DELETE', WEBHOOK_PATH);
    for (const name of ['ie-first', 'ie-closed']) await client.send('DELETE', pathOf(name));
    client.close();
  });

  test('a webhook that fails closed and cannot be called: a 500 InternalError, refused, nothing written', async () => {
    const mark = statSync(auditLog).size;
    const template: ocp.TemplateObject = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'internal-error' },
      objects: [configMap('ie-first', {}), configMap('ie-closed')],
    };
    // About the write's own answer, part-way after the first object: with the pre-flight the same
    // 500 refuses the dry run and nothing is written at all.
    const error = await ocp.create(template, {}, { namespace: NAMESPACE, api, preflight: 'schema' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ocp.OperationError);
    const failed = error as ocp.OperationError;
    expect(failed.resources.map((r) => r.name)).toEqual(['ie-first']);
    const failure = instance(failed.failures[0]?.error, ocp.RequestError);
    expect([failure.statusCode, failure.reason, failure.outcome, failure.code]).toEqual([
      500,
      'InternalError',
      'refused',
      'OTC_SERVER_ERROR',
    ]);
    expect(failure.message).toContain('failed calling webhook "closed.internal-error.otc.example.com"');
    expect(writesOf(auditLog, mark, 'ie-closed')).toBe(0);
    expect((await client.send('GET', pathOf('ie-closed'))).status).toBe(404);
  });
});
