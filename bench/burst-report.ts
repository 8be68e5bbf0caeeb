// The burst section of docs/performance.md, its targets, and docs/bursts.svg.
import type { BurstImpl } from './burst-client.ts';
import { BASELINE_BURST_RUNS, BURST_RUNS, type BurstRow } from './burst.ts';
import { lineChart, type Series } from './chart.ts';

const f0 = (x: number): string => x.toFixed(0);
const LABEL: Record<BurstImpl, string> = {
  library: 'library',
  'raw-h1': 'raw undici, HTTP/1.1, unlimited sockets',
  'raw-h2': 'raw node:http2, one session',
  baseline: 'client-node baseline',
};

function find(rows: BurstRow[], q: Partial<BurstRow>): BurstRow | undefined {
  return rows.find((r) => Object.entries(q).every(([k, v]) => r[k as keyof BurstRow] === v));
}

function table(rows: BurstRow[], protocol: BurstRow['protocol'], latencyMs: number): string {
  const lines = [
    '| K | client | create ms | warm create ms | per job vs K=1 | p50 / p99 job ms | delete ms | connections | TLS handshakes | client CPU ms | peak heap KiB |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const k of [...new Set(rows.map((r) => r.k))]) {
    for (const impl of ['library', 'raw-h1', 'raw-h2', 'baseline'] as BurstImpl[]) {
      const create = find(rows, { protocol, latencyMs, k, impl, phase: 'create' });
      const remove = find(rows, { protocol, latencyMs, k, impl, phase: 'delete' });
      const warm = find(rows, { protocol, latencyMs, k, impl, phase: 'warm' });
      const single = find(rows, { protocol, latencyMs, k: 1, impl, phase: 'create' });
      if (!create || !remove) continue;
      const relative = single ? (create.wallMs / k / single.wallMs).toFixed(3) : '—';
      lines.push(
        `| ${k} | ${LABEL[impl]} | ${f0(create.wallMs)} | ${warm ? f0(warm.wallMs) : '—'} | ${relative} | ${f0(create.p50Ms)} / ${f0(create.p99Ms)} | ${f0(remove.wallMs)} | ${create.connections} | ${create.handshakes} (${create.resumed}) | ${f0(create.cpuMs + remove.cpuMs)} | ${Math.round(Math.max(create.peakHeapBytes, remove.peakHeapBytes) / 1024)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** `1.20× (250 / 208 ms) — met`: the ratio, the two figures, and whether it is within `limit`. */
export function verdict(wallMs: number, referenceMs: number, limit: number, digits = 2): string {
  const ratio = wallMs / referenceMs;
  return `${ratio.toFixed(digits)}× (${f0(wallMs)} / ${f0(referenceMs)} ms) — ${ratio <= limit ? 'met' : '**not met**'}`;
}

/** Library time over the reference client's, for the first burst (fresh sockets) of create jobs. */
function ratio(
  rows: BurstRow[],
  protocol: BurstRow['protocol'],
  reference: BurstImpl,
  k: number,
  latencyMs: number,
  limit: number,
  phase: 'create' | 'warm' = 'create',
): string {
  const lib = find(rows, { protocol, latencyMs, k, impl: 'library', phase });
  const ref = find(rows, { protocol, latencyMs, k, impl: reference, phase });
  return lib && ref ? verdict(lib.wallMs, ref.wallMs, limit) : 'not measured';
}

export function burstTargets(rows: BurstRow[], maxSockets: number): string[] {
  const lines: string[] = [];
  for (const latencyMs of [0, 10]) {
    for (const k of [100, 500]) {
      lines.push(
        `| HTTP/1.1-only server, ${latencyMs} ms, K = ${k}: first burst ≤ 1.3× raw undici with unlimited sockets | ${ratio(rows, 'http1', 'raw-h1', k, latencyMs, 1.3)} |`,
        `| HTTP/2-offering server, ${latencyMs} ms, K = ${k}: ≤ 2× one raw node:http2 session | ${ratio(rows, 'h2', 'raw-h2', k, latencyMs, 2)} |`,
      );
    }
  }
  for (const k of [100, 500]) {
    for (const phase of ['create', 'warm'] as const) {
      lines.push(
        `| HTTP/2-offering server, 10 ms, K = ${k}, ${phase === 'create' ? 'first' : 'warm'} burst, typing on (a Connection that holds the documents): ≤ 1.3× one raw node:http2 session | ${ratio(rows, 'h2', 'raw-h2', k, 10, 1.3, phase)} |`,
      );
    }
  }
  const sockets = (protocol: BurstRow['protocol']): number =>
    Math.max(
      0,
      ...rows.filter((r) => r.impl === 'library' && r.protocol === protocol).map((r) => r.connections),
    );
  lines.push(
    `| library sockets per Connection bounded by \`maxSockets\` (default ${maxSockets}) over HTTP/1.1 | at most ${sockets('http1')} in any burst — ${sockets('http1') <= maxSockets ? 'met' : '**not met**'} |`,
    `| library connections to a server offering HTTP/2: one | at most ${sockets('h2')} in any burst — ${sockets('h2') <= 1 ? 'met' : '**not met**'} |`,
  );
  return lines;
}

export function burstSection(rows: BurstRow[]): string {
  const sections = (['http1', 'h2'] as const).flatMap((protocol) =>
    [0, 10].map(
      (latencyMs) =>
        `### ${protocol === 'h2' ? 'Server offering HTTP/2 (h2 first by ALPN, HTTP/1.1 fallback)' : 'HTTP/1.1-only server'}, ${latencyMs} ms per request\n\n${table(rows, protocol, latencyMs)}\n`,
    ),
  );
  return `## Bursts: K concurrent jobs on one Connection

Each job creates the 4 objects of a Template (2 + 4 requests), then each deletes them again by
replay (2 + 4 reads + 4 deletes: the replay reads who owns each object first), all K jobs at once on ONE client; then the same client runs a second, warm create burst
(and deletes it), on the connections and JIT state the first one left. Each figure is the median
of ${BURST_RUNS} bursts (${BASELINE_BURST_RUNS} for the client-node baseline; percentiles, CPU and heap from the median
burst), the clients taking turns (library, raw, baseline, library, …) so that a spell of load on
the machine falls on every client alike. Every burst runs in a fresh client
process, so the create burst opens its sockets (after the one warm request every client makes
first, like \`connect()\`, and one warm-up job, created and deleted, so that the library's
Connection holds the schema documents its creates are typed against: typing is on,
\`fieldValidation\` \`Strict\`, the default; a first create's own cost is in the typing section).
The library speaks HTTP/2 on one connection to the server that offers it, and HTTP/1.1 with at
most 32 sockets (\`maxSockets\`) to the HTTP/1.1-only one; "raw" clients send the same requests
and nothing else. Connections and TLS handshakes are the simulator's counts for both phases (in
brackets: how many of the handshakes resumed a TLS session); "per job vs K=1" is (burst time / K)
/ the K = 1 time.

${sections.join('\n')}
![create burst time against K](bursts.svg)
`;
}

export function burstChart(rows: BurstRow[]): string {
  const colors: Record<string, string> = {
    'http1 library': '#1f77b4',
    'http1 raw-h1': '#2ca02c',
    'h2 library': '#9467bd',
    'h2 raw-h2': '#ff7f0e',
  };
  const series: Series[] = Object.entries(colors).map(([key, color]) => {
    const [protocol, impl] = key.split(' ') as [BurstRow['protocol'], BurstImpl];
    const points = rows
      .filter((r) => r.protocol === protocol && r.impl === impl && r.latencyMs === 10 && r.phase === 'create')
      .map((r): [number, number] => [r.k, r.wallMs]);
    return { label: `${protocol === 'h2' ? 'h2 server' : 'HTTP/1.1 server'}: ${impl}`, color, points };
  });
  return lineChart(
    'create bursts: wall time against K concurrent jobs, 10 ms per request',
    'K (log scale)',
    series,
  );
}
