// Turns benchmark rows into docs/performance.md and an SVG chart of time against N.
import { cpus, totalmem, type } from 'node:os';
import { writeFile } from 'node:fs/promises';
import type { Impl, Op } from './client.ts';
import { DEFAULT_MAX_SOCKETS } from '../src/connection/requests.ts';
import { burstChart, burstSection, burstTargets, verdict } from './burst-report.ts';
import type { BurstRow } from './burst.ts';
import type { ImportCost } from './import-cost.ts';
import { lineChart } from './chart.ts';
import { type TracingCost, tracingSection } from './tracing.ts';
import { type ProxyRow, proxySection } from './proxy.ts';
import { type TypingReport, typingSection, typingTargets } from './typing-report.ts';
import { readTierBursts, tierBurstSection } from './tier-burst-report.ts';

export interface Row {
  latencyMs: number;
  d: number;
  n: number;
  op: Op;
  impl: Impl;
  requests: number;
  minimum: number;
  connections: number;
  handshakes: number;
  wallMs: number;
  /** Time the simulator spent on the operation's requests, injected latency included. */
  serverMs: number;
  cpuMs: number;
  peakHeapBytes: number;
}

const f1 = (x: number): string => x.toFixed(1);

function find(rows: Row[], q: Partial<Row>): Row | undefined {
  return rows.find((r) => Object.entries(q).every(([k, v]) => r[k as keyof Row] === v));
}

function table(rows: Row[], latency: number, d: number): string {
  const lines = [
    '| op | N | library ms | raw undici ms | raw h2 ms | baseline ms | bound ms | library/bound | library/baseline | client ms per request | requests (min) | baseline requests | TLS handshakes lib/base | library CPU ms | library peak heap KiB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const op of ['connect', 'process', 'create', 'get', 'get-ref', 'delete', 'delete-ref'] as Op[]) {
    for (const n of [...new Set(rows.map((r) => r.n))]) {
      const lib = find(rows, { latencyMs: latency, d, n, op, impl: 'library' });
      const base = find(rows, { latencyMs: latency, d, n, op, impl: 'baseline' });
      const raw = find(rows, { latencyMs: latency, d, n, op, impl: 'raw' });
      const rawH2 = find(rows, { latencyMs: latency, d, n, op, impl: 'raw-h2' });
      if (!lib) continue;
      const bound = lib.minimum * latency;
      lines.push(
        `| ${op} | ${n} | ${f1(lib.wallMs)} | ${raw ? f1(raw.wallMs) : '—'} | ${rawH2 ? f1(rawH2.wallMs) : '—'} | ${base ? f1(base.wallMs) : '—'} | ${bound} | ${bound > 0 ? (lib.wallMs / bound).toFixed(3) : '—'} | ${base ? (lib.wallMs / base.wallMs).toFixed(2) : '—'} | ${lib.requests > 0 ? ((lib.wallMs - lib.serverMs) / lib.requests).toFixed(2) : '—'} | ${lib.requests} (${lib.minimum}) | ${base?.requests ?? '—'} | ${lib.handshakes}/${base?.handshakes ?? '—'} | ${f1(lib.cpuMs)} | ${Math.round(lib.peakHeapBytes / 1024)} |`,
      );
    }
  }
  return lines.join('\n');
}

function chart(rows: Row[]): string {
  const latency = 10;
  const series = [
    { label: 'library', color: '#1f77b4', points: [] as [number, number][] },
    { label: 'client-node baseline', color: '#d62728', points: [] as [number, number][] },
    { label: 'lower bound', color: '#7f7f7f', points: [] as [number, number][] },
  ];
  for (const n of [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b)) {
    const lib = find(rows, { latencyMs: latency, d: 1, n, op: 'create', impl: 'library' });
    const base = find(rows, { latencyMs: latency, d: 1, n, op: 'create', impl: 'baseline' });
    if (lib) series[0]?.points.push([n, lib.wallMs]);
    if (base) series[1]?.points.push([n, base.wallMs]);
    if (lib) series[2]?.points.push([n, lib.minimum * latency]);
  }
  return lineChart(
    'create(): wall time against N objects, 10 ms per request, one group-version',
    'N (log scale)',
    series,
  );
}

