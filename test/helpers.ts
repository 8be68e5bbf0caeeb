// Shared set-up for the library tests: a simulator per file and connections to it over real HTTPS.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import * as ocp from '../src/index.ts';
import {
  type KubeconfigObject,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../simulator/index.ts';
import { startProxy, type TestProxy } from './proxies.ts';

export interface Harness {
  sim: Simulator;
  kubeconfig: string;
  connect(options?: ocp.ConnectOptions): Promise<ocp.Connection>;
  /** Writes a changed copy of the simulator's kubeconfig beside the harness's own and returns its path. */
  kubeconfigWith(change: (config: KubeconfigObject) => void): Promise<string>;
  close(): Promise<void>;
}

/**
 * `npm run test:proxy` runs the library suite with every harness behind a proxy of the kind
 * OTS_TEST_PROXY names (`http`, `https`, `socks5`), with credentials, through the kubeconfig's
 * `proxy-url`.
 */
async function proxyFromEnvironment(): Promise<TestProxy | undefined> {
  const kind = globalThis.process.env.OTS_TEST_PROXY;
  if (kind === undefined || kind === '') return undefined;
  if (kind !== 'http' && kind !== 'https' && kind !== 'socks5')
    throw new Error(`OTS_TEST_PROXY must be "http", "https" or "socks5", not ${JSON.stringify(kind)}`);
  const password = globalThis.process.env.OTS_SENTINEL_PROXY_PASSWORD ?? 'suite-proxy-password';
  return startProxy(kind, { credentials: { username: 'suite', password } });
}

function routeThrough(config: KubeconfigObject, proxy: TestProxy | undefined, caCert: string): void {
  if (!proxy) return;
  const cluster = config.clusters[0]?.cluster as Record<string, unknown> | undefined;
  if (!cluster) return;
  cluster['proxy-url'] = proxy.urlWithCredentials;
  if (proxy.kind === 'https')
    cluster['certificate-authority-data'] = Buffer.from(caCert + proxy.caCert).toString('base64');
}

export async function harness(options: SimulatorOptions = {}): Promise<Harness> {
  // The sentinel run (test/reliability/sentinels.test.ts) makes every harness use a known token.
  const sentinel = globalThis.process.env.OTS_SENTINEL_TOKEN;
  const sim = await startSimulator({
    ...options,
    ...(sentinel ? { tokens: { ...options.tokens, [sentinel]: { user: 'admin' } } } : {}),
  });
  const proxy = await proxyFromEnvironment();
  const dir = await mkdtemp(join(tmpdir(), 'ots-test-'));
  const kubeconfig = join(dir, 'kubeconfig.json');
  const config = sim.kubeconfig;
  if (sentinel) {
    const admin = config.users.find((u) => u.name === 'admin');
    if (admin) admin.user.token = sentinel;
  }
  routeThrough(config, proxy, sim.caCert);
  await writeFile(kubeconfig, JSON.stringify(config), { mode: 0o600 });
  // Operations without `api` load the default kubeconfig, as they would in a user's shell.
  globalThis.process.env.KUBECONFIG = kubeconfig;
  let variants = 0;
  return {
    sim,
    kubeconfig,
    connect: (more = {}) => ocp.connect({ kubeconfig, ...more }),
    kubeconfigWith: async (change) => {
      const config = sim.kubeconfig;
      routeThrough(config, proxy, sim.caCert);
      change(config);
      const path = join(dir, `kubeconfig-${++variants}.json`);
      await writeFile(path, JSON.stringify(config), { mode: 0o600 });
      return path;
    },
    close: async () => {
      await proxy?.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const WORKER = { namespace: 'workers', templateNamespace: 'infra' } as const;

/**
 * Keeps what a test file opens as it goes (harnesses, Connections) open to the end of the file,
 * then closes it, the last opened first: a Connection before the harness it talks to. Kept to
 * the end because a closed simulator's port could come back as a later one's URL.
 */
export function closedAfterAll(): <T extends { close(): Promise<void> }>(opened: T) => T {
  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });
  return (opened) => {
    open.push(opened);
    return opened;
  };
}

export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error('rejected with a non-Error value', { cause: error });
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/**
 * Waits until `read()` returns `expected` (the server sees a closed socket a moment after the
 * client; a killed plugin exits a moment after the kill). The bound is generous on purpose: a
 * passing run never waits it out, and a loaded 2-core machine may take seconds to start or reap a
 * process. It stays below the test timeout so that a miss fails on its own assertion.
 */
export async function settles<T>(read: () => T, expected: T): Promise<T> {
  const deadline = Date.now() + 20_000;
  let value = read();
  while (value !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = read();
  }
  return value;
}

/** Asserts the class and narrows to it. */
export function instance<T>(value: unknown, type: abstract new (...args: never[]) => T): T {
  if (!(value instanceof type))
    throw new Error(`expected a ${type.name}, got ${String(value)}`, { cause: value });
  return value;
}

type TemplateCall = (
  name: string,
  parameters: ocp.TemplateParameters,
  options: ocp.DeleteOptions & ocp.CreateOptions,
) => Promise<unknown>;

/** The four template-mode operations, callable by name. */
export const templateOperations: Record<'process' | 'create' | 'get' | 'delete', TemplateCall> = {
  process: (n, p, o) => ocp.process(n, p, o),
  create: (n, p, o) => ocp.create(n, p, o),
  get: (n, p, o) => ocp.get(n, p, o),
  delete: (n, p, o) => ocp.delete(n, p, o),
};
