// The typing section of `npm run bench`: what create()'s typing against the server's OpenAPI v3
// documents sends and costs. Request counts (exact, in --smoke too) from the simulator's log; the
// first create on a fresh Connection with and without typing; the bytes of the documents, counted
// at the simulator; the heap a Connection retains for the documents of the published corpus. Every
// first create runs in a fresh client process: the library keeps documents process-wide.
import { join } from 'node:path';
import { type LogEntry, type Protocol, type Simulator, startSimulator } from '../simulator/index.ts';
import { countResponseBytes } from './response-bytes.ts';
import { benchTemplate, groupVersions, minimumRequests, openapiPath } from './templates.ts';
import type { StepResult } from './typing-client.ts';
import { inFreshChild } from './typing-steps.ts';

const ROOT = '/openapi/v3';
export const isOpenApi = (url: string): boolean =>
  url === ROOT || url.startsWith(`${ROOT}/`) || url.startsWith(`${ROOT}?`);

/** One create's requests, split: the schema root, the documents, and everything else. */
export interface CreateRequests {
  root: LogEntry[];
  documents: LogEntry[];
  others: LogEntry[];
}

function split(log: LogEntry[]): CreateRequests {
  return {
    root: log.filter((e) => e.path === ROOT),
    documents: log.filter((e) => e.path.startsWith(`${ROOT}/`)),
    others: log.filter((e) => !isOpenApi(e.path)),
  };
}

const finish = (e: LogEntry): number => e.time + e.durationMs;

/** The most requests of `entries` the simulator held at one moment, from arrival to answer. */
export function mostInFlight(entries: LogEntry[]): number {
  const events = entries.flatMap((e) => [
    { at: e.time, step: 1 },
    { at: finish(e), step: -1 },
  ]);
  // An answer and an arrival at the same millisecond: the answer first, so touching is no overlap.
  events.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const event of events) {
    now += event.step;
    most = Math.max(most, now);
  }
  return most;
}

export interface CountCheck {
  label: string;
  ok: boolean;
  detail: string;
}

/**
 * The first create's schema requests: the root, one document per group-version, all before a
 * PATCH, on the connection the create began on (none opened for them);
 * `concurrent`: the documents all in flight at once (HTTP/2), else one after another (HTTP/1.1,
 * where each request in parallel would open a socket and a TLS handshake of its own).
 */
export function firstCreateChecks(
  label: string,
  log: LogEntry[],
  apiVersions: string[],
  n: number,
  wire: { concurrent: boolean },
): CountCheck[] {
  const d = apiVersions.length;
  const { root, documents, others } = split(log);
  const expected = new Set(apiVersions.map((v) => `${ROOT}/${openapiPath(v)}`));
  const paths = documents.map((e) => e.path);
  const firstPatch = log.find((e) => e.method === 'PATCH');
  const schema = [...root, ...documents];
  const beforePatch =
    firstPatch !== undefined &&
    schema.every((e) => e.seq < firstPatch.seq && finish(e) <= firstPatch.time + 1);
  const inFlight = mostInFlight(documents);
  const firstSchema = schema[0]?.seq ?? 0;
  const earlier = new Set(log.filter((e) => e.seq < firstSchema).map((e) => e.connection));
  const opened = new Set(schema.map((e) => e.connection).filter((c) => !earlier.has(c)));
  const minimum = minimumRequests('create', n, d);
  return [
    {
      label: `${label}: the root once, one GET per group-version used (${d}), each by hash`,
      ok:
        root.length === 1 &&
        documents.length === d &&
        new Set(paths).size === d &&
        paths.every((p) => expected.has(p)) &&
        documents.every((e) => typeof e.query.hash === 'string' && e.query.hash !== ''),
      detail: `${root.length} root, ${documents.length} documents (${paths.join(', ') || 'none'})`,
    },
    {
      label: `${label}: nothing else beyond the create's own ${minimum} requests`,
      ok: others.length === minimum,
      detail: `${others.length} other requests`,
    },
    {
      label: wire.concurrent
        ? `${label}: the ${d} document GETs in flight at once`
        : `${label}: the ${d} document GETs one after another`,
      ok: inFlight === (wire.concurrent ? d : 1),
      detail: `at most ${inFlight} in flight`,
    },
    {
      // On the connection the Template GET used: later, the pre-flight's dry runs may open sockets
      // of their own over HTTP/1.1, but the schema requests never do.
      label: `${label}: no connection opened for them`,
      ok: opened.size === 0,
      detail: `${opened.size} connections opened`,
    },
    {
      label: `${label}: root and documents answered before the first PATCH`,
      ok: beforePatch,
      detail: firstPatch ? `first PATCH is request ${firstPatch.seq - (log[0]?.seq ?? 0) + 1}` : 'no PATCH',
    },
  ];
}

