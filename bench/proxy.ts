// The proxy section of `npm run bench`: the same sequential cycles and bursts direct and through an
// HTTP CONNECT proxy (with credentials), against a server that offers HTTP/2 and an HTTP/1.1-only
// one, runs interleaved so both routes see the same machine. Tunnels are counted by the proxy,
// connections and handshakes by the simulator.
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { type Protocol, startSimulator } from '../simulator/index.ts';
import { startProxy } from '../test/proxies.ts';
import { burstTemplate, runChild } from './burst.ts';
import { verdict } from './burst-report.ts';

export type Route = 'direct' | 'proxy';

export interface ProxyRow {
  protocol: Protocol;
  route: Route;
  /** `cycles`: sequential create/get/delete of one job; `burst`: K create jobs at once, then K deletes. */
  workload: 'cycles' | 'burst';
  /** Cycles, or K. */
  size: number;
  latencyMs: number;
  wallMs: number;
  requests: number;
  connections: number;
  handshakes: number;
  tunnels: number;
}

export interface ProxyPlan {
  latencyMs: number;
  cycles: number;
  k: number;
  runs: number;
  dir: string;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

export async function runProxyBench(plan: ProxyPlan, progress: (line: string) => void): Promise<ProxyRow[]> {
  const rows: ProxyRow[] = [];
  for (const protocol of ['h2', 'http1'] as const) {
    const sim = await startSimulator({ protocol, seedExamples: false, namespaces: ['infra', 'workers'] });
    const proxy = await startProxy('http', { credentials: { username: 'bench', password: 'bench-proxy' } });
    try {
      sim.seed(burstTemplate());
      sim.setLatency(plan.latencyMs);
      const kubeconfigs: Record<Route, string> = {
        direct: join(plan.dir, `proxy-bench-${protocol}-direct.json`),
        proxy: join(plan.dir, `proxy-bench-${protocol}-proxy.json`),
      };
      for (const route of ['direct', 'proxy'] as const) {
        const config = sim.kubeconfig;
        const cluster = config.clusters[0]?.cluster as Record<string, unknown> | undefined;
        if (route === 'proxy' && cluster) cluster['proxy-url'] = proxy.urlWithCredentials;
        await writeFile(kubeconfigs[route], JSON.stringify(config), { mode: 0o600 });
      }
      for (const [workload, size] of [
        ['cycles', plan.cycles],
        ['burst', plan.k],
      ] as const) {
        const samples: Record<
          Route,
          Omit<ProxyRow, 'protocol' | 'route' | 'workload' | 'size' | 'latencyMs'>[]
        > = { direct: [], proxy: [] };
        // Interleaved, so a slow moment of the machine falls on both routes alike.
        for (let run = 0; run < plan.runs; run++) {
          for (const route of ['direct', 'proxy'] as const) {
            sim.clearLog();
            const before = sim.stats();
            const tunnelsBefore = proxy.tunnels.length;
            const result = await runChild({
              impl: 'library',
              k: workload === 'burst' ? size : 1,
              kubeconfig: kubeconfigs[route],
              ...(workload === 'cycles' ? { cycles: size } : {}),
            });
            const after = sim.stats();
            samples[route].push({
              wallMs: result.create.wallMs + result.delete.wallMs,
              requests: sim.log.length,
              connections: after.connections - before.connections,
              handshakes: after.handshakes - before.handshakes,
              tunnels: proxy.tunnels.length - tunnelsBefore,
            });
          }
        }
        for (const route of ['direct', 'proxy'] as const) {
          const list = samples[route];
          const row: ProxyRow = {
            protocol,
            route,
            workload,
            size,
            latencyMs: plan.latencyMs,
            wallMs: median(list.map((x) => x.wallMs)),
            requests: Math.max(...list.map((x) => x.requests)),
            connections: Math.max(...list.map((x) => x.connections)),
            handshakes: Math.max(...list.map((x) => x.handshakes)),
            tunnels: Math.max(...list.map((x) => x.tunnels)),
          };
          rows.push(row);
          progress(
            `proxy ${protocol.padEnd(5)} ${String(plan.latencyMs).padStart(2)}ms ${workload.padEnd(6)} ${String(size).padStart(3)} ${route.padEnd(6)} ${row.wallMs.toFixed(0).padStart(6)} ms  ${row.requests} req ${row.connections} conn ${row.handshakes} tls ${row.tunnels} tunnels`,
          );
        }
      }
    } finally {
      await proxy.close();
      await sim.close();
    }
  }
  return rows;
}

/** What the proxy rows must show whatever the timing: through the proxy, one tunnel per connection. */
export function proxyCountFailures(rows: ProxyRow[]): string[] {
  return rows
    .filter((r) => r.route === 'proxy' && (r.tunnels !== r.connections || r.handshakes !== r.connections))
    .map(
      (r) =>
        `proxy ${r.protocol} ${r.workload} ${r.size}: ${r.tunnels} tunnels, ${r.connections} connections, ${r.handshakes} handshakes`,
    );
}

function find(rows: ProxyRow[], q: Partial<ProxyRow>): ProxyRow | undefined {
  return rows.find((r) => Object.entries(q).every(([k, v]) => r[k as keyof ProxyRow] === v));
}

/** The proxy section of docs/performance.md. */
export function proxySection(rows: ProxyRow[], runs: number): string {
  if (rows.length === 0) return '';
  const lines = [
    '| server | workload | route | wall ms | requests | connections | TLS handshakes | tunnels | proxied / direct |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const targets: string[] = [];
  for (const r of rows) {
    const direct = find(rows, { protocol: r.protocol, workload: r.workload, size: r.size, route: 'direct' });
    const label = r.workload === 'cycles' ? `${r.size} sequential cycles` : `burst of ${r.size}`;
    const server = r.protocol === 'h2' ? 'offers HTTP/2' : 'HTTP/1.1 only';
    const ratio = r.route === 'proxy' && direct ? verdict(r.wallMs, direct.wallMs, 1.2) : '';
    lines.push(
      `| ${server} | ${label} | ${r.route} | ${r.wallMs.toFixed(0)} | ${r.requests} | ${r.connections} | ${r.handshakes} | ${r.route === 'proxy' ? r.tunnels : '—'} | ${ratio} |`,
    );
    if (r.route === 'proxy') {
      const tunnels = r.tunnels === r.connections ? 'met' : '**not met**';
      targets.push(
        `| ${server}, ${label}: tunnels = connections (${r.tunnels} / ${r.connections}) | ${tunnels} |`,
      );
      targets.push(`| ${server}, ${label}: wall time through the proxy ≤ 1.2× direct | ${ratio} |`);
    }
  }
  const latency = rows[0]?.latencyMs ?? 0;
  return `## Through a proxy

The same work direct and through an HTTP CONNECT proxy that wants credentials (\`test/proxies.ts\`,
in the simulator's process), at ${latency} ms per request, interleaved over ${runs} runs (median). Each
sequential cycle is a \`create\`, \`get\` and \`delete\` of one 4-object job on one Connection;
a burst is K \`create\` jobs at once and then K \`delete\` jobs. Tunnels are counted by the proxy,
connections and handshakes by the simulator.

| target | result |
| --- | --- |
${targets.join('\n')}

${lines.join('\n')}
`;
}
