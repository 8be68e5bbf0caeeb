// What test/cluster/preflight-quota.test.ts shares: the tier's kubeconfig and clients, its audit
// log, one create()'s outcome in terms both servers must agree on, and the denying webhook served
// over HTTPS on loopback with the ValidatingWebhookConfiguration that names it.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { generateTlsMaterial } from '../../simulator/certs.ts';
// The tier's kubeconfig and its clients are test/cluster/audit.ts's, shared with preflight.test.ts.
export { auditLogPath, clientFor, clusterKubeconfig } from './audit.ts';

export const NAMESPACE = 'pfq';
export const THREE = ['pfq-1', 'pfq-2', 'pfq-3'];
export const WEBHOOK = 'deny.pfq.example.com';
export const DENIAL = 'pfq objects marked checked are closed';

interface AuditEvent {
  requestURI: string;
  verb: string;
  objectRef?: { namespace?: string; name?: string; resource?: string };
  responseStatus?: { code?: number };
}

/** The ConfigMaps written since `mark` (answered below 400, not dry runs), in order. */
export function writtenSince(log: string, mark: number): string[] {
  return readFileSync(log)
    .subarray(mark)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => ['create', 'patch', 'update'].includes(e.verb))
    .filter((e) => e.objectRef?.namespace === NAMESPACE && e.objectRef.resource === 'configmaps')
    .filter((e) => !e.requestURI.includes('dryRun=All') && (e.responseStatus?.code ?? 0) < 400)
    .map((e) => e.objectRef?.name ?? '');
}

export const configMap = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data: { a: name },
});
export const template = (objects: unknown[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'pfq' },
  objects,
});

/** What one create() came to, in the terms both servers must agree on. */
export interface Outcome {
  warnings: string[];
  created?: string[];
  error?: { operation: string; resources: string[]; failures: [string, number | undefined, string][] };
}

export async function outcomeOf(api: ocp.Connection | undefined, objects: unknown[]): Promise<Outcome> {
  if (api === undefined) throw new Error('no connection for this context');
  const warnings: string[] = [];
  const options = {
    namespace: NAMESPACE,
    api,
    preflight: 'server' as const,
    onWarning: (w: ocp.ServerWarning) => warnings.push(w.text),
  };
  try {
    const refs = await ocp.create(template(objects), {}, options);
    return { warnings, created: refs.map((r) => r.name) };
  } catch (error) {
    if (!(error instanceof ocp.OperationError)) throw error;
    const failures = error.failures.map((f): [string, number | undefined, string] => [
      f.resource.name,
      f.error.statusCode,
      f.error.status?.message ?? '',
    ]);
    return {
      warnings,
      error: { operation: error.operation, resources: error.resources.map((r) => r.name), failures },
    };
  }
}

/** An HTTPS server on loopback answering AdmissionReviews: denies objects labelled pfq=checked. */
export async function startWebhook(): Promise<{ server: Server; port: number; caCert: string }> {
  const tls = generateTlsMaterial('pfq-webhook');
  const server = createServer({ cert: tls.serverCert, key: tls.serverKey }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        request: { uid: string; object?: { metadata?: { labels?: Record<string, string> } } };
      };
      const denied = review.request.object?.metadata?.labels?.pfq === 'checked';
      const response = {
        uid: review.request.uid,
        allowed: !denied,
        ...(denied ? { status: { message: DENIAL } } : {}),
      };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, caCert: tls.caCert };
}

export const webhookConfiguration = (port: number, caCert: string, sideEffects = 'None') => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: sideEffects === 'None' ? 'pfq-deny' : 'pfq-legacy' },
  webhooks: [
    {
      name: WEBHOOK,
      clientConfig: {
        url: `https://127.0.0.1:${port}/validate`,
        caBundle: Buffer.from(caCert).toString('base64'),
      },
      rules: [
        {
          apiGroups: [''],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['configmaps'],
          scope: 'Namespaced',
        },
      ],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
      objectSelector: { matchLabels: { pfq: 'checked' } },
      sideEffects,
      admissionReviewVersions: ['v1'],
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
    },
  ],
});

export async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not so after 10 s`);
}