export function totalCheck(
  label: string,
  log: LogEntry[],
  expected: { root: number; documents: number; others: number },
): CountCheck {
  const { root, documents, others } = split(log);
  return {
    label: `${label}: ${expected.root} root, ${expected.documents} documents, ${expected.others} other requests`,
    ok:
      root.length === expected.root &&
      documents.length === expected.documents &&
      others.length === expected.others,
    detail: `${root.length} root, ${documents.length} documents, ${others.length} other`,
  };
}

export function noErrors(label: string, result: StepResult): CountCheck[] {
  return result.errors.length === 0
    ? []
    : [{ label: `${label}: the create succeeds`, ok: false, detail: result.errors.slice(0, 3).join(' | ') }];
}

const N = 4;
const D = 3;
const TEMPLATE = `bench-${N}-${D}`;
/** The Template the request-count checks create: N objects over D group-versions. */
export const COUNTED = { n: N, d: D, template: TEMPLATE } as const;
/** Long enough that requests sent at once overlap in the simulator's log whatever the machine. */
const OVERLAP_LATENCY_MS = 50;

export async function benchSimulator(protocol: Protocol, openapiV3 = true): Promise<Simulator> {
  const sim = await startSimulator({
    protocol,
    openapiV3,
    seedExamples: false,
    namespaces: ['infra', 'workers'],
  });
  sim.seed(benchTemplate(N, D));
  return sim;
}

/** Request counts with typing on: fresh process, same Connection again, new Connection, a burst, no /openapi/v3. */
export async function typingRequestChecks(protocol: Protocol, dir: string): Promise<CountCheck[]> {
  const apiVersions = groupVersions(N, D);
  const checks: CountCheck[] = [];
  const minimum = minimumRequests('create', N, D);
  const sim = await benchSimulator(protocol);
  const kubeconfig = join(dir, `typing-${protocol}.json`);
  try {
    await sim.writeKubeconfig(kubeconfig);
    sim.setLatency(OVERLAP_LATENCY_MS);
    const label = (what: string): string => `${protocol} ${what}`;
    await inFreshChild(async (child) => {
      await child.run({ step: 'connect', kubeconfig });
      sim.clearLog();
      const first = await child.run({ step: 'create', template: TEMPLATE });
      checks.push(...noErrors(label('first create'), first));
      checks.push(
        ...firstCreateChecks(label('first create, fresh process'), [...sim.log], apiVersions, N, {
          concurrent: protocol === 'h2',
        }),
      );
      sim.clearLog();
      const again = await child.run({ step: 'create', template: TEMPLATE });
      checks.push(...noErrors(label('second create'), again));
      checks.push(
        totalCheck(label('second create on the same Connection'), [...sim.log], {
          root: 0,
          documents: 0,
          // Its objects exist: each dry run answers 200, so each is read to check it is the job's own.
          others: minimumRequests('setup-create', N, D) + N,
        }),
      );
      await child.run({ step: 'connect', kubeconfig });
      sim.clearLog();
      const other = await child.run({ step: 'create', template: TEMPLATE });
      checks.push(...noErrors(label('new Connection'), other));
      checks.push(
        totalCheck(label('first create on a new Connection, same process'), [...sim.log], {
          root: 1,
          documents: 0,
          // The objects exist from the creates before: each is read once too.
          others: minimum + N,
        }),
      );
    });
    const jobs = 10;
    await inFreshChild(async (child) => {
      await child.run({ step: 'connect', kubeconfig });
      sim.clearLog();
      const burst = await child.run({ step: 'create', template: TEMPLATE, jobs });
      checks.push(...noErrors(label(`${jobs} first creates at once`), burst));
      checks.push(
        totalCheck(label(`${jobs} first creates at once on a fresh Connection`), [...sim.log], {
          root: 1,
          documents: D,
          // Each job: its Template GET, processing POST and quota list, then each object's dry run,
          // its read (the objects exist from the creates before), and its write.
          others: D - 1 + jobs * (3 + 3 * N),
        }),
      );
    });
  } finally {
    await sim.close();
  }
  const bare = await benchSimulator(protocol, false);
  try {
    await bare.writeKubeconfig(kubeconfig);
    const label = `${protocol} no /openapi/v3`;
    await inFreshChild(async (child) => {
      await child.run({ step: 'connect', kubeconfig });
      bare.clearLog();
      const first = await child.run({ step: 'create', template: TEMPLATE });
      checks.push(...noErrors(label, first));
      checks.push(
        totalCheck(`${label}, Strict: applied untyped`, [...bare.log], {
          root: 1,
          documents: 0,
          others: minimum,
        }),
      );
      const again = await child.run({ step: 'create', template: TEMPLATE });
      checks.push({
        label: `${label}, Strict: one warning per group-version per Connection`,
        ok: first.untyped === D && again.untyped === 0,
        detail: `${first.untyped} on the first create, ${again.untyped} on the second`,
      });
    });
  } finally {
    await bare.close();
  }
  return checks;
}

