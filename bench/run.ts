// `npm run bench [-- --json] [-- --smoke]`: request counts, connections, handshakes, wall and CPU
// time and peak heap of every operation, for this library and a do-it-yourself client-node
// baseline, against the simulator with injected latency. Writes docs/performance.md and .svg.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSimulator, type JsonObject } from '../simulator/index.ts';
import type { Command, Impl, Measurement, Op } from './client.ts';
import { importCost, type ImportCost } from './import-cost.ts';
import { DEFAULT_MAX_SOCKETS } from '../src/connection/requests.ts';
import { type BurstRow, REQUESTS_PER_JOB, runBursts } from './burst.ts';
import { writeReport, type Row } from './report.ts';
import { measureTracingCost, type TracingCost } from './tracing.ts';
import { type ProxyRow, proxyCountFailures, runProxyBench } from './proxy.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    runs: { type: 'string' },
  },
});

const smoke = values.smoke;
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
const REPORTED = new Set<Op>(['connect', 'process', 'create', 'get', 'get-ref', 'delete', 'delete-ref']);

/**
 * The minimum: what the operation must send on a connection that has discovered only core v1;
 * `d` is the number of group-versions the rendered objects really use.
 */
export function minimumRequests(op: Op, n: number, d: number): number {
  switch (op) {
    case 'connect':
      return 1;
    case 'process':
      return 2;
    case 'create':
      return 2 + (d - 1) + n;
    case 'get':
    case 'delete':
      return 2 + n;
    case 'get-ref':
    case 'delete-ref':
      return n;
    default:
      return 0;
  }
}

