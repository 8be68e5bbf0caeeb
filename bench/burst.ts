// The burst section of `npm run bench`: K concurrent create jobs, then K delete jobs, on ONE client,
// against a simulator that offers HTTP/2 (as kube-apiserver does) and one that speaks HTTP/1.1
// only, for the library and for clients that send the same requests and nothing else.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { type JsonObject, type Protocol, type Simulator, startSimulator } from '../simulator/index.ts';
import {
  BURST_TEMPLATE,
  type BurstCommand,
  type BurstImpl,
  type BurstPhase,
  type BurstResult,
} from './burst-client.ts';

export interface BurstRow {
  protocol: Protocol;
  latencyMs: number;
  k: number;
  impl: BurstImpl;
  /** `warm`: a second create burst on the same client, after the first was deleted. */
  phase: 'create' | 'delete' | 'warm';
  wallMs: number;
  p50Ms: number;
  p99Ms: number;
  cpuMs: number;
  peakHeapBytes: number;
  /** Both phases together: the server's own counts. */
  requests: number;
  connections: number;
  handshakes: number;
  /** Of those, handshakes that resumed a TLS session. */
  resumed: number;
}

/** Objects of one job's Template. */
const OBJECTS_PER_JOB = 4;

/**
 * Requests one job's create sends: the Template GET, the processing POST, the pre-flight's quota
 * list, then per object its pre-flight dry run and its write.
 */
export const REQUESTS_PER_JOB = 3 + 2 * OBJECTS_PER_JOB;

/** The most requests one job has in flight at once: its pre-flight's dry runs and quota list. */
export const WAVE_PER_JOB = OBJECTS_PER_JOB + 1;

/** Requests one job's replay delete sends: those two, then a read and a DELETE per object. */
export const DELETE_REQUESTS_PER_JOB = 2 + OBJECTS_PER_JOB + OBJECTS_PER_JOB;

/**
 * What the library sends before its bursts: the warm-up job's create and delete, and the create's
 * schema requests (the /openapi/v3 root and the core v1 document: the burst client is a fresh
 * process, whose cache of documents is empty).
 */
export const WARM_UP_REQUESTS = REQUESTS_PER_JOB + DELETE_REQUESTS_PER_JOB + 2;

/**
 * Bursts per configuration: the library and the raw clients are within a few tenths of each other,
 * where one noisy burst on a 2-core machine moves a ratio by more, so they get more runs than the
 * client-node baseline, which is several times slower and far from its target.
 */
export const BURST_RUNS = 7;
export const BASELINE_BURST_RUNS = 3;

export function burstTemplate(): JsonObject {
  const object = (kind: string, suffix: string): JsonObject => ({
    apiVersion: 'v1',
    kind,
    metadata: { name: `\${JOB}-${suffix}` },
    ...(kind === 'Secret' ? { stringData: { key: '${JOB}' } } : { data: { job: '${JOB}' } }),
  });
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: BURST_TEMPLATE, namespace: 'infra' },
    parameters: [{ name: 'JOB', required: true }],
    objects: [
      object('ConfigMap', 'a'),
      object('Secret', 'b'),
      object('ConfigMap', 'c'),
      object('Secret', 'd'),
    ],
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** One burst in a fresh child process, so no socket, heap or JIT state carries over. */
export function runChild(command: BurstCommand): Promise<BurstResult> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./burst-client.ts', import.meta.url), [], {
      execArgv: ['--expose-gc'],
      stdio: 'inherit',
    });
    child.on('message', (reply: { ready?: boolean; ok?: boolean; result?: BurstResult; error?: string }) => {
      if (reply.ready) {
        child.send(command);
        return;
      }
      child.kill();
      if (reply.ok && reply.result) resolve(reply.result);
      else reject(new Error(`burst ${command.impl} K=${command.k}: ${reply.error ?? 'no result'}`));
    });
    child.on('error', reject);
  });
}

export interface BurstPlan {
  protocols: Protocol[];
  latencies: number[];
  ks: number[];
  impls: (protocol: Protocol) => BurstImpl[];
  dir: string;
  /** Bursts per configuration and client; the median is reported. */
  runs: (impl: BurstImpl) => number;
}

interface BurstSample {
  result: BurstResult;
  requests: number;
  connections: number;
  handshakes: number;
  resumed: number;
}

