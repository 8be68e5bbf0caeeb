// The burst benchmark's client process: K concurrent create jobs, then K concurrent delete jobs, on
// one client, with this library or with clients that do the same requests and nothing else:
// plain undici over HTTP/1.1 with unlimited sockets, one node:http2 session, and the do-it-yourself
// client-node baseline. Reports wall time, per-job latencies, CPU and peak heap.
import { getHeapStatistics } from 'node:v8';
import * as k8s from '@kubernetes/client-node';
import * as ocp from '../src/index.ts';
import { BURST_TEMPLATE } from './templates.ts';
import { applyAll, rawH1, rawH2, type Rendered, render, replayDelete, type Send } from './raw.ts';

export type BurstImpl = 'library' | 'raw-h1' | 'raw-h2' | 'baseline';

export interface BurstCommand {
  impl: BurstImpl;
  k: number;
  kubeconfig: string;
  /**
   * Instead of bursts: this many sequential create, get and delete cycles of one job (library
   * only), reported as the `create` phase; `delete` and `warm` are then empty.
   */
  cycles?: number;
}

export interface BurstPhase {
  wallMs: number;
  jobMs: number[];
  cpuMs: number;
  peakHeapBytes: number;
}

export interface BurstResult {
  create: BurstPhase;
  delete: BurstPhase;
  /** A second create burst on the same client and connections, after the first was deleted. */
  warm: BurstPhase;
}

export { BURST_TEMPLATE };
const OPTIONS = { namespace: 'workers', templateNamespace: 'infra' } as const;

/** What a user of client-node writes without this library (one TLS handshake per request). */
function baseline(kubeconfig: string): {
  create: (job: string) => Promise<void>;
  remove: (job: string) => Promise<void>;
} {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const send: Send = async (method, _path, body) => {
    if (method === 'GET')
      return custom.getNamespacedCustomObject({
        group: 'template.openshift.io',
        version: 'v1',
        namespace: 'infra',
        plural: 'templates',
        name: BURST_TEMPLATE,
      });
    return custom.createNamespacedCustomObject({
      group: 'template.openshift.io',
      version: 'v1',
      namespace: 'workers',
      plural: 'processedtemplates',
      body: body as object,
    });
  };
  const spec = (o: Rendered): k8s.KubernetesObject & { metadata: { name: string; namespace: string } } => {
    // As a client-node user would: metadata as its model class.
    const metadata = Object.assign(new k8s.V1ObjectMeta(), { name: o.metadata.name, namespace: 'workers' });
    return { ...o, metadata };
  };
  return {
    create: async (job) => {
      for (const o of await render(send, BURST_TEMPLATE, { JOB: job }))
        await objects.patch(
          spec(o),
          undefined,
          undefined,
          'baseline',
          false,
          k8s.PatchStrategy.ServerSideApply,
        );
    },
    remove: async (job) => {
      for (const o of (await render(send, BURST_TEMPLATE, { JOB: job })).reverse())
        await objects.delete(spec(o));
    },
  };
}

async function phase(k: number, job: (name: string) => Promise<unknown>): Promise<BurstPhase> {
  globalThis.gc?.();
  const heapBefore = getHeapStatistics().used_heap_size;
  let peak = heapBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, getHeapStatistics().used_heap_size);
  }, 10);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const jobMs = await Promise.all(
    Array.from({ length: k }, async (_, i) => {
      const t = performance.now();
      await job(`job-${i}`);
      return performance.now() - t;
    }),
  );
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  const cpu = process.cpuUsage(cpuBefore);
  peak = Math.max(peak, getHeapStatistics().used_heap_size);
  return { wallMs, jobMs, cpuMs: (cpu.user + cpu.system) / 1000, peakHeapBytes: peak - heapBefore };
}

const EMPTY: BurstPhase = { wallMs: 0, jobMs: [], cpuMs: 0, peakHeapBytes: 0 };

/** Sequential cycles on one Connection: what a scheduler running one job at a time does. */
async function cycles(kubeconfig: string, count: number): Promise<BurstResult> {
  await using api = await ocp.connect({ kubeconfig });
  const options = { ...OPTIONS, api };
  const create = await phase(1, async (job) => {
    for (let i = 0; i < count; i++) {
      await ocp.create(BURST_TEMPLATE, { JOB: job }, options);
      await ocp.get(BURST_TEMPLATE, { JOB: job }, options);
      await ocp.delete(BURST_TEMPLATE, { JOB: job }, options);
    }
  });
  return { create, delete: EMPTY, warm: EMPTY };
}

/**
 * The job every client runs once (create, then delete) before its bursts: the library's Connection
 * then holds the schema documents create() types against, as a Connection that has created before
 * does, and every client's code has run once.
 */
const WARM_UP_JOB = 'warm-up';

async function burst(command: BurstCommand): Promise<BurstResult> {
  const { impl, k, kubeconfig } = command;
  if (command.cycles !== undefined) return cycles(kubeconfig, command.cycles);
  if (impl === 'library') {
    await using api = await ocp.connect({ kubeconfig });
    await ocp.create(BURST_TEMPLATE, { JOB: WARM_UP_JOB }, { ...OPTIONS, api });
    await ocp.delete(BURST_TEMPLATE, { JOB: WARM_UP_JOB }, { ...OPTIONS, api });
    const create = await phase(k, (job) => ocp.create(BURST_TEMPLATE, { JOB: job }, { ...OPTIONS, api }));
    const remove = await phase(k, (job) => ocp.delete(BURST_TEMPLATE, { JOB: job }, { ...OPTIONS, api }));
    const warm = await phase(k, (job) => ocp.create(BURST_TEMPLATE, { JOB: job }, { ...OPTIONS, api }));
    await phase(k, (job) => ocp.delete(BURST_TEMPLATE, { JOB: job }, { ...OPTIONS, api }));
    return { create, delete: remove, warm };
  }
  if (impl === 'baseline') {
    const client = baseline(kubeconfig);
    await client.create(WARM_UP_JOB);
    await client.remove(WARM_UP_JOB);
    const create = await phase(k, client.create);
    const remove = await phase(k, client.remove);
    const warm = await phase(k, client.create);
    await phase(k, client.remove);
    return { create, delete: remove, warm };
  }
  const client = impl === 'raw-h1' ? rawH1(kubeconfig) : rawH2(kubeconfig);
  const { send } = client;
  try {
    // The same first request as connect(): one warm connection before the burst, as the library has.
    await send('GET', '/api/v1');
    const createJob = async (job: string): Promise<void> => {
      await applyAll(send, await render(send, BURST_TEMPLATE, { JOB: job }));
    };
    const deleteJob = async (job: string): Promise<void> => {
      await replayDelete(client, await render(send, BURST_TEMPLATE, { JOB: job }));
    };
    await createJob(WARM_UP_JOB);
    await deleteJob(WARM_UP_JOB);
    const create = await phase(k, createJob);
    const remove = await phase(k, deleteJob);
    const warm = await phase(k, createJob);
    await phase(k, deleteJob);
    return { create, delete: remove, warm };
  } finally {
    await client.close();
  }
}

process.on('message', (command: BurstCommand) => {
  burst(command).then(
    (result) => process.send?.({ ok: true, result }),
    (error: unknown) =>
      process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.send?.({ ready: true });
