// startCluster(): the real tier. kube-apiserver and etcd from test/cluster on loopback, bootstrapped,
// with openshift-apiserver aggregated behind it (the real one built from a supplied source, or the
// simulator when asked for by name), and a kubeconfig shaped like the simulator's (one context per
// identity of simulator/identities.json).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { AggregatedMode } from '../../simulator/aggregated/mode.ts';
import { RESOURCES } from '../../simulator/discovery/resources.ts';
import { startSimulator } from '../../simulator/index.ts';
import {
  aggregatedGroupVersions,
  applyObjects,
  bootstrap,
  registerBackend,
  TEST_NAMESPACES,
} from './bootstrap.ts';
import { ClusterError, ensureBinary } from './build.ts';
import {
  clusterIngress,
  dryRunWrites,
  OPENSHIFT_GROUP_VERSIONS,
  OPENSHIFT_USER,
  openshiftCrds,
  openshiftIdentity,
  serviceAccountToken,
  startOpenshift,
} from './openshift.ts';
import { BACKEND_EXTENSION, ensureOpenshiftBinary, type OpenshiftBackend } from './openshift-build.ts';
import { type ControlPlaneOptions, type Ports, startControlPlane } from './control-plane.ts';
import { KubeClient } from './kube.ts';
import { FRONT_PROXY_CLIENT, type Material, SIMULATOR_USER, writeMaterial } from './material.ts';
import {
  apiServicesAvailable,
  crdsEstablished,
  discoveryServes,
  openapiLists,
  type Condition,
  readyz,
  waitFor,
} from './ready.ts';
import { claimRun, releaseRun } from './state.ts';

export interface ClusterOptions extends ControlPlaneOptions {
  openshift: OpenshiftBackend;
  /** kube-apiserver's port; default any free one. */
  port?: number;
  /** One deadline for the whole start, build excluded (default 180 s). */
  startTimeoutMs?: number;
  say?: (line: string) => void;
  signal?: AbortSignal;
}

export interface Cluster {
  url: string;
  kubeconfig: Record<string, unknown>;
  writeKubeconfig(path: string): Promise<void>;
  /** The audit log: one JSON event per mutating request (level Metadata). */
  auditLogPath: string;
  /** The admin's client, for tests that arrange state (quota status, foreign objects). */
  admin: KubeClient;
  /** Which openshift-apiserver serves the OpenShift groups. */
  backend: OpenshiftBackend['kind'];
  /** Stops every server and removes the run's data. */
  stop(): Promise<void>;
}

/** Takes a port on 127.0.0.1 and holds it; 0 asks the kernel for any. */
function holdPort(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new ClusterError(`cluster: port ${port} is in use on 127.0.0.1`)
          : error,
      );
    });
    server.listen(port, '127.0.0.1', () => {
      resolve(server);
    });
  });
}

/**
 * Free ports for the run, all held at once until every one is known: taken one after another and
 * let go at once, the kernel may hand out the same port twice (etcd's client port once came back
 * as the fault port, and the tier failed to start).
 */
async function freePorts(first: number, more: number): Promise<number[]> {
  const held: Server[] = [];
  try {
    held.push(await holdPort(first));
    for (let i = 0; i < more; i++) held.push(await holdPort());
    return held.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/**
 * The aggregator dials `localhost`, which may resolve to ::1 first: relay [::1]:port to the
 * simulator on 127.0.0.1 where the host has IPv6 loopback. Only loopback on both sides.
 */
async function relayIpv6Loopback(port: number): Promise<Server | undefined> {
  const relay = createServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = (): void => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end);
    upstream.on('error', end);
  });
  return new Promise((resolve) => {
    relay.once('error', () => {
      resolve(undefined);
    });
    relay.listen(port, '::1', () => {
      resolve(relay);
    });
  });
}

function kubeconfigOf(
  url: string,
  material: Material,
  backend: { kind: OpenshiftBackend['kind']; user: string },
): Record<string, unknown> {
  const identities = [...material.tokens];
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'cluster',
        cluster: {
          server: url,
          'certificate-authority-data': Buffer.from(material.kube.caCert).toString('base64'),
          // Says to the live suite that nothing here gains a status by itself (test/live/setup.ts).
          extensions: [
            {
              name: 'openshift-template-client.test/no-controllers',
              extension: { reason: 'npm run cluster runs no controller-manager and no operator' },
            },
            // check-templates reads a refused Template's writes from it (scripts/check-target.ts).
            {
              name: 'openshift-template-client.test/audit-log',
              extension: { path: material.files.auditLog },
            },
            // A test issues client certificates for identities it makes at runtime from this CA,
            // which kube-apiserver's --client-ca-file trusts (throwaway, like the tokens here).
            {
              name: 'openshift-template-client.test/client-ca',
              extension: { cert: material.files.clientCa, key: material.files.clientCaKey },
            },
            // Tests about the simulator's own seams run only where it is the backend.
            { name: BACKEND_EXTENSION, extension: { backend: backend.kind, user: backend.user } },
          ],
        },
      },
    ],
    users: identities.map(([identity, token]) => ({ name: identity.user, user: { token } })),
    contexts: identities.map(([identity]) => ({
      name: identity.context,
      context: { cluster: 'cluster', user: identity.user, namespace: 'workers' },
    })),
    'current-context': 'cluster',
    preferences: {},
  };
}

