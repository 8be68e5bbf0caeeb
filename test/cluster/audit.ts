// What the real-tier tests of the pre-flight share: a client per identity of the tier's kubeconfig,
// and its audit log read as the write log (every mutating request at level Metadata, on disk
// before the answer is sent; a dry run's requestURI carries dryRun=All).
import { readFileSync, statSync } from 'node:fs';
import { KubeClient } from '../../scripts/cluster/kube.ts';
import { AUDIT_LOG_EXTENSION } from '../../scripts/check-target.ts';

export const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';

interface Kubeconfig {
  clusters: {
    cluster: {
      server: string;
      'certificate-authority-data': string;
      extensions?: { name: string; extension?: { path?: string } }[];
    };
  }[];
  users: { name: string; user: { token: string } }[];
}
const config = (): Kubeconfig => JSON.parse(readFileSync(clusterKubeconfig, 'utf8')) as Kubeconfig;

/** A client of the tier as `user` (a kubeconfig user name: admin, namespace-admin, ...). */
export function clientFor(user: string): KubeClient {
  const { clusters, users } = config();
  const cluster = clusters[0]?.cluster;
  const token = users.find((u) => u.name === user)?.user.token;
  if (!cluster || !token) throw new Error(`${clusterKubeconfig}: no cluster or no token for ${user}`);
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  return new KubeClient(cluster.server, ca, token);
}

/** The audit log's path, as the cluster script names it in the kubeconfig. */
export function auditLogPath(): string {
  const extension = config().clusters[0]?.cluster.extensions?.find((e) => e.name === AUDIT_LOG_EXTENSION);
  return extension?.extension?.path ?? '';
}

/** Where the audit log ends now: pass it to writesSince to read what came after. */
export const auditMark = (log: string): number => statSync(log).size;

export interface AuditEvent {
  requestURI: string;
  verb: string;
  user?: { username?: string };
  objectRef?: { namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

/** The audit log from `mark` on: the requests that wrote (answered below 400, not dry runs). */
export function writesSince(log: string, mark: number, names: readonly string[]): AuditEvent[] {
  const text = readFileSync(log).subarray(mark).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => ['create', 'patch', 'update'].includes(e.verb))
    .filter((e) => e.objectRef?.namespace === 'workers' && names.includes(e.objectRef.name ?? ''))
    .filter((e) => !e.requestURI.includes('dryRun=All') && (e.responseStatus?.code ?? 0) < 400);
}
