// kube-apiserver's flags for a control plane on loopback, each with the reason it is there, and
// the process that runs it (test/cluster: etcd embedded beside kube-apiserver in one binary, and
// reached through a second port with one fault, etcdfault.go).
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { FRONT_PROXY_CLIENT, type Material } from './material.ts';

export interface Ports {
  apiserver: number;
  etcdClient: number;
  etcdPeer: number;
  /** etcd's API with the commit-timeout fault (test/cluster/etcdfault.go): what kube-apiserver dials. */
  etcdFault: number;
  simulator: number;
}

export interface ControlPlaneOptions {
  /** SETTINGS_MAX_CONCURRENT_STREAMS of kube-apiserver's HTTP/2 (its default 100; OpenShift 2000). */
  http2MaxStreams?: number;
  /** --max-requests-inflight: with the next, the seats APF shares out (its default 400; OpenShift 3000). */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight (its default 200; OpenShift 1000). */
  maxMutatingRequestsInflight?: number;
}

/**
 * The flags, as `[flag, value, why]`. docs/real-tier.md's table lists the same, and
 * test/real-tier-doc.test.ts checks that every flag and fixed value here is in it.
 */
export function apiserverFlags(
  dir: string,
  material: Material,
  ports: Ports,
  options: ControlPlaneOptions = {},
): [string, string, string][] {
  const f = material.files;
  return [
    [
      '--etcd-servers',
      `http://127.0.0.1:${ports.etcdFault}`,
      "the embedded etcd's API on loopback, with a fault for `otc-etcd-commit-timeout-*` names",
    ],
    ['--bind-address', '127.0.0.1', 'listen on loopback only'],
    ['--secure-port', String(ports.apiserver), 'the port the kubeconfig names'],
    [
      '--advertise-address',
      '127.0.0.1',
      'else kube-apiserver looks for a default route, and a loopback-only machine has none',
    ],
    ['--endpoint-reconciler-type', 'none', 'no kubernetes Endpoints pointing at an address nobody dials'],
    [
      '--service-cluster-ip-range',
      '10.0.0.0/24',
      'Service cluster IPs are allocated from it: data, never dialled',
    ],
    ['--tls-cert-file', f.serverCert, 'HTTPS (HTTP/2 by ALPN) with a certificate of the throwaway CA'],
    ['--tls-private-key-file', f.serverKey, 'its key'],
    ['--cert-dir', join(dir, 'certs'), 'never /var/run/kubernetes'],
    ['--client-ca-file', f.clientCa, 'client certificates a test issues at runtime authenticate'],
    ['--token-auth-file', f.tokenFile, 'bearer tokens of simulator/identities.json, fresh per start'],
    ['--authorization-mode', 'RBAC', 'authorization as on a cluster: RBAC decides'],
    [
      '--disable-admission-plugins',
      'StorageObjectInUseProtection',
      'the 1.34 defaults otherwise; no controller would ever remove the finalizer it adds to PVCs',
    ],
    ['--allow-privileged', 'true', 'published Templates ask for privileged containers; Pods never run here'],
    ['--service-account-issuer', 'https://kubernetes.default.svc', 'ServiceAccount tokens need an issuer'],
    ['--service-account-key-file', f.serviceAccountPublicKey, 'verifies them'],
    ['--service-account-signing-key-file', f.serviceAccountKey, 'signs them'],
    ['--audit-policy-file', f.auditPolicy, 'every mutating request at level Metadata'],
    ['--audit-log-path', f.auditLog, 'the write log tests read'],
    ['--audit-log-mode', 'blocking', 'an entry is on disk before the answer is sent'],
    ['--audit-log-maxbackup', '0', 'one file, never rotated away'],
    ['--requestheader-client-ca-file', f.frontProxyCa, "the CA of the aggregator's proxy client certificate"],
    ['--requestheader-allowed-names', FRONT_PROXY_CLIENT, 'the only common name it may carry'],
    ['--requestheader-username-headers', 'X-Remote-User', 'the identity headers the aggregator sends'],
    ['--requestheader-group-headers', 'X-Remote-Group', 'ditto'],
    ['--requestheader-extra-headers-prefix', 'X-Remote-Extra-', 'ditto'],
    [
      '--proxy-client-cert-file',
      f.frontProxyClientCert,
      'what the aggregator proves itself with to the simulator',
    ],
    ['--proxy-client-key-file', f.frontProxyClientKey, 'its key'],
    ['--profiling', 'false', 'no debug handlers'],
    [
      '--http2-max-streams-per-connection',
      String(options.http2MaxStreams ?? 0),
      "0 keeps the Go default of 100 (kube-apiserver's; OpenShift sets 2000: --http2-max-streams)",
    ],
    [
      '--max-requests-inflight',
      String(options.maxRequestsInflight ?? 400),
      "APF's seats, with the next: kube-apiserver's default (OpenShift 3000: --max-inflight)",
    ],
    [
      '--max-mutating-requests-inflight',
      String(options.maxMutatingRequestsInflight ?? 200),
      "kube-apiserver's default (OpenShift 1000: --max-inflight)",
    ],
    ['--v', '1', 'warnings and errors in the log file'],
  ];
}

/** Starts test/cluster's binary; its standard input is the parent-liveness pipe (closing it stops it). */
export function startControlPlane(
  binary: string,
  dir: string,
  material: Material,
  ports: Ports,
  options: ControlPlaneOptions = {},
): ChildProcess {
  const flags = apiserverFlags(dir, material, ports, options).map(([flag, value]) => `${flag}=${value}`);
  const log = createWriteStream(join(dir, 'control-plane.log'));
  const child = spawn(
    binary,
    [
      `--etcd-data-dir=${join(dir, 'etcd')}`,
      `--etcd-client-port=${ports.etcdClient}`,
      `--etcd-peer-port=${ports.etcdPeer}`,
      `--etcd-fault-port=${ports.etcdFault}`,
      '--',
      ...flags,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  return child;
}
