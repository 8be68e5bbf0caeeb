// The stand-in sections of `npm run bench` (`--only preflight`): against a minimal server in its
// own process (bench/stand-in.ts) at a fixed latency, what create()'s pre-flight costs for
// Templates of 3, 9 and 100 objects (with it and without it on one Connection, and one round trip
// measured alike), and bursts of K create jobs with the pre-flight against the raw client sending
// the same requests, dry runs included, first and warm, after a throwaway burst for both.
import { type ChildProcess, fork } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ocp from '../src/index.ts';
import { BURST_TEMPLATE } from './templates.ts';
import { burstTemplate } from './burst.ts';
import { benchTemplate } from './templates.ts';
import { captureAnswers, JOB_SENTINEL } from './stand-in-capture.ts';
import type { StandInCounts, StandInStart } from './stand-in.ts';
import type { ClientCommand, CostSamples, StandInImpl, Timed } from './stand-in-client.ts';

/** The Templates of the cost section: N objects over D group-versions (bench/templates.ts). */
export const COST_SHAPES: [number, number][] = [
  [3, 1],
  [9, 3],
  [100, 1],
];
/**
 * Objects of the burst Template (bench/burst.ts): a job's create is 2 + the quota list + 4 dry runs
 * + 4 applies.
 */
const BURST_OBJECTS = 4;
export const STAND_IN_REQUESTS_PER_JOB = 3 + 2 * BURST_OBJECTS;

export interface CostRow {
  protocol: 'h2' | 'http1';
  n: number;
  d: number;
  withMs: number;
  withoutMs: number;
  rttMs: number;
  /** The raw client's medians for the same rounds (bench/stand-in-client.ts, CostSamples.raw). */
  raw: { withMs: number; withoutMs: number; rttMs: number };
  /** Requests per round (with + without + the one-request read), the stand-in's count. */
  requests: number;
  expected: number;
  /** New connections in all the measured rounds, both clients' (none once their sockets are warm). */
  connections: number;
}

export interface StandInBurstRow {
  protocol: 'h2' | 'http1';
  k: number;
  impl: StandInImpl;
  phase: 'first' | 'warm';
  wallMs: number;
  cpuMs: number;
  requests: number;
  connections: number;
}

export interface StandInPlan {
  latencyMs: number;
  protocols: ('h2' | 'http1')[];
  ks: number[];
  costRuns: number;
  burstRuns: number;
  dir: string;
  maxConcurrentStreams: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

/** A forked child driven one command at a time over IPC. */
export class Child {
  readonly #process: ChildProcess;
  #pending: ((reply: Record<string, unknown>) => void) | undefined;
  private constructor(child: ChildProcess) {
    this.#process = child;
    child.on('message', (reply: Record<string, unknown>) => {
      const resolve = this.#pending;
      this.#pending = undefined;
      resolve?.(reply);
    });
  }

  static async start(file: string, execArgv: string[] = ['--expose-gc']): Promise<Child> {
    const child = new Child(fork(new URL(file, import.meta.url), [], { execArgv, stdio: 'inherit' }));
    await child.#next();
    return child;
  }

  #next(): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#pending = resolve;
    });
  }

  async ask(command: unknown): Promise<Record<string, unknown>> {
    const reply = this.#next();
    this.#process.send(command as object);
    return reply;
  }

  async run<T>(command: ClientCommand): Promise<T> {
    const reply = await this.ask(command);
    if (reply.ok !== true) throw new Error(`stand-in client: ${JSON.stringify(reply)}`);
    return reply.result as T;
  }

  stop(): void {
    this.#process.kill();
  }

  /** Lets the child end on its own (a `--cpu-prof` child writes its profile only then). */
  exit(): Promise<void> {
    return new Promise((resolve) => {
      this.#process.once('exit', () => {
        resolve();
      });
      this.#process.disconnect();
    });
  }
}

