// startCluster(): the real tier. kube-apiserver and etcd from test/cluster on loopback, bootstrapped,
// with the simulator as its aggregated openshift-apiserver, and a kubeconfig shaped like the
// simulator's (one context per identity of simulator/identities.json).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { AggregatedMode } from '../../simulator/aggregated/mode.ts';
import { RESOURCES } from '../../simulator/discovery/resources.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { aggregatedGroupVersions, bootstrap, registerSimulator, TEST_NAMESPACES } from './bootstrap.ts';
import { ClusterError, ensureBinary } from './build.ts';
import { type ControlPlaneOptions, type Ports, startControlPlane } from './control-plane.ts';
import { KubeClient } from './kube.ts';
import { FRONT_PROXY_CLIENT, type Material, writeMaterial } from './material.ts';
import {
  apiServicesAvailable,
  crdsEstablished,
  discoveryServes,
  openapiLists,
  readyz,
  waitFor,
} from './ready.ts';
import { claimRun, releaseRun } from './state.ts';

export interface ClusterOptions extends ControlPlaneOptions {
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
  simulator: Simulator;
  /** Stops both servers and removes the run's data. */
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

function kubeconfigOf(url: string, material: Material): Record<string, unknown> {
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

function exitWatcher(child: ChildProcess, logPath: string): () => string | undefined {
  let exit: string | undefined;
  child.once('exit', (code, signal) => {
    let tail = '';
    try {
      tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-5).join('\n');
    } catch {
      // No log yet.
    }
    exit = `the control plane exited (${signal ?? `code ${code}`}) while starting:\n${tail}`;
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

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const signal = options.signal ?? new AbortController().signal;
  const binary = await ensureBinary(say, signal);
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
    cleanups.push(() => stopChild(child));
    const died = exitWatcher(child, join(dir, 'control-plane.log'));
    const url = `https://127.0.0.1:${ports.apiserver}`;
    const admin = new KubeClient(url, material.kube.caCert, [...material.tokens.values()][0] ?? '');
    cleanups.push(() => {
      admin.close();
    });
    const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
    await waitFor([readyz(admin)], deadline, signal, died);
    const crdNames = await bootstrap(admin);
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
    cleanups.push(() => simulator.close());
    const relay = await relayIpv6Loopback(ports.simulator);
    if (relay)
      cleanups.push(
        () =>
          new Promise<void>((resolve) =>
            relay.close(() => {
              resolve();
            }),
          ),
      );
    const resources = AggregatedMode.served(RESOURCES);
    await registerSimulator(admin, resources, ports.simulator, material.simulator.caCert);
    const groupVersions = aggregatedGroupVersions(resources);
    await waitFor(
      [
        crdsEstablished(admin, crdNames),
        apiServicesAvailable(admin, groupVersions),
        discoveryServes(admin, groupVersions),
        openapiLists(admin, groupVersions),
      ],
      deadline,
      signal,
      died,
    );
    const kubeconfig = kubeconfigOf(url, material);
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
      simulator,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
