// #36 item 5 on the real tier: what the pre-flight cannot see. The cluster changes between the wave
// and the writes — another manager takes a field, or the caller's role is revoked — and create() is
// part-way with today's OperationError('Apply'). The seam is the server's: a validating webhook this
// test serves holds the first object's write (never its dry run) while the test changes the
// cluster, then lets the write through. The audit log shows exactly what was written, and by whom.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { generateTlsMaterial } from '../../simulator/certs.ts';
import type { KubeClient } from '../../scripts/cluster/kube.ts';
import { auditLogPath, auditMark, clientFor, clusterKubeconfig, writesSince } from './audit.ts';

const HELD = 'pf-w1';
const TAKEN = 'pf-w2';
const WEBHOOK = 'pf-window';
const LABEL = { 'pf-window': 'hold' };

/** What the revoked-role case creates, all its own: a ServiceAccount, two Roles and their bindings. */
const REVOKED = {
  account: 'pf-revoked',
  held: 'pf-w3',
  secret: 'pf-w4',
  after: 'pf-w5',
  configRole: 'pf-revoked-config',
  secretsRole: 'pf-revoked-secrets',
  configRules: [
    { verbs: ['create'], apiGroups: ['template.openshift.io'], resources: ['processedtemplates'] },
    {
      verbs: ['get', 'list', 'create', 'patch'],
      apiGroups: [''],
      resources: ['configmaps', 'resourcequotas'],
    },
  ],
  secretsRules: [{ verbs: ['get', 'create', 'patch'], apiGroups: [''], resources: ['secrets'] }],
};

/** The answer's body of a request that must create (201). */
async function created(client: KubeClient, path: string, body: object): Promise<unknown> {
  const answer = await client.send('POST', path, body);
  if (answer.status !== 201)
    throw new Error(`POST ${path} answered ${String(answer.status)}: ${answer.text}`);
  return answer.body;
}

/**
 * Waits until RBAC, as the authorizer sees it now, gives `user` Secrets in workers (`allowed`) or
 * no longer does: the authorizer reads RoleBindings from an informer, which follows a change within
 * moments, and a SubjectAccessReview is answered by that same authorizer.
 */