function perObject(rows: Row[], latency: number): string {
  const lines: string[] = [];
  for (const impl of ['library', 'baseline'] as Impl[]) {
    const t = (n: number): number | undefined =>
      find(rows, { latencyMs: latency, d: 1, n, op: 'create', impl })?.wallMs;
    const heap = (n: number): number | undefined =>
      find(rows, { latencyMs: latency, d: 1, n, op: 'create', impl })?.peakHeapBytes;
    const [t10, t100, t500] = [t(10), t(100), t(500)];
    const [h100, h500] = [heap(100), heap(500)];
    if (t10 === undefined || t100 === undefined || t500 === undefined) continue;
    lines.push(
      `- ${impl}: ${((t100 - t10) / 90).toFixed(3)} ms per object from N=10 to 100, ${((t500 - t100) / 400).toFixed(3)} ms per object from N=100 to 500` +
        (h100 !== undefined && h500 !== undefined
          ? `; peak heap ${((h500 - h100) / 400 / 1024).toFixed(1)} KiB per object from N=100 to 500`
          : ''),
    );
  }
  return lines.join('\n');
}

/** Where the time above the bound went: the simulator's own share, and the client's. */
function overheadSplit(row: Row | undefined): string {
  if (!row) return '';
  const bound = row.minimum * row.latencyMs;
  const above = row.wallMs - bound;
  const server = row.serverMs - bound;
  const client = row.wallMs - row.serverMs;
  return [
    `Where the ${f1(above)} ms above the bound of the 10 ms, N = 100 create went: ${f1(server)} ms inside the`,
    `simulator (its processing and its scheduling around each 10 ms wait, from its request log),`,
    `and ${f1(client)} ms — ${(client / row.requests).toFixed(2)} ms a request — in the client and on the loopback`,
    `connection. The 1.05× target needs the sum to stay under ${f1(bound * 0.05)} ms${above <= bound * 0.05 ? '' : ', so it is not met'}; on this 2-core VM the`,
    `round trip between two processes over loopback TLS alone exceeds it (a loop of single GETs at 10 ms`,
    `costs about 10.9 ms a request with client and simulator in one process, 12.4 ms across two). The`,
    `client's own share is the figure this library controls; the "client ms per request"`,
    `column shows it for every operation.`,
  ].join('\n');
}

