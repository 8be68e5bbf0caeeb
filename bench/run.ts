// `npm run bench [-- --json] [-- --smoke]`: request counts, connections, handshakes, wall and CPU
// time and peak heap of every operation, for this library and a do-it-yourself client-node
// baseline, against the simulator with injected latency. Writes docs/performance.md and .svg.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSimulator } from '../simulator/index.ts';
import type { Command, Impl, Measurement, Op } from './client.ts';
import { importCost, type ImportCost } from './import-cost.ts';
import { DEFAULT_MAX_SOCKETS } from '../src/connection/requests.ts';
import {
  BASELINE_BURST_RUNS,
  BURST_RUNS,
  type BurstRow,
  DELETE_REQUESTS_PER_JOB,
  REQUESTS_PER_JOB,
  runBursts,
  WARM_UP_REQUESTS,
  WAVE_PER_JOB,
} from './burst.ts';
import { benchTemplate, groupVersions, minimumRequests } from './templates.ts';
import { writeReport, type Row } from './report.ts';
import { measureTracingCost, type TracingCost } from './tracing.ts';
import { type ProxyRow, proxyCountFailures, runProxyBench } from './proxy.ts';
import { firstCreates, typingRequestChecks } from './typing.ts';
import { revalidationChecks } from './typing-revalidate.ts';
import { corpusHeap, DEFAULT_CORPUS } from './typing-corpus.ts';
import type { TypingReport } from './typing-report.ts';
import { runStandInBench } from './stand-in-bench.ts';
import { type StandInReport, writeStandInReport } from './stand-in-report.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    runs: { type: 'string' },
    corpus: { type: 'string' },
    only: { type: 'string', multiple: true },
  },
});

const smoke = values.smoke;
// `--only SECTION` (repeatable): main, bursts, proxy, tracing, typing, imports, preflight;
// docs/performance.md is written only when every section ran; docs/performance-preflight.md
// whenever the preflight section ran.
const SECTIONS = ['main', 'bursts', 'proxy', 'tracing', 'typing', 'imports', 'preflight'];
const only = values.only;
for (const section of only ?? [])
  if (!SECTIONS.includes(section))
    throw new Error(`--only takes one of ${SECTIONS.join(', ')}, not ${section}`);
const wanted = (section: string): boolean => only === undefined || only.includes(section);
/** N and D of the first creates measured with and without typing. */
const FIRST_CREATE_SHAPES: [number, number][] = [
  [10, 1],
  [10, 3],
  [100, 3],
];
const LATENCIES = smoke ? [0] : [0, 10];
const SIZES = smoke ? [1, 10] : [1, 10, 100, 500];
const SPREADS = [1, 3];
// One raw node:http2 session only at 0 ms, where the client's own cost per request shows; at 10 ms
// every client waits on the latency.
const implsAt = (latency: number): Impl[] =>
  smoke ? ['library'] : ['library', 'raw', ...(latency === 0 ? (['raw-h2'] as const) : []), 'baseline'];
const MEASURED: Op[] = [
  'connect',
  'process',
  'create',
  'get',
  'get-ref',
  'delete',
  'setup-create',
  'delete-ref',
];
// setup-create, a second create on the same Connection, is counted (it must send no schema request)
// but not tabled.
const REPORTED = new Set<Op>([
  'connect',
  'process',
  'create',
  'get',
  'get-ref',
  'delete',
  'setup-create',
  'delete-ref',
]);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

class Client {
  readonly #child: ChildProcess;
  #pending:
    ((reply: { ok: boolean; result?: Measurement; error?: string; ready?: boolean }) => void) | undefined;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (reply: { ok: boolean; result?: Measurement; error?: string; ready?: boolean }) => {
      const resolve = this.#pending;
      this.#pending = undefined;
      resolve?.(reply);
    });
  }

  static async start(): Promise<Client> {
    const child = fork(new URL('./client.ts', import.meta.url), [], {
      execArgv: ['--expose-gc'],
      stdio: 'inherit',
    });
    const client = new Client(child);
    await new Promise<void>((resolve) => {
      client.#pending = () => {
        resolve();
      };
    });
    return client;
  }

  run(command: Command): Promise<Measurement> {
    return new Promise((resolve, reject) => {
      this.#pending = (reply) => {
        if (reply.ok && reply.result) resolve(reply.result);
        else
          reject(
            new Error(`${command.impl} ${command.op} ${command.template}: ${reply.error ?? 'no result'}`),
          );
      };
      this.#child.send(command);
    });
  }

  stop(): void {
    this.#child.kill();
  }
}

const runs = Number(values.runs ?? (smoke ? 1 : 3));
const rows: Row[] = [];
const failures: string[] = [];