async function untilAllowed(client: KubeClient, user: string, allowed: boolean): Promise<void> {
  const groups = ['system:serviceaccounts', 'system:serviceaccounts:workers', 'system:authenticated'];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const review = await created(client, '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user,
        groups,
        resourceAttributes: { namespace: 'workers', verb: 'create', resource: 'secrets' },
      },
    });
    if ((review as { status?: { allowed?: boolean } }).status?.allowed === allowed) return;
    if (Date.now() > deadline)
      throw new Error(`RBAC never ${allowed ? 'granted' : 'revoked'} Secrets for ${user}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A kubeconfig of the tier for a bearer token. */
function kubeconfigFor(token: string): object {
  const cluster = (
    JSON.parse(readFileSync(clusterKubeconfig, 'utf8')) as { clusters: { cluster: unknown }[] }
  ).clusters[0]?.cluster;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'tier', cluster }],
    users: [{ name: 'revocable', user: { token } }],
    contexts: [{ name: 'revocable', context: { cluster: 'tier', user: 'revocable', namespace: 'workers' } }],
    'current-context': 'revocable',
  };
}

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
    /** What the webhook does before it allows the write (never the dry run) of the object named; set by a test. */
    const beforeWrite = new Map<string, () => Promise<void>>();
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
            const hold = dryRun ? undefined : beforeWrite.get(name);
            if (hold) await hold();
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
      beforeWrite.set(HELD, async () => {
        const taken = await admin.send(
          'PATCH',
          `/api/v1/namespaces/workers/configmaps/${TAKEN}?fieldManager=other`,
          configMap(TAKEN, { owned: 'theirs' }),
          'application/apply-patch+yaml',
        );
        expect(taken.status).toBe(201);
      });
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

    test("the caller's role is revoked before the Secret's write: part-way, a 403 'refused'", async () => {
      const account = REVOKED.account;
      const user = `system:serviceaccount:workers:${account}`;
      const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/workers';
      const secretsBinding = `${rbac}/rolebindings/${REVOKED.secretsRole}`;
      const dir = mkdtempSync(join(tmpdir(), 'pf-window-'));
      let revocable: ocp.Connection | undefined;
      try {
        // A ServiceAccount of its own, granted ConfigMaps by one RoleBinding and Secrets by another.
        await created(admin, '/api/v1/namespaces/workers/serviceaccounts', {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: account },
        });
        for (const [name, rules] of [
          [REVOKED.configRole, REVOKED.configRules],
          [REVOKED.secretsRole, REVOKED.secretsRules],
        ] as const) {
          const meta = { name, namespace: 'workers' };
          await created(admin, `${rbac}/roles`, {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: meta,
            rules,
          });
          await created(admin, `${rbac}/rolebindings`, {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: meta,
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
            subjects: [{ kind: 'ServiceAccount', name: account, namespace: 'workers' }],
          });
        }
        await untilAllowed(admin, user, true);
        const token = await created(admin, `/api/v1/namespaces/workers/serviceaccounts/${account}/token`, {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 3600 },
        });
        const kubeconfig = join(dir, 'kubeconfig.json');
        writeFileSync(
          kubeconfig,
          JSON.stringify(kubeconfigFor((token as { status: { token: string } }).status.token)),
        );
        revocable = await ocp.connect({ kubeconfig });
        const template: ocp.TemplateObject = {
          apiVersion: 'template.openshift.io/v1',
          kind: 'Template',
          metadata: { name: 'pf-revoked' },
          objects: [
            configMap(REVOKED.held, { a: 'mine' }, LABEL),
            {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: REVOKED.secret },
              stringData: { password: 'hunter2!' },
            },
            configMap(REVOKED.after, { b: 'mine' }),
          ],
        };
        // Once the wave has passed, the ConfigMap's write waits while the Secrets' RoleBinding goes.
        beforeWrite.set(REVOKED.held, async () => {
          expect((await admin.send('DELETE', secretsBinding)).status).toBe(200);
          await untilAllowed(admin, user, false);
        });
        const log = auditLogPath();
        const mark = auditMark(log);
        reviewed.length = 0;
        const error = await ocp.create(template, {}, { namespace: 'workers', api: revocable }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ocp.OperationError);
        const partWay = error as ocp.OperationError;
        expect([partWay.operation, partWay.code, partWay.outcome]).toEqual([
          'Apply',
          'OTC_APPLY_FAILED',
          'refused',
        ]);
        expect(partWay.resources.map((r) => [r.name, r.created])).toEqual([[REVOKED.held, true]]);
        const failure = partWay.failures[0];
        expect(failure?.resource.name).toBe(REVOKED.secret);
        const cause = failure?.error;
        expect(
          cause instanceof ocp.RequestError ? [cause.statusCode, cause.code, cause.outcome] : cause,
        ).toEqual([403, 'OTC_FORBIDDEN', 'refused']);
        expect(cause?.message).toContain('cannot patch resource "secrets"');
        expect(cause?.message).not.toContain('hunter2');
        // The pre-flight passed (the webhook saw the dry run, then the held write).
        expect(reviewed.filter((r) => r.name === REVOKED.held)).toEqual([
          { name: REVOKED.held, dryRun: true },
          { name: REVOKED.held, dryRun: false },
        ]);
        // Written: the held ConfigMap, by the ServiceAccount; nothing else, the Secret refused.
        const names = [REVOKED.held, REVOKED.secret, REVOKED.after];
        const written = writesSince(log, mark, names).map((e) => [e.objectRef?.name, e.user?.username]);
        expect(written).toEqual([[REVOKED.held, user]]);
      } finally {
        beforeWrite.delete(REVOKED.held);
        await revocable?.close();
        rmSync(dir, { recursive: true, force: true });
        for (const path of [
          `/api/v1/namespaces/workers/configmaps/${REVOKED.held}`,
          `/api/v1/namespaces/workers/secrets/${REVOKED.secret}`,
          `/api/v1/namespaces/workers/configmaps/${REVOKED.after}`,
          secretsBinding,
          `${rbac}/rolebindings/${REVOKED.configRole}`,
          `${rbac}/roles/${REVOKED.secretsRole}`,
          `${rbac}/roles/${REVOKED.configRole}`,
          `/api/v1/namespaces/workers/serviceaccounts/${account}`,
        ])
          await admin.send('DELETE', path);
      }
    });
  },
);
