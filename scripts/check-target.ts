// Where check-templates runs its Templates: the embedded simulator (its request log is the write
// log), or a server a kubeconfig names. There, by default, only dry runs are sent, so it can be
// any cluster; a round trip (creates and deletes) needs a server that says what was written, such
// as `npm run cluster` (leftovers found with GETs, writes read from the audit log the tier names in
// the kubeconfig). Stored Templates are never read or written: the file's Template is processed as
// an object.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as ocp from '../src/index.ts';
import { type LogEntry, startSimulator } from '../simulator/index.ts';
import { currentContext, type KubeClient } from './cluster/kube.ts';

/** The kubeconfig cluster extension naming the tier's audit log (scripts/cluster/run.ts writes it). */
export const AUDIT_LOG_EXTENSION = 'openshift-template-client.test/audit-log';

/** What reached the server after a mark: the writes, and the dry runs, which are not. */
export interface Requests {
  writes: string[];
  dryRuns: string[];
}

export interface CheckTarget {
  kubeconfig: string;
  describe: string;
  /** Whether the write log can be read: on a server that keeps none, a dry-run check reads nothing. */
  logged: boolean;
  /** A position in the write log; `requestsSince` lists what came after it. */
  mark(): number;
  requestsSince(mark: number): Promise<Requests>;
  exists(ref: ocp.ResourceRef): Promise<boolean>;
  close(): Promise<void>;
}

/** Creates that change nothing: a processed Template, access reviews. */
const COMPUTED =
  /\/(processedtemplates|selfsubjectaccessreviews|selfsubjectrulesreviews|subjectaccessreviews)$/;

interface Request {
  method: string;
  path: string;
  dryRun: boolean;
  status: number;
}

/** The requests that may write (a dry run among them, kept apart), each as one line. */
function sorted(requests: Request[]): Requests {
  const mutating = requests
    .filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
    .filter((r) => !(r.method === 'POST' && COMPUTED.test(r.path)));
  const line = (r: Request): string => `${r.method} ${r.path} ${r.status}`;
  return {
    writes: mutating.filter((r) => !r.dryRun).map(line),
    dryRuns: mutating.filter((r) => r.dryRun).map(line),
  };
}

export async function simulatorTarget(kubeconfig: string, namespaces: string[]): Promise<CheckTarget> {
  const sim = await startSimulator({ seedExamples: false, namespaces });
  await sim.writeKubeconfig(kubeconfig);
  return {
    kubeconfig,
    describe: 'the embedded simulator',
    logged: true,
    mark: () => sim.log.length,
    requestsSince: (mark) =>
      Promise.resolve(
        sorted(
          sim.log.slice(mark).map((e: LogEntry) => ({
            method: e.method,
            path: e.path,
            dryRun: [e.query.dryRun].flat().includes('All'),
            status: e.status,
          })),
        ),
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

/** The admin's client, name and audit log a round trip reads its writes from, or why not. */
function audited(kubeconfig: string): { client: KubeClient; user: string; auditLog: string } {
  const { client, user, extension } = currentContext(kubeconfig);
  const auditLog = extension(AUDIT_LOG_EXTENSION)?.path;
  if (auditLog) return { client, user, auditLog };
  client.close();
  throw new Error(
    `${kubeconfig} names no audit log (the ${AUDIT_LOG_EXTENSION} cluster extension npm run cluster writes): ` +
      'without it a round trip cannot show what it wrote; leave out --round-trip for dry runs only',
  );
}

/**
 * A server a kubeconfig names. With `roundTrip` its current context must name the tier's audit
 * log and a token user, whose writes it reads; without, nothing is asked of it: only dry runs are
 * sent, and nothing is read back.
 */
export async function kubeconfigTarget(kubeconfig: string, roundTrip: boolean): Promise<CheckTarget> {
  const log = roundTrip ? audited(kubeconfig) : undefined;
  const api = await ocp.connect({ kubeconfig });
  const exists = async (ref: ocp.ResourceRef): Promise<boolean> => {
    const [live] = await ocp.get({ namespace: ref.namespace, api, resources: [ref], missing: 'null' });
    return live !== null && live !== undefined;
  };
  if (!log)
    return {
      kubeconfig,
      describe: `the server of ${kubeconfig} (dry runs only)`,
      logged: false,
      mark: () => 0,
      requestsSince: () => Promise.resolve({ writes: [], dryRuns: [] }),
      exists,
      close: () => api.close(),
    };
  const { client, user, auditLog } = log;
  return {
    kubeconfig,
    describe: `the server of ${kubeconfig}`,
    logged: true,
    mark: () => statSync(auditLog).size,
    requestsSince: async (mark) => {
      const text = (await readFile(auditLog)).subarray(mark).toString('utf8');
      const events = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((e) => e.stage === 'ResponseComplete' && e.user?.username === user)
        .filter((e) => e.verb !== undefined && e.verb in METHOD_OF);
      return sorted(
        events.map((e) => ({
          method: METHOD_OF[e.verb ?? ''] ?? '',
          path: (e.requestURI ?? '').split('?')[0] ?? '',
          dryRun: /[?&]dryRun=All(&|$)/.test(e.requestURI ?? ''),
          status: e.responseStatus?.code ?? 0,
        })),
      );
    },
    exists,
    close: async () => {
      client.close();
      await api.close();
    },
  };
}