/** Every operation of every implementation, N and D, on one simulator. */
async function mainSection(): Promise<void> {
  const sim = await startSimulator({ seedExamples: false, namespaces: ['infra', 'workers'] });
  const dir = await mkdtemp(join(tmpdir(), 'ots-bench-'));
  const kubeconfig = join(dir, 'kubeconfig.json');
  await sim.writeKubeconfig(kubeconfig);
  for (const d of SPREADS) for (const n of SIZES) sim.seed(benchTemplate(n, d));

  const client = await Client.start();
  // The group-versions whose schema documents the client process holds: the library keeps them
  // process-wide, so only a group-version's first create in the process fetches its document.
  const typed = new Set<string>();

  try {
    for (const latency of LATENCIES) {
      sim.setLatency(latency);
      for (const d of SPREADS) {
        for (const n of SIZES) {
          const template = `bench-${n}-${d}`;
          for (const impl of implsAt(latency)) {
            const samples = new Map<
              Op,
              {
                m: Measurement;
                requests: number;
                minimum: number;
                connections: number;
                handshakes: number;
                serverMs: number;
              }[]
            >();
            for (let run = smoke ? 0 : -1; run < runs; run++) {
              for (const op of [...MEASURED, 'close' as const]) {
                sim.clearLog();
                const used = groupVersions(n, d);
                // A create on a fresh Connection reads the /openapi/v3 root once (every op above
                // runs on the Connection the run's connect opened), and the documents not yet held.
                const typing = {
                  root: impl === 'library' ? 1 : 0,
                  documents: impl === 'library' ? used.filter((v) => !typed.has(v)).length : 0,
                };
                const minimum = minimumRequests(op, n, used.length, typing);
                const before = sim.stats();
                const m = await client.run({ impl, op, template, kubeconfig });
                const after = sim.stats();
                if (impl === 'library' && op === 'create') for (const v of used) typed.add(v);
                if (run < 0 || !REPORTED.has(op)) continue;
                const list = samples.get(op) ?? [];
                list.push({
                  m,
                  requests: sim.log.length,
                  minimum,
                  connections: after.connections - before.connections,
                  handshakes: after.handshakes - before.handshakes,
                  serverMs: sim.log.reduce((sum, e) => sum + e.durationMs, 0),
                });
                samples.set(op, list);
              }
            }
            for (const [op, list] of samples) {
              const requests = Math.max(...list.map((s) => s.requests));
              const row: Row = {
                latencyMs: latency,
                d,
                n,
                op,
                impl,
                requests,
                minimum: list[0]?.minimum ?? 0,
                connections: Math.max(...list.map((s) => s.connections)),
                handshakes: Math.max(...list.map((s) => s.handshakes)),
                wallMs: median(list.map((s) => s.m.wallMs)),
                cpuMs: median(list.map((s) => s.m.cpuMs)),
                serverMs: median(list.map((s) => s.serverMs)),
                peakHeapBytes: Math.max(...list.map((s) => s.m.peakHeapBytes)),
              };
              rows.push(row);
              if (impl === 'library') {
                if (list.some((s) => s.requests !== s.minimum))
                  failures.push(
                    `${op} N=${n} D=${d}: ${list.map((s) => s.requests).join('/')} requests, minimum ${list.map((s) => s.minimum).join('/')}`,
                  );
                const expectedHandshakes = op === 'connect' ? 1 : 0;
                if (
                  list.some(
                    (s) => s.handshakes !== expectedHandshakes || s.connections !== expectedHandshakes,
                  )
                ) {
                  failures.push(
                    `${op} N=${n} D=${d}: ${row.connections} connections, ${row.handshakes} handshakes, expected ${expectedHandshakes}`,
                  );
                }
              }
              if (!values.json) {
                process.stderr.write(
                  `${String(latency).padStart(2)}ms D=${d} N=${String(n).padStart(3)} ${impl.padEnd(8)} ${op.padEnd(10)} ${row.wallMs.toFixed(1).padStart(8)} ms ${String(requests).padStart(4)} req ${row.handshakes} tls\n`,
                );
              }
            }
          }
        }
      }
    }
  } finally {
    client.stop();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}
if (wanted('main')) await mainSection();

// Bursts: K concurrent jobs on one Connection, against an h2-offering and an HTTP/1.1-only server.
const burstDir = await mkdtemp(join(tmpdir(), 'ots-burst-'));
let bursts: BurstRow[] = [];
try {
  if (wanted('bursts'))
    bursts = await runBursts(
      {
        protocols: ['http1', 'h2'],
        latencies: smoke ? [0] : [0, 10],
        ks: smoke ? [10] : [1, 10, 100, 500],
        impls: (protocol) =>
          smoke ? ['library'] : ['library', protocol === 'h2' ? 'raw-h2' : 'raw-h1', 'baseline'],
        dir: burstDir,
        runs: (impl) => (smoke ? 1 : impl === 'baseline' ? BASELINE_BURST_RUNS : BURST_RUNS),
      },
      (line) => {
        if (!values.json) process.stderr.write(`${line}\n`);
      },
    );
} finally {
  await rm(burstDir, { recursive: true, force: true });
}
for (const row of bursts.filter((r) => r.impl === 'library' && r.phase === 'create')) {
  // One connect request, the warm-up job, then every job's requests for create and delete, first and warm.
  const expected = 1 + WARM_UP_REQUESTS + row.k * (REQUESTS_PER_JOB + DELETE_REQUESTS_PER_JOB) * 2;
  if (row.requests !== expected)
    failures.push(`burst ${row.protocol} K=${row.k}: ${row.requests} requests, expected ${expected}`);
  // Over HTTP/2 every job shares one connection; over HTTP/1.1 the pool opens at most maxSockets,
  // and no more than the jobs' pre-flight dry runs in flight at once.
  const most = row.protocol === 'h2' ? 1 : Math.min(row.k * WAVE_PER_JOB, DEFAULT_MAX_SOCKETS);
  if (row.handshakes !== row.connections || row.handshakes > most || row.handshakes < 1)
    failures.push(
      `burst ${row.protocol} K=${row.k}: ${row.connections} connections and ${row.handshakes} TLS handshakes, expected 1 to ${most} of each`,
    );
}

// The same work direct and through a CONNECT proxy: one tunnel per connection, and what it costs.
const PROXY_RUNS = smoke ? 1 : 3;
const proxyDir = await mkdtemp(join(tmpdir(), 'ots-proxy-'));
let proxied: ProxyRow[] = [];
try {
  if (wanted('proxy'))
    proxied = await runProxyBench(
      {
        latencyMs: smoke ? 0 : 10,
        cycles: smoke ? 3 : 20,
        k: smoke ? 10 : 100,
        runs: PROXY_RUNS,
        dir: proxyDir,
      },
      (line) => {
        if (!values.json) process.stderr.write(`${line}\n`);
      },
    );
} finally {
  await rm(proxyDir, { recursive: true, force: true });
}
failures.push(...proxyCountFailures(proxied));

// What the TracingChannels cost, and where the client's CPU goes per request.
let tracing: TracingCost | undefined;
if (!smoke && wanted('tracing')) {
  const tracingDir = await mkdtemp(join(tmpdir(), 'ots-tracing-'));
  try {
    tracing = await measureTracingCost(tracingDir, (line) => {
      if (!values.json) process.stderr.write(`${line}\n`);
    });
  } finally {
    await rm(tracingDir, { recursive: true, force: true });
  }
}

// Typing: create()'s schema requests (exact, in --smoke too), a first create's cost, the corpus heap.
const typingDir = await mkdtemp(join(tmpdir(), 'ots-typing-'));
const typing: TypingReport = { checks: [], first: [], heap: { skipped: 'not in --smoke' } };
try {
  if (wanted('typing')) {
    const progress = (line: string): void => {
      if (!values.json) process.stderr.write(`${line}\n`);
    };
    for (const protocol of ['h2', 'http1'] as const) {
      typing.checks.push(...(await typingRequestChecks(protocol, typingDir)));
      typing.checks.push(...(await revalidationChecks(protocol, typingDir)));
    }
    for (const check of typing.checks) {
      progress(`typing ${check.ok ? 'ok  ' : 'FAIL'} ${check.label}: ${check.detail}`);
      if (!check.ok) failures.push(`typing ${check.label}: ${check.detail}`);
    }
    if (!smoke) {
      typing.first = await firstCreates(
        { latencies: [0, 10], shapes: FIRST_CREATE_SHAPES, runs: 3, dir: typingDir },
        progress,
      );
      typing.heap = await corpusHeap(
        { corpus: values.corpus ?? DEFAULT_CORPUS, runs: 3, dir: typingDir },
        progress,
      );
    }
  }
} finally {
  await rm(typingDir, { recursive: true, force: true });
}

// The pre-flight's cost and bursts with it, against the stand-in server (bench/stand-in.ts).
const standInDir = await mkdtemp(join(tmpdir(), 'ots-stand-in-'));
let standIn: StandInReport | undefined;
try {
  if (wanted('preflight'))
    standIn = await runStandInBench(
      {
        latencyMs: 10,
        protocols: ['h2', 'http1'],
        ks: smoke ? [10] : [100, 500],
        costRuns: smoke ? 1 : 9,
        burstRuns: smoke ? 1 : 5,
        dir: standInDir,
        maxConcurrentStreams: 100,
      },
      (line) => {
        if (!values.json) process.stderr.write(`${line}\n`);
      },
      failures,
    );
} finally {
  await rm(standInDir, { recursive: true, force: true });
}

const imports: ImportCost | undefined = smoke || !wanted('imports') ? undefined : await importCost();
if (values.json)
  process.stdout.write(
    `${JSON.stringify({ rows, bursts, proxied, tracing, typing, imports, standIn, failures }, null, 2)}\n`,
  );
if (!smoke && only === undefined)
  await writeReport(rows, imports, bursts, tracing, { rows: proxied, runs: PROXY_RUNS }, typing);
if (!smoke && standIn !== undefined) await writeStandInReport(standIn, DEFAULT_MAX_SOCKETS);
if (failures.length > 0) {
  process.stderr.write(`bench: request counts off the minimum:\n  ${failures.join('\n  ')}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write(
    `bench: every library operation sent exactly the minimum number of requests, over one TLS handshake per connection; bursts stayed within ${DEFAULT_MAX_SOCKETS} sockets; through a proxy, one tunnel per connection; typing read the schema root once per Connection (again only after the server refused an apply as untyped, with the refused document by its path) and each document once per process, before any PATCH and on no new connection\n`,
  );
}
