// Where check-templates runs its Templates: the embedded simulator (its request log is the write
// log), or a server a kubeconfig names, such as `npm run cluster` (Templates stored through the
// API, leftovers found with GETs, writes read from the audit log the tier names in the kubeconfig).
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as ocp from '../src/index.ts';
import { type JsonObject, type LogEntry, startSimulator } from '../simulator/index.ts';
import { currentContext } from './cluster/kube.ts';

/** The kubeconfig cluster extension naming the tier's audit log (scripts/cluster/run.ts writes it). */
export const AUDIT_LOG_EXTENSION = 'openshift-template-client.test/audit-log';

export interface CheckTarget {
  kubeconfig: string;
  describe: string;
  storeTemplate(template: JsonObject, namespace: string): Promise<void>;
  /** A position in the write log; `writesSince` lists what came after it. */
  mark(): number;
  writesSince(mark: number): Promise<string[]>;
  exists(ref: ocp.ResourceRef): Promise<boolean>;
  close(): Promise<void>;
}

/** Creates that change nothing: a processed Template, access reviews. */
const COMPUTED =
  /\/(processedtemplates|selfsubjectaccessreviews|selfsubjectrulesreviews|subjectaccessreviews)$/;

export async function simulatorTarget(kubeconfig: string, namespaces: string[]): Promise<CheckTarget> {
  const sim = await startSimulator({ seedExamples: false, namespaces });
  await sim.writeKubeconfig(kubeconfig);
  return {
    kubeconfig,
    describe: 'the embedded simulator',
    storeTemplate: (template) => {
      sim.seed(template);
      return Promise.resolve();
    },
    mark: () => sim.log.length,
    writesSince: (mark) =>
      Promise.resolve(
        sim.log
          .slice(mark)
          .filter((e: LogEntry) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(e.method))
          .filter((e) => !(e.method === 'POST' && COMPUTED.test(e.path)))
          .map((e) => `${e.method} ${e.path} ${e.status}`),
      ),
    exists: (ref) =>
      Promise.resolve(sim.getObject(ref.apiVersion, ref.kind, ref.namespace, ref.name) !== undefined),
    close: () => sim.close(),
  };
}

interface AuditEvent {
  verb?: string;
  requestURI?: string;
  user?: { username?: string };
  responseStatus?: { code?: number };
  stage?: string;
}

const METHOD_OF: Record<string, string> = { create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE' };

/** A server a kubeconfig names; its current context is the admin who stores the Templates. */
export async function kubeconfigTarget(kubeconfig: string): Promise<CheckTarget> {
  const { client, user, extension } = currentContext(kubeconfig);
  const auditLog = extension(AUDIT_LOG_EXTENSION)?.path;
  if (!auditLog)
    throw new Error(
      `${kubeconfig} names no audit log (the ${AUDIT_LOG_EXTENSION} cluster extension npm run cluster writes): ` +
        'without it a refusal cannot be shown to have written nothing',
    );
  const api = await ocp.connect({ kubeconfig });
  return {
    kubeconfig,
    describe: `the server of ${kubeconfig}`,
    storeTemplate: async (template, namespace) => {
      const name = (template.metadata as { name: string }).name;
      const path = `/apis/template.openshift.io/v1/namespaces/${namespace}/templates/${encodeURIComponent(name)}`;
      await client.apply(path, {
        ...template,
        metadata: { ...(template.metadata as JsonObject), namespace },
      });
    },
    mark: () => statSync(auditLog).size,
    writesSince: async (mark) => {
      const text = (await readFile(auditLog)).subarray(mark).toString('utf8');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((e) => e.stage === 'ResponseComplete' && e.user?.username === user)
        .filter((e) => e.verb !== undefined && e.verb in METHOD_OF)
        .filter((e) => !(e.verb === 'create' && COMPUTED.test(pathOf(e))))
        .map((e) => `${METHOD_OF[e.verb ?? ''] ?? ''} ${pathOf(e)} ${e.responseStatus?.code ?? 0}`);
    },
    exists: async (ref) => {
      const [live] = await ocp.get({ namespace: ref.namespace, api, resources: [ref], missing: 'null' });
      return live !== null && live !== undefined;
    },
    close: async () => {
      client.close();
      await api.close();
    },
  };
}

const pathOf = (event: AuditEvent): string => (event.requestURI ?? '').split('?')[0] ?? '';