/** N objects over D group-versions: ConfigMaps and Secrets (v1), VirtualMachines, Deployments. */
function benchTemplate(n: number, d: number): JsonObject {
  const kinds = [
    (i: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}` },
      data: { index: String(i), tag: '${TAG}' },
    }),
    (i: number) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `secret-${i}` },
      stringData: { key: `value-${i}` },
    }),
    (i: number) => ({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: `vm-${i}` },
      spec: { runStrategy: 'Halted' },
    }),
    (i: number) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `deploy-${i}` },
      spec: { replicas: 1 },
    }),
  ];
  const usable = d === 1 ? kinds.slice(0, 2) : kinds;
  const objects = Array.from({ length: n }, (_, i) => (usable[i % usable.length] ?? kinds[0])?.(i) ?? {});
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: `bench-${n}-${d}`, namespace: 'infra' },
    parameters: [{ name: 'TAG', value: 'v1' }],
    objects,
  };
}

function groupVersionsUsed(n: number, d: number): number {
  const objects = benchTemplate(n, d).objects as { apiVersion: string }[];
  return new Set(objects.map((o) => o.apiVersion)).size;
}

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

const sim = await startSimulator({ seedExamples: false, namespaces: ['infra', 'workers'] });
const dir = await mkdtemp(join(tmpdir(), 'ots-bench-'));
const kubeconfig = join(dir, 'kubeconfig.json');
await sim.writeKubeconfig(kubeconfig);
for (const d of SPREADS) for (const n of SIZES) sim.seed(benchTemplate(n, d));

const runs = Number(values.runs ?? (smoke ? 1 : 3));
const rows: Row[] = [];
const failures: string[] = [];
const client = await Client.start();

try {
  for (const latency of LATENCIES) {
    sim.setLatency(latency);
    for (const d of SPREADS) {
      for (const n of SIZES) {
        const template = `bench-${n}-${d}`;
        for (const impl of implsAt(latency)) {
          const samples = new Map<
            Op,
            { m: Measurement; requests: number; connections: number; handshakes: number; serverMs: number }[]
          >();
          for (let run = smoke ? 0 : -1; run < runs; run++) {
            for (const op of [...MEASURED, 'close' as const]) {
              sim.clearLog();
              const before = sim.stats();
              const m = await client.run({ impl, op, template, kubeconfig });
              const after = sim.stats();
              if (run < 0 || !REPORTED.has(op)) continue;
              const list = samples.get(op) ?? [];
              list.push({
                m,
                requests: sim.log.length,
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
              minimum: minimumRequests(op, n, groupVersionsUsed(n, d)),
              connections: Math.max(...list.map((s) => s.connections)),
              handshakes: Math.max(...list.map((s) => s.handshakes)),
              wallMs: median(list.map((s) => s.m.wallMs)),
              cpuMs: median(list.map((s) => s.m.cpuMs)),
              serverMs: median(list.map((s) => s.serverMs)),
              peakHeapBytes: Math.max(...list.map((s) => s.m.peakHeapBytes)),
            };
            rows.push(row);
            if (impl === 'library') {
              if (list.some((s) => s.requests !== row.minimum))
                failures.push(
                  `${op} N=${n} D=${d}: ${list.map((s) => s.requests).join('/')} requests, minimum ${row.minimum}`,
                );
              const expectedHandshakes = op === 'connect' ? 1 : 0;
              if (
                list.some((s) => s.handshakes !== expectedHandshakes || s.connections !== expectedHandshakes)
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

// Bursts: K concurrent jobs on one Connection, against an h2-offering and an HTTP/1.1-only server.
const burstDir = await mkdtemp(join(tmpdir(), 'ots-burst-'));
let bursts: BurstRow[];
try {
  bursts = await runBursts(
    {
      protocols: ['http1', 'h2'],
      latencies: smoke ? [0] : [0, 10],
      ks: smoke ? [10] : [1, 10, 100, 500],
      impls: (protocol) =>
        smoke ? ['library'] : ['library', protocol === 'h2' ? 'raw-h2' : 'raw-h1', 'baseline'],
      dir: burstDir,
      runs: smoke ? 1 : 3,
    },
    (line) => {
      if (!values.json) process.stderr.write(`${line}\n`);
    },
  );
} finally {
  await rm(burstDir, { recursive: true, force: true });
}
for (const row of bursts.filter((r) => r.impl === 'library' && r.phase === 'create')) {
  // One connect request, then every job's requests for create and delete, first and warm.
  const expected = 1 + row.k * REQUESTS_PER_JOB * 4;
  if (row.requests !== expected)
    failures.push(`burst ${row.protocol} K=${row.k}: ${row.requests} requests, expected ${expected}`);
  // Over HTTP/2 every job shares one connection; over HTTP/1.1 the pool opens at most maxSockets.
  const most = row.protocol === 'h2' ? 1 : Math.min(row.k, DEFAULT_MAX_SOCKETS);
  if (row.handshakes !== row.connections || row.handshakes > most || row.handshakes < 1)
    failures.push(
      `burst ${row.protocol} K=${row.k}: ${row.connections} connections and ${row.handshakes} TLS handshakes, expected 1 to ${most} of each`,
    );
}

// The same work direct and through a CONNECT proxy: one tunnel per connection, and what it costs.
const PROXY_RUNS = smoke ? 1 : 3;
const proxyDir = await mkdtemp(join(tmpdir(), 'ots-proxy-'));
let proxied: ProxyRow[];
try {
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
if (!smoke) {
  const tracingDir = await mkdtemp(join(tmpdir(), 'ots-tracing-'));
  try {
    tracing = await measureTracingCost(tracingDir, (line) => {
      if (!values.json) process.stderr.write(`${line}\n`);
    });
  } finally {
    await rm(tracingDir, { recursive: true, force: true });
  }
}

const imports: ImportCost | undefined = smoke ? undefined : await importCost();
if (values.json)
  process.stdout.write(`${JSON.stringify({ rows, bursts, proxied, tracing, imports, failures }, null, 2)}\n`);
if (!smoke) await writeReport(rows, imports, bursts, tracing, { rows: proxied, runs: PROXY_RUNS });
if (failures.length > 0) {
  process.stderr.write(`bench: request counts off the minimum:\n  ${failures.join('\n  ')}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write(
    `bench: every library operation sent exactly the minimum number of requests, over one TLS handshake per connection; bursts stayed within ${DEFAULT_MAX_SOCKETS} sockets; through a proxy, one tunnel per connection\n`,
  );
}