/** The workload whose answers the stand-in serves: every request the benches below send. */
export async function captureWorkload(kubeconfig: string): Promise<void> {
  await using api = await ocp.connect({ kubeconfig });
  const options = { namespace: 'workers', templateNamespace: 'infra', api, preflight: 'server' } as const;
  await ocp.create(BURST_TEMPLATE, { JOB: JOB_SENTINEL }, options);
  for (const [n, d] of COST_SHAPES) {
    const [first] = await ocp.create(`bench-${String(n)}-${String(d)}`, {}, options);
    if (first) await ocp.get({ namespace: 'workers', resources: [first], api });
  }
}

export interface World {
  kubeconfig: string;
  server: Child;
  counts(): Promise<StandInCounts>;
}

export async function startWorld(
  plan: StandInPlan,
  protocol: 'h2' | 'http1',
  captured: Awaited<ReturnType<typeof captureAnswers>>,
): Promise<World> {
  const server = await Child.start('./stand-in.ts');
  const start: StandInStart = {
    capture: captured.file,
    protocol,
    latencyMs: plan.latencyMs,
    maxConcurrentStreams: plan.maxConcurrentStreams,
  };
  const { url } = (await server.ask({ start })) as { url: string };
  const kubeconfig = join(plan.dir, `stand-in-${protocol}.json`);
  await writeFile(kubeconfig, captured.kubeconfig(url), { mode: 0o600 });
  const counts = async (): Promise<StandInCounts> =>
    ((await server.ask({ count: true })) as { counts: StandInCounts }).counts;
  return { kubeconfig, server, counts };
}

async function costRows(plan: StandInPlan, world: World, protocol: 'h2' | 'http1'): Promise<CostRow[]> {
  const client = await Child.start('./stand-in-client.ts', ['--expose-gc']);
  const rows: CostRow[] = [];
  try {
    await client.run({ open: { impl: 'library', kubeconfig: world.kubeconfig, protocol, k: 10 } });
    for (const [n, d] of COST_SHAPES) {
      const template = `bench-${String(n)}-${String(d)}`;
      // A first create discovers the Template's group-versions; then every round counts exactly.
      await client.run({ cost: { template, runs: 1 } });
      await world.counts();
      const samples = await client.run<CostSamples>({ cost: { template, runs: plan.costRuns } });
      const counted = await world.counts();
      rows.push({
        protocol,
        n,
        d,
        withMs: median(samples.withMs),
        withoutMs: median(samples.withoutMs),
        rttMs: median(samples.rttMs),
        raw: {
          withMs: median(samples.raw.withMs),
          withoutMs: median(samples.raw.withoutMs),
          rttMs: median(samples.raw.rttMs),
        },
        // The command's first create (without the pre-flight) names the ref the reads read; the
        // raw client's round sends the same requests as the library's, but for the reads of a
        // create without the pre-flight: with no dry run to say which objects exist, it reads each
        // to check it is the job's own before writing (the stand-in's dry runs answer 201: none
        // exists, so the pre-flight's create reads none).
        requests: (counted.requests - (2 + 2 * n)) / plan.costRuns,
        expected: 2 * (3 + 2 * n + (2 + n) + 1) + n,
        connections: counted.connections,
      });
    }
  } finally {
    client.stop();
  }
  return rows;
}

async function burstSamples(
  world: World,
  protocol: 'h2' | 'http1',
  impl: StandInImpl,
  k: number,
): Promise<StandInBurstRow[]> {
  const client = await Child.start('./stand-in-client.ts', ['--expose-gc']);
  try {
    await client.run({ open: { impl, kubeconfig: world.kubeconfig, protocol, k } });
    const rows: StandInBurstRow[] = [];
    for (const phase of ['first', 'warm'] as const) {
      await world.counts();
      const timed = await client.run<Timed>({ burst: { k } });
      const counted = await world.counts();
      rows.push({
        protocol,
        k,
        impl,
        phase,
        ...timed,
        requests: counted.requests,
        connections: counted.connections,
      });
    }
    await client.run({ close: true });
    return rows;
  } finally {
    client.stop();
  }
}

