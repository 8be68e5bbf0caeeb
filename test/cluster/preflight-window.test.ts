// #36 item 5 on the real tier: what the pre-flight cannot see. The cluster changes between the wave
// and the writes — another manager takes a field — and create() is part-way with today's
// OperationError('Apply'). The seam is the server's: a validating webhook this test serves holds
// the first object's write (never its dry run) while the test applies the second object as another
// manager, then lets the write through. The audit log shows exactly what was written, and by whom.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { generateTlsMaterial } from '../../simulator/certs.ts';
import { auditLogPath, auditMark, clientFor, clusterKubeconfig, writesSince } from './audit.ts';

const HELD = 'pf-w1';
const TAKEN = 'pf-w2';
const WEBHOOK = 'pf-window';
const LABEL = { 'pf-window': 'hold' };

interface Review {
  request?: { uid?: string; name?: string; dryRun?: boolean };
}

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe.skipIf(clusterKubeconfig === '')(
  '#36: the cluster changing between the pre-flight and the writes',
  () => {
    const tls = generateTlsMaterial('pf-window-webhook');
    /** Every review the webhook answered: `name` and whether it was a dry run. */
    const reviewed: { name: string; dryRun: boolean }[] = [];
    /** What the webhook does before it allows the held write; set by the test. */
    let beforeHeldWrite: () => Promise<void> = () => Promise.resolve();
    let server: Server;
    let api: ocp.Connection;
    const admin = clientFor('admin');

    beforeAll(async () => {
      server = createServer({ cert: tls.serverCert, key: tls.serverKey }, (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          void (async () => {
            const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
            const { uid, name = '', dryRun = false } = review.request ?? {};
            reviewed.push({ name, dryRun });
            if (name === HELD && !dryRun) await beforeHeldWrite();
            response.setHeader('content-type', 'application/json');
            response.end(
              JSON.stringify({
                apiVersion: 'admission.k8s.io/v1',
                kind: 'AdmissionReview',
                response: { uid, allowed: true },
              }),
            );
          })();
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const registered = await admin.send(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: WEBHOOK },
          webhooks: [
            {
              name: 'hold.pf-window.test',
              clientConfig: {
                url: `https://127.0.0.1:${String(port)}/validate`,
                caBundle: Buffer.from(tls.caCert).toString('base64'),
              },
              rules: [
                {
                  operations: ['CREATE', 'UPDATE'],
                  apiGroups: [''],
                  apiVersions: ['v1'],
                  resources: ['configmaps'],
                  scope: 'Namespaced',
                },
              ],
              objectSelector: { matchLabels: LABEL },
              // Dry runs reach it too (it has no side effects): it holds only a real write.
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              failurePolicy: 'Fail',
              timeoutSeconds: 20,
            },
          ],
        },
      );
      expect(registered.status).toBe(201);
      // kube-apiserver calls a new webhook once its informer has it: probe with dry runs until it does.
      const deadline = Date.now() + 30_000;
      while (!reviewed.some((r) => r.name === 'pf-w-probe')) {
        if (Date.now() > deadline) throw new Error('the webhook was never called');
        await admin.send(
          'PATCH',
          '/api/v1/namespaces/workers/configmaps/pf-w-probe?fieldManager=probe&dryRun=All',
          configMap('pf-w-probe', { a: 'b' }, LABEL),
          'application/apply-patch+yaml',
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      api = await ocp.connect({ kubeconfig: clusterKubeconfig, context: 'namespace-admin' });
    }, 60_000);

    afterAll(async () => {
      await admin.send(
        'DELETE',
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK}`,
      );
      admin.close();
      await api.close();
      server.close();
    });

    test("another manager takes a field of the 2nd object: part-way, with today's OperationError", async () => {
      const objects = [configMap(HELD, { a: 'mine' }, LABEL), configMap(TAKEN, { owned: 'mine' })];
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'pf-window' },
        objects,
      };
      beforeHeldWrite = async () => {
        const taken = await admin.send(
          'PATCH',
          `/api/v1/namespaces/workers/configmaps/${TAKEN}?fieldManager=other`,
          configMap(TAKEN, { owned: 'theirs' }),
          'application/apply-patch+yaml',
        );
        expect(taken.status).toBe(201);
      };
      const log = auditLogPath();
      const mark = auditMark(log);
      reviewed.length = 0;
      try {
        const error = await ocp.create(template, {}, { namespace: 'workers', api }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ocp.OperationError);
        const partWay = error as ocp.OperationError;
        expect([partWay.operation, partWay.code]).toEqual(['Apply', 'OTC_APPLY_FAILED']);
        expect(partWay.resources.map((r) => [r.name, r.created])).toEqual([[HELD, true]]);
        const failure = partWay.failures[0];
        expect(failure?.resource.name).toBe(TAKEN);
        const cause = failure?.error;
        expect(cause instanceof ocp.RequestError ? [cause.statusCode, cause.outcome] : cause).toEqual([
          409,
          'refused',
        ]);
        // The pre-flight passed (the webhook saw the dry run, then the held write).
        expect(reviewed.filter((r) => r.name === HELD)).toEqual([
          { name: HELD, dryRun: true },
          { name: HELD, dryRun: false },
        ]);
        // Written: the held object by create()'s caller, the other by its manager; nothing else.
        const written = writesSince(log, mark, [HELD, TAKEN]).map((e) => [
          e.objectRef?.name,
          e.user?.username,
        ]);
        expect(written).toEqual([
          [TAKEN, 'admin'],
          [HELD, 'namespace-admin'],
        ]);
      } finally {
        await ocp.delete(template, {}, { namespace: 'workers', api, ownership: 'any' });
      }
    });
  },
);
