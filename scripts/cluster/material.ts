// The files a control plane start needs, made fresh in its data directory: a throwaway CA and
// serving certificate, the CA of client certificates, the front-proxy CA the aggregator proves
// itself with, the simulator's serving certificate for its Service name, the ServiceAccount
// signing key, the token file and the audit policy. Nothing here outlives the run.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ClientCertificate,
  generateTlsMaterial,
  issueClientCertificate,
  type TlsMaterial,
} from '../../simulator/certs.ts';
import { type ClusterIdentity, IDENTITIES } from './identities.ts';

/** The simulator's own identity at kube-apiserver, as openshift-apiserver has one. */
export const SIMULATOR_USER = 'system:openshift-apiserver';
/** The Service the aggregator resolves for every simulator APIService (see bootstrap.ts). */
export const SIMULATOR_SERVICE = { name: 'openshift-apiserver', namespace: 'openshift-apiserver' };
/** The common name kube-apiserver's proxy client certificate carries (--requestheader-allowed-names). */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';

export interface Material {
  kube: TlsMaterial;
  frontProxy: TlsMaterial;
  frontProxyClient: ClientCertificate;
  simulator: TlsMaterial;
  /** A bearer token for every identity, made fresh per start. */
  tokens: Map<ClusterIdentity, string>;
  /** The simulator's own token at kube-apiserver (user {@link SIMULATOR_USER}). */
  simulatorToken: string;
  files: Record<
    | 'caCert'
    | 'serverCert'
    | 'serverKey'
    | 'clientCa'
    | 'clientCaKey'
    | 'frontProxyCa'
    | 'frontProxyClientCert'
    | 'frontProxyClientKey'
    | 'serviceAccountKey'
    | 'serviceAccountPublicKey'
    | 'tokenFile'
    | 'auditPolicy'
    | 'auditLog',
    string
  >;
}

/**
 * Every request that may change something, at level Metadata (who, what, the request URI with its
 * `dryRun=All`, the answer's code), and nothing else: the tests read it as the server's write log.
 */
const AUDIT_POLICY = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    { level: 'Metadata', verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'] },
    { level: 'None' },
  ],
};

/** One line of kube-apiserver's --token-auth-file: token,user,uid,"group1,group2". */
function tokenLine(token: string, identity: ClusterIdentity): string {
  const groups = identity.groups.length > 0 ? `,"${identity.groups.join(',')}"` : '';
  return `${token},${identity.user},${identity.user}${groups}`;
}

export async function writeMaterial(dir: string): Promise<Material> {
  const kube = generateTlsMaterial('kube-apiserver', ['kubernetes', 'kubernetes.default.svc']);
  const frontProxy = generateTlsMaterial('front-proxy');
  const frontProxyClient = issueClientCertificate(frontProxy, FRONT_PROXY_CLIENT, 2 * 86_400_000);
  const simulator = generateTlsMaterial('openshift-apiserver', [
    `${SIMULATOR_SERVICE.name}.${SIMULATOR_SERVICE.namespace}.svc`,
  ]);
  const serviceAccount = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const tokens = new Map(IDENTITIES.map((identity) => [identity, randomBytes(24).toString('hex')]));
  const simulatorToken = randomBytes(24).toString('hex');
  const simulatorIdentity: ClusterIdentity = { context: '', user: SIMULATOR_USER, groups: [] };
  const file = (name: string): string => join(dir, name);
  const files: Material['files'] = {
    caCert: file('ca.crt'),
    serverCert: file('apiserver.crt'),
    serverKey: file('apiserver.key'),
    clientCa: file('client-ca.crt'),
    clientCaKey: file('client-ca.key'),
    frontProxyCa: file('front-proxy-ca.crt'),
    frontProxyClientCert: file('front-proxy-client.crt'),
    frontProxyClientKey: file('front-proxy-client.key'),
    serviceAccountKey: file('sa.key'),
    serviceAccountPublicKey: file('sa.pub'),
    tokenFile: file('tokens.csv'),
    auditPolicy: file('audit-policy.json'),
    auditLog: file('audit.log'),
  };
  const contents: [string, string][] = [
    [files.caCert, kube.caCert],
    [files.serverCert, kube.serverCert],
    [files.serverKey, kube.serverKey],
    [files.clientCa, kube.clientCaCert],
    [files.clientCaKey, kube.clientCaKey],
    [files.frontProxyCa, frontProxy.clientCaCert],
    [files.frontProxyClientCert, frontProxyClient.cert],
    [files.frontProxyClientKey, frontProxyClient.key],
    [files.serviceAccountKey, serviceAccount.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()],
    [
      files.serviceAccountPublicKey,
      serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ],
    [
      files.tokenFile,
      `${[...tokens, [simulatorIdentity, simulatorToken] as const]
        .map(([identity, token]) => tokenLine(token, identity))
        .join('\n')}\n`,
    ],
    [files.auditPolicy, JSON.stringify(AUDIT_POLICY)],
  ];
  await Promise.all(contents.map(([path, text]) => writeFile(path, text, { mode: 0o600 })));
  return { kube, frontProxy, frontProxyClient, simulator, tokens, simulatorToken, files };
}