/** Median wall time per client and phase, the clients taking turns run by run. */
async function burstRows(
  plan: StandInPlan,
  world: World,
  protocol: 'h2' | 'http1',
): Promise<StandInBurstRow[]> {
  const rows: StandInBurstRow[] = [];
  for (const k of plan.ks) {
    const runs: StandInBurstRow[] = [];
    for (let run = 0; run < plan.burstRuns; run++)
      for (const impl of ['library', 'raw'] as const)
        runs.push(...(await burstSamples(world, protocol, impl, k)));
    for (const impl of ['library', 'raw'] as const)
      for (const phase of ['first', 'warm'] as const) {
        const list = runs
          .filter((r) => r.impl === impl && r.phase === phase)
          .sort((a, b) => a.wallMs - b.wallMs);
        const mid = list[Math.floor((list.length - 1) / 2)];
        if (!mid) throw new Error('no burst was measured');
        rows.push({
          ...mid,
          requests: Math.max(...list.map((r) => r.requests)),
          connections: Math.max(...list.map((r) => r.connections)),
        });
      }
  }
  return rows;
}

/** Both sections, each protocol on a stand-in of its own; `failures` gets every count off its exact figure. */
export async function runStandInBench(
  plan: StandInPlan,
  progress: (line: string) => void,
  failures: string[],
): Promise<{ cost: CostRow[]; bursts: StandInBurstRow[] }> {
  const captured = await captureAnswers(
    plan.dir,
    (sim) => {
      sim.seed(burstTemplate());
      for (const [n, d] of COST_SHAPES) sim.seed(benchTemplate(n, d));
    },
    captureWorkload,
  );
  const cost: CostRow[] = [];
  const bursts: StandInBurstRow[] = [];
  for (const protocol of plan.protocols) {
    const world = await startWorld(plan, protocol, captured);
    try {
      for (const row of await costRows(plan, world, protocol)) {
        progress(
          `preflight ${protocol.padEnd(5)} N=${String(row.n).padStart(3)} with ${row.withMs.toFixed(1).padStart(7)} ms  without ${row.withoutMs.toFixed(1).padStart(7)} ms  rtt ${row.rttMs.toFixed(1)} ms  ${String(row.requests)} req  raw with ${row.raw.withMs.toFixed(1)} without ${row.raw.withoutMs.toFixed(1)} rtt ${row.raw.rttMs.toFixed(1)} ms  ${String(row.connections)} conn`,
        );
        if (row.requests !== row.expected)
          failures.push(
            `preflight ${protocol} N=${String(row.n)}: ${String(row.requests)} requests a round, expected ${String(row.expected)}`,
          );
        // The first command's rounds opened every socket a wave needs; the measured ones reuse them.
        if (row.connections !== 0)
          failures.push(
            `preflight ${protocol} N=${String(row.n)}: ${String(row.connections)} new connections in the measured rounds, expected none`,
          );
        cost.push(row);
      }
      for (const row of await burstRows(plan, world, protocol)) {
        progress(
          `stand-in burst ${protocol.padEnd(5)} K=${String(row.k).padStart(3)} ${row.impl.padEnd(7)} ${row.phase.padEnd(5)} ${row.wallMs.toFixed(0).padStart(6)} ms  cpu ${row.cpuMs.toFixed(0).padStart(6)} ms  ${String(row.requests)} req ${String(row.connections)} conn`,
        );
        const expected = row.k * STAND_IN_REQUESTS_PER_JOB;
        if (row.requests !== expected)
          failures.push(
            `stand-in burst ${protocol} K=${String(row.k)} ${row.impl} ${row.phase}: ${String(row.requests)} requests, expected ${String(expected)}`,
          );
        if (protocol === 'h2' && row.impl === 'library' && row.connections !== 0)
          failures.push(
            `stand-in burst h2 K=${String(row.k)} ${row.phase}: ${String(row.connections)} new connections, expected none`,
          );
        bursts.push(row);
      }
    } finally {
      world.server.stop();
    }
  }
  return { cost, bursts };
}