export async function writeReport(
  rows: Row[],
  imports: ImportCost | undefined,
  bursts: BurstRow[],
  tracing: TracingCost | undefined,
  proxied: { rows: ProxyRow[]; runs: number },
  typing: TypingReport,
): Promise<void> {
  const zeroRaw = find(rows, { latencyMs: 0, d: 1, n: 100, op: 'create', impl: 'raw' });
  const zeroRawH2 = find(rows, { latencyMs: 0, d: 1, n: 100, op: 'create', impl: 'raw-h2' });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const warm = find(rows, { latencyMs: 10, d: 1, n: 100, op: 'create', impl: 'library' });
  const zeroLib = find(rows, { latencyMs: 0, d: 1, n: 100, op: 'create', impl: 'library' });
  const zeroBase = find(rows, { latencyMs: 0, d: 1, n: 100, op: 'create', impl: 'baseline' });
  const exact = rows.filter((r) => r.impl === 'library').every((r) => r.requests === r.minimum);
  const oneHandshake = rows
    .filter((r) => r.impl === 'library')
    .every((r) => r.handshakes === (r.op === 'connect' ? 1 : 0));
  const text = `# Performance

Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}. Numbers are from one run on one
machine; re-run the benchmark to compare, never compare against another machine's numbers.

- Machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${type()}; Node ${process.versions.node}.
- Method: the simulator (\`simulator/\`) runs in the benchmark's process and adds a fixed
  latency to every request (0 ms and 10 ms); the client — this library, or the baseline — runs in
  a child process, so its CPU time and heap are its own. Each figure is the median of 3 runs after
  a warm-up run; every run opens a new connection (\`connect\`) and then runs \`process\`, \`create\`,
  \`get\` (template), \`get-ref\` (reference mode), \`delete\` (template) and, after a fresh create,
  \`delete-ref\`. Requests, TCP connections and TLS handshakes come from the simulator's own log.
  The simulator offers HTTP/2 first, as kube-apiserver does, so the library runs over one HTTP/2
  connection; raw undici and the baseline speak HTTP/1.1.
- Raw undici: the same requests as the library and nothing else (no validation, no discovery, no
  error handling), over plain undici with HTTP/1.1 keep-alive (\`bench/raw.ts\`); raw h2: the same
  over one \`node:http2\` session, measured at 0 ms (at 10 ms every client waits on the latency).
- Baseline: what a user of \`@kubernetes/client-node\` 2.x writes without this library —
  \`CustomObjectsApi\` for the Template GET and the processing POST, \`KubernetesObjectApi.patch\` with
  server-side apply per object, \`read\` per object, \`delete\` in reverse.
- Lower bound: the minimum number of requests × the injected latency (requests cannot overlap:
  each apply must follow the previous one). Minimum requests: \`connect\` 1, \`process\` 2, \`create\`
  3 + D − 1 + 2N (core v1 is discovered by \`connect\`; each object's pre-flight dry run, the N
  sent at once beside the one list of the namespace's ResourceQuotas, and its write) + 1, the
  \`/openapi/v3\` root its typing reads once per Connection (the schema documents are held
  process-wide, fetched by the warm-up run), a second create on the same Connection 3 + 2N, template-mode \`get\` 2 + N, template-mode
  \`delete\` 2 + 2N (it reads every object, at once over HTTP/2, before deleting only those its
  field manager applied),
  reference mode N. Every create is typed (\`fieldValidation\` \`Strict\`, the default).
- Objects: N = 1, 10, 100, 500 over D = 1 group-version (ConfigMaps, Secrets) or D = 3 (plus
  KubeVirt VirtualMachines and Deployments).

## Targets

| target | result |
| --- | --- |
| every library operation at exactly the minimum number of requests | ${exact ? 'met' : '**not met**'} |
| one TCP connection and one TLS handshake per Connection | ${oneHandshake ? 'met' : '**not met**'} |
| warm create of 100 objects at 10 ms within 1.05× of the bound | ${warm ? verdict(warm.wallMs, warm.minimum * 10, 1.05, 3) : 'not measured'} |
| create of 100 objects at 0 ms at most half the baseline's time | ${zeroLib && zeroBase ? verdict(zeroLib.wallMs, zeroBase.wallMs, 0.5) : 'not measured'} |
| sequential create of 100 objects at 0 ms ≤ 1.1× the rawest client's over the same transport (one node:http2 session, same requests) | ${zeroLib && zeroRawH2 ? verdict(zeroLib.wallMs, zeroRawH2.wallMs, 1.1) : 'not measured'} |
| for comparison, no target: the same against plain undici over HTTP/1.1 (another transport) | ${zeroLib && zeroRaw ? `${(zeroLib.wallMs / zeroRaw.wallMs).toFixed(2)}× (${f1(zeroLib.wallMs)} ms against ${f1(zeroRaw.wallMs)} ms)` : 'not measured'} |
${burstTargets(bursts, DEFAULT_MAX_SOCKETS).join('\n')}
${typingTargets(typing).join('\n')}
| the pre-flight's cost and bursts with it, against a stand-in server | in [performance-preflight.md](performance-preflight.md) |
| import cost | ${imports ? `${f1(imports.packageMs)} ms for this package (client-node is loaded by the first \`connect()\`), ${f1(imports.clientNodeMs)} ms for \`@kubernetes/client-node\` alone (median of ${imports.samples} fresh processes)` : 'not measured'} |

${overheadSplit(warm)}

Per-object cost of \`create\` (linear growth shows as equal costs across the two ranges):

At 0 ms:
${perObject(rows, 0)}

At 10 ms:
${perObject(rows, 10)}

![create time against N](performance.svg)

${[0, 10]
  .flatMap((latency) =>
    [1, 3].map((d) => `## ${latency} ms per request, D = ${d}\n\n${table(rows, latency, d)}\n`),
  )
  .join('\n')}`;
  await writeFile(
    'docs/performance.md',
    `${text}\n${burstSection(bursts)}\n${typingSection(typing)}\n${proxySection(proxied.rows, proxied.runs)}\n${tracingSection(tracing)}\n${tierBurstSection(readTierBursts())}`,
  );
  await writeFile('docs/performance.svg', chart(rows));
  await writeFile('docs/bursts.svg', burstChart(bursts));
}
