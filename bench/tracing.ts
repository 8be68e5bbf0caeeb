// The tracing section of `npm run bench`: what the TracingChannels cost (sequential create of 100
// objects at 0 ms with no subscriber, with a subscriber on both channels, and with the library as
// it was before it had channels, all in one run), and where the client's CPU goes per request.
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type JsonObject, startSimulator } from '../simulator/index.ts';
import type { TracingMode } from './tracing-client.ts';

const run = promisify(execFile);
const OBJECTS = 100;
const TRACING_TEMPLATE = 'tracing-100';

export interface TracingCost {
  /** Median create of 100 objects, ms; `without` is absent when the older source could not be had. */
  noneMs: number;
  subscribedMs: number;
  withoutMs: number | undefined;
  withoutRevision: string | undefined;
  /** Requests in one profiled round, and the client's self time per request by where it went. */
  requestsPerRound: number;
  usPerRequest: Record<string, number>;
  libraryFunctions: Record<string, number>;
}

function template(): JsonObject {
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: TRACING_TEMPLATE, namespace: 'infra' },
    parameters: [{ name: 'JOB', required: true }],
    objects: Array.from({ length: OBJECTS }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `\${JOB}-${i}` },
      data: { index: String(i) },
    })),
  };
}

/**
 * This checkout's source with the channels taken out: operations and requests run without even
 * asking whether anyone subscribes, so the comparison isolates the channels from every other
 * change. Under bench/ so that its imports resolve from this checkout's node_modules.
 */
/** Rounds of the three variants: 3 let each take each place in the order once; 6 do so twice. */
const ROUNDS = 6;

function sourceWithoutTracing(): { entry: string; revision: string } | undefined {
  const dir = resolve('bench/.without-tracing');
  rmSync(dir, { recursive: true, force: true });
  cpSync(resolve('src'), join(dir, 'src'), { recursive: true });
  const path = join(dir, 'src/connection/tracing.ts');
  const original = readFileSync(path, 'utf8');
  const checks: [string, string][] = [
    ['if (!operations.hasSubscribers) return work();', 'return work();'],
    ['return requests.hasSubscribers;', 'return false;'],
  ];
  // The source changed shape: better no comparison than a wrong one.
  if (!checks.every(([from]) => original.includes(from))) return undefined;
  const stripped = checks.reduce((text, [from, to]) => text.replace(from, to), original);
  writeFileSync(path, stripped);
  return { entry: join(dir, 'src/index.ts'), revision: 'this source without its channel checks' };
}

async function child(mode: TracingMode, kubeconfig: string, entry: string): Promise<unknown> {
  const args = ['bench/tracing-client.ts', mode, kubeconfig, entry, TRACING_TEMPLATE];
  const { stdout } = await run(process.execPath, args, {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;

export async function measureTracingCost(
  dir: string,
  progress: (line: string) => void,
): Promise<TracingCost> {
  const sim = await startSimulator({ seedExamples: false, namespaces: ['infra', 'workers'] });
  const kubeconfig = join(dir, 'tracing.json');
  const current = resolve('src/index.ts');
  const without = sourceWithoutTracing();
  try {
    await sim.writeKubeconfig(kubeconfig);
    sim.seed(template());
    const samples: Record<'none' | 'subscribed' | 'without', number[]> = {
      none: [],
      subscribed: [],
      without: [],
    };
    // Interleaved, so that the machine's drift hits every variant alike.
    // Each variant takes each place in the order once: the later of back-to-back processes ran
    // measurably faster here, which a fixed order would credit to whichever variant came last.
    const modes = ['none', 'subscribed', 'without'] as const;
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of modes.map((_, i) => modes[(i + r) % modes.length] ?? 'none')) {
        if (mode === 'without' && !without) continue;
        const entry = mode === 'without' && without ? without.entry : current;
        const { createMs } = (await child(mode, kubeconfig, entry)) as { createMs: number };
        samples[mode].push(createMs);
      }
    }
    const profile = (await child('profile', kubeconfig, current)) as {
      rounds: number;
      categories: Record<string, number>;
      library: Record<string, number>;
    };
    // A round creates (Template GET, processing POST, N applies) and deletes (the same two, N
    // reads, N deletes); discovery was cached by the warm-up rounds.
    const requestsPerRound = 2 + OBJECTS + (2 + 2 * OBJECTS);
    const perRequest = (us: number): number =>
      Math.round((us / (profile.rounds * requestsPerRound)) * 10) / 10;
    const cost: TracingCost = {
      noneMs: median(samples.none),
      subscribedMs: median(samples.subscribed),
      withoutMs: without ? median(samples.without) : undefined,
      withoutRevision: without?.revision,
      requestsPerRound,
      usPerRequest: Object.fromEntries(
        Object.entries(profile.categories).map(([k, v]) => [k, perRequest(v)]),
      ),
      libraryFunctions: Object.fromEntries(
        Object.entries(profile.library).map(([k, v]) => [k, perRequest(v)]),
      ),
    };
    progress(
      `tracing: create of ${OBJECTS} at 0 ms: no subscriber ${cost.noneMs.toFixed(1)} ms, subscribed ${cost.subscribedMs.toFixed(1)} ms, without channels ${cost.withoutMs?.toFixed(1) ?? '—'} ms`,
    );
    return cost;
  } finally {
    rmSync(resolve('bench/.without-tracing'), { recursive: true, force: true });
    await sim.close();
  }
}

/** The performance.md section for it. */
export function tracingSection(cost: TracingCost | undefined): string {
  if (!cost) return '';
  const f1 = (x: number): string => x.toFixed(1);
  const ratio = (x: number): string => `${(x / cost.noneMs).toFixed(3)}×`;
  const categories = Object.entries(cost.usPerRequest)
    .sort((a, b) => b[1] - a[1])
    .map(([where, us]) => `| ${where} | ${f1(us)} |`)
    .join('\n');
  const functions = Object.entries(cost.libraryFunctions)
    .map(([name, us]) => `| \`${name}\` | ${f1(us)} |`)
    .join('\n');
  return `## Tracing channels and where the client's CPU goes

Sequential \`create\` of ${OBJECTS} ConfigMaps at 0 ms on one Connection over HTTP/2 (median of ${ROUNDS}
fresh client processes, each the median of 7 creates after 3 warm-up rounds), interleaved with each
variant taking each place in the order equally often:

| library | create ms | vs no subscriber |
| --- | ---: | ---: |
| channels in place, no subscriber | ${f1(cost.noneMs)} | 1.000× |
| a subscriber on both channels (doing nothing) | ${f1(cost.subscribedMs)} | ${ratio(cost.subscribedMs)} |
| ${cost.withoutRevision ? `without the channels (${cost.withoutRevision})` : 'without the channels'} | ${cost.withoutMs === undefined ? 'not measured (src/connection/tracing.ts changed shape)' : f1(cost.withoutMs)} | ${cost.withoutMs === undefined ? '—' : ratio(cost.withoutMs)} |

Where the client's time goes per request, from a V8 CPU profile of 7 create-and-delete rounds of
${OBJECTS} objects (${cost.requestsPerRound} requests a round; self time, µs per request; "idle" is the
client waiting for the simulator in the parent process):

| where | µs per request |
| --- | ---: |
${categories}

The library's own functions with the most self time (µs per request):

| function | µs per request |
| --- | ---: |
${functions}
`;
}