function exitWatcher(child: ChildProcess, logPath: string, what: string): () => string | undefined {
  let exit: string | undefined;
  child.once('exit', (code, signal) => {
    let tail = '';
    try {
      tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-5).join('\n');
    } catch {
      // No log yet.
    }
    exit = `${what} exited (${signal ?? `code ${code}`}) while starting:\n${tail}`;
  });
  return () => exit;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  child.stdin?.end();
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Stops a server when the run stops. */
function onStop(cleanups: (() => Promise<void> | void)[], close: () => Promise<void> | void): void {
  cleanups.push(close);
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const signal = options.signal ?? new AbortController().signal;
  const binary = await ensureBinary(say, signal);
  const openshiftBinary =
    options.openshift.kind === 'openshift-apiserver'
      ? await ensureOpenshiftBinary(options.openshift.source, say, signal)
      : undefined;
  const dir = claimRun();
  const cleanups: (() => Promise<void> | void)[] = [
    () => {
      releaseRun(dir);
    },
  ];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const taken = await freePorts(options.port ?? 0, 4);
    const port = (i: number): number => taken[i] ?? 0;
    const ports: Ports = {
      apiserver: port(0),
      etcdClient: port(1),
      etcdPeer: port(2),
      etcdFault: port(3),
      simulator: port(4),
    };
    const material = await writeMaterial(dir);
    const child = startControlPlane(binary, dir, material, ports, options);
    onStop(cleanups, () => stopChild(child));
    const controlPlaneDied = exitWatcher(child, join(dir, 'control-plane.log'), 'the control plane');
    const url = `https://127.0.0.1:${ports.apiserver}`;
    const admin = new KubeClient(url, material.kube.caCert, [...material.tokens.values()][0] ?? '');
    onStop(cleanups, () => {
      admin.close();
    });
    const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
    await waitFor([readyz(admin)], deadline, signal, controlPlaneDied);
    const crdNames = await bootstrap(admin);
    let groupVersions: string[];
    let died = controlPlaneDied;
    let backendUser: string;
    let ready: Condition[] = [];
    if (openshiftBinary) {
      groupVersions = OPENSHIFT_GROUP_VERSIONS;
      backendUser = OPENSHIFT_USER;
      await applyObjects(admin, [...openshiftIdentity(), ...openshiftCrds()]);
      const openshiftCrdNames = openshiftCrds().map((crd) => (crd.metadata as { name: string }).name);
      await waitFor([crdsEstablished(admin, openshiftCrdNames)], deadline, signal, died);
      await applyObjects(admin, [clusterIngress()]);
      // Registered before it listens, so the aggregator never knew another backend for them.
      await registerBackend(admin, groupVersions, ports.simulator, material.simulator.caCert);
      const server = await startOpenshift({
        binary: openshiftBinary,
        supervisor: binary,
        dir,
        material,
        port: ports.simulator,
        etcdUrl: `http://127.0.0.1:${ports.etcdFault}`,
        kubeUrl: url,
        token: await serviceAccountToken(admin),
      });
      onStop(cleanups, () => stopChild(server));
      const serverDied = exitWatcher(server, join(dir, 'openshift-apiserver.log'), 'openshift-apiserver');
      died = () => controlPlaneDied() ?? serverDied();
      ready = [dryRunWrites(admin, TEST_NAMESPACES[0] ?? 'infra')];
    } else {
      const resources = AggregatedMode.served(RESOURCES);
      groupVersions = aggregatedGroupVersions(resources);
      backendUser = SIMULATOR_USER;
      const simulator = await startSimulator({
        port: ports.simulator,
        namespaces: TEST_NAMESPACES,
        tls: material.simulator,
        aggregated: {
          kubeApiserver: { url, caCert: material.kube.caCert, token: material.simulatorToken },
          frontProxyCaCert: material.frontProxy.clientCaCert,
          allowedNames: [FRONT_PROXY_CLIENT],
        },
      });
      onStop(cleanups, () => simulator.close());
      await registerBackend(admin, groupVersions, ports.simulator, material.simulator.caCert);
    }
    const relay = await relayIpv6Loopback(ports.simulator);
    if (relay)
      onStop(
        cleanups,
        () =>
          new Promise<void>((resolve) =>
            relay.close(() => {
              resolve();
            }),
          ),
      );
    await waitFor(
      [
        crdsEstablished(admin, crdNames),
        apiServicesAvailable(admin, groupVersions),
        discoveryServes(admin, groupVersions),
        ...ready,
        openapiLists(admin, groupVersions, 2),
      ],
      deadline,
      signal,
      died,
    );
    const kubeconfig = kubeconfigOf(url, material, { kind: options.openshift.kind, user: backendUser });
    return {
      url,
      kubeconfig,
      async writeKubeconfig(path) {
        const partial = `${path}.${process.pid}.partial`;
        await writeFile(partial, `${JSON.stringify(kubeconfig, null, 2)}\n`, { mode: 0o600 });
        await rename(partial, path);
      },
      auditLogPath: material.files.auditLog,
      admin,
      backend: options.openshift.kind,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