export interface FirstCreateRow {
  latencyMs: number;
  n: number;
  d: number;
  /** Median wall ms of the first create in a fresh process: typed, and against a server without /openapi/v3. */
  typedMs: number;
  untypedMs: number;
  /** The same create on a second Connection of that process (documents cached, root read again). */
  secondConnectionMs: number;
  /** Median client CPU ms of the first create, typed and untyped. */
  typedCpuMs: number;
  untypedCpuMs: number;
  /** Median ms from the root's arrival at the simulator to the last document's answer. */
  schemaSpanMs: number;
  typedRequests: number;
  untypedRequests: number;
  rootBytes: number;
  documentBytes: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** The first create of `bench-N-D` on a fresh Connection in a fresh process, typed and untyped. */
export async function firstCreates(
  plan: { latencies: number[]; shapes: [number, number][]; runs: number; dir: string },
  progress: (line: string) => void,
): Promise<FirstCreateRow[]> {
  const rows: FirstCreateRow[] = [];
  const typed = await startSimulator({ seedExamples: false, namespaces: ['infra', 'workers'] });
  const untyped = await startSimulator({
    openapiV3: false,
    seedExamples: false,
    namespaces: ['infra', 'workers'],
  });
  const counter = countResponseBytes(isOpenApi);
  try {
    const kubeconfigs = {
      typed: join(plan.dir, 'first-typed.json'),
      untyped: join(plan.dir, 'first-untyped.json'),
    };
    await typed.writeKubeconfig(kubeconfigs.typed);
    await untyped.writeKubeconfig(kubeconfigs.untyped);
    for (const [n, d] of plan.shapes) {
      typed.seed(benchTemplate(n, d));
      untyped.seed(benchTemplate(n, d));
    }
    for (const latencyMs of plan.latencies) {
      typed.setLatency(latencyMs);
      untyped.setLatency(latencyMs);
      for (const [n, d] of plan.shapes) {
        const template = `bench-${n}-${d}`;
        const samples = { typed: [] as number[], untyped: [] as number[], second: [] as number[] };
        const cpu = { typed: [] as number[], untyped: [] as number[] };
        const spans: number[] = [];
        const counts = { typed: 0, untyped: 0, rootBytes: 0, documentBytes: 0 };
        // Interleaved, so a slow moment of the machine falls on both alike.
        for (let run = 0; run < plan.runs; run++) {
          for (const mode of ['typed', 'untyped'] as const) {
            const sim = mode === 'typed' ? typed : untyped;
            await inFreshChild(async (child) => {
              await child.run({ step: 'connect', kubeconfig: kubeconfigs[mode] });
              sim.clearLog();
              counter.clear();
              const first = await child.run({ step: 'create', template });
              if (first.errors.length > 0)
                throw new Error(`first create ${template} ${mode}: ${first.errors.join(' | ')}`);
              samples[mode].push(first.wallMs);
              cpu[mode].push(first.cpuMs);
              counts[mode] = Math.max(counts[mode], sim.log.length);
              if (mode === 'typed') {
                const schema = sim.log.filter((e) => isOpenApi(e.path));
                spans.push(
                  Math.max(...schema.map((e) => e.time + e.durationMs)) -
                    Math.min(...schema.map((e) => e.time)),
                );
                const root = counter.bodies.filter((b) => b.url === ROOT || b.url.startsWith(`${ROOT}?`));
                counts.rootBytes = sum(root.map((b) => b.bytes));
                counts.documentBytes = sum(
                  counter.bodies.filter((b) => b.url.startsWith(`${ROOT}/`)).map((b) => b.bytes),
                );
                await child.run({ step: 'connect', kubeconfig: kubeconfigs.typed });
                samples.second.push((await child.run({ step: 'create', template })).wallMs);
              }
              await child.run({ step: 'delete', template });
              await child.run({ step: 'close' });
            });
          }
        }
        const row: FirstCreateRow = {
          latencyMs,
          n,
          d,
          typedMs: median(samples.typed),
          untypedMs: median(samples.untyped),
          secondConnectionMs: median(samples.second),
          typedCpuMs: median(cpu.typed),
          untypedCpuMs: median(cpu.untyped),
          schemaSpanMs: median(spans),
          typedRequests: counts.typed,
          untypedRequests: counts.untyped,
          rootBytes: counts.rootBytes,
          documentBytes: counts.documentBytes,
        };
        rows.push(row);
        progress(
          `typing ${String(latencyMs).padStart(2)}ms D=${d} N=${String(n).padStart(3)} first create typed ${row.typedMs.toFixed(1)} ms, untyped ${row.untypedMs.toFixed(1)} ms, second Connection ${row.secondConnectionMs.toFixed(1)} ms; ${row.documentBytes} document bytes`,
        );
      }
    }
  } finally {
    counter.stop();
    await typed.close();
    await untyped.close();
  }
  return rows;
}