/** One fresh client process against `sim`, with the simulator's counts for what it sent. */
async function sample(sim: Simulator, command: BurstCommand, objectsBefore: number): Promise<BurstSample> {
  sim.clearLog();
  const before = sim.stats();
  const result = await runChild(command);
  const after = sim.stats();
  if (sim.objectCount() !== objectsBefore)
    throw new Error(`burst ${command.impl} K=${command.k} left objects behind`);
  return {
    result,
    requests: sim.log.length,
    connections: after.connections - before.connections,
    handshakes: after.handshakes - before.handshakes,
    resumed: after.resumedHandshakes - before.resumedHandshakes,
  };
}

/**
 * Every client's bursts in turn (library, raw, baseline, library, ...), so that a spell of load on
 * the machine falls on all of them rather than on whichever client ran during it.
 */
async function interleaved(
  sim: Simulator,
  plan: BurstPlan,
  impls: BurstImpl[],
  command: Omit<BurstCommand, 'impl'>,
): Promise<Map<BurstImpl, BurstSample[]>> {
  const samples = new Map(impls.map((impl) => [impl, [] as BurstSample[]]));
  const rounds = Math.max(...impls.map((impl) => plan.runs(impl)));
  const objectsBefore = sim.objectCount();
  for (let round = 0; round < rounds; round++)
    for (const impl of impls)
      if (round < plan.runs(impl))
        samples.get(impl)?.push(await sample(sim, { ...command, impl }, objectsBefore));
  return samples;
}

function rowsOf(
  samples: BurstSample[],
  at: Pick<BurstRow, 'protocol' | 'latencyMs' | 'k' | 'impl'>,
): BurstRow[] {
  const counts = {
    requests: Math.max(...samples.map((x) => x.requests)),
    connections: Math.max(...samples.map((x) => x.connections)),
    handshakes: Math.max(...samples.map((x) => x.handshakes)),
    resumed: Math.min(...samples.map((x) => x.resumed)),
  };
  return (['create', 'delete', 'warm'] as const).map((phase) => {
    // The run whose time is the median, so that its percentiles, CPU and heap belong together.
    const sorted = samples.map((x) => x.result[phase]).sort((a, b) => a.wallMs - b.wallMs);
    const m: BurstPhase | undefined = sorted[Math.floor((sorted.length - 1) / 2)];
    if (!m) throw new Error('no burst was measured');
    return {
      ...at,
      phase,
      wallMs: m.wallMs,
      p50Ms: percentile(m.jobMs, 50),
      p99Ms: percentile(m.jobMs, 99),
      cpuMs: m.cpuMs,
      peakHeapBytes: m.peakHeapBytes,
      ...counts,
    };
  });
}

export async function runBursts(plan: BurstPlan, progress: (line: string) => void): Promise<BurstRow[]> {
  const rows: BurstRow[] = [];
  for (const protocol of plan.protocols) {
    const sim = await startSimulator({ protocol, seedExamples: false, namespaces: ['infra', 'workers'] });
    const kubeconfig = join(plan.dir, `burst-${protocol}.json`);
    try {
      await sim.writeKubeconfig(kubeconfig);
      sim.seed(burstTemplate());
      for (const latencyMs of plan.latencies) {
        sim.setLatency(latencyMs);
        for (const k of plan.ks) {
          const impls = plan.impls(protocol);
          const samples = await interleaved(sim, plan, impls, { k, kubeconfig });
          for (const impl of impls) {
            const measured = rowsOf(samples.get(impl) ?? [], { protocol, latencyMs, k, impl });
            const [create, remove, warm] = measured;
            if (!create || !remove || !warm) throw new Error('no burst was measured');
            progress(
              `burst ${protocol.padEnd(5)} ${String(latencyMs).padStart(2)}ms K=${String(k).padStart(3)} ${impl.padEnd(8)} create ${create.wallMs.toFixed(0).padStart(6)} ms  delete ${remove.wallMs.toFixed(0).padStart(6)} ms  warm ${warm.wallMs.toFixed(0).padStart(6)} ms  ${create.requests} req ${create.connections} conn ${create.handshakes} tls (${create.resumed} resumed)`,
            );
            rows.push(...measured);
          }
        }
      }
    } finally {
      await sim.close();
    }
  }
  return rows;
}
