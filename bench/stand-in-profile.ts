// `node scripts/with-node.mjs node bench/stand-in-profile.ts [--k 500] [--protocol h2] [--out DIR]
// [--runs N] [--no-profile] [--allocations]`:
// a K-job burst with the pre-flight against the stand-in (bench/stand-in.ts), by the library and by
// the raw client sending the same requests, each client process under `node --cpu-prof`; prints
// each one's self time by where the code lives, and the library's top functions, and keeps the
// .cpuprofile files in DIR for a closer look (Chrome DevTools, speedscope); with `--runs`, the
// clients take turns and the medians and ratios of wall and CPU time close the output. With
// `--allocations` (best with `--no-profile`), each burst's allocation volume is sampled too, the
// figure a busy machine does not blur, with the library's largest allocation sites (the
// .heapprofile files are kept in DIR).
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { burstTemplate } from './burst.ts';
import { benchTemplate } from './templates.ts';
import { captureAnswers } from './stand-in-capture.ts';
import { captureWorkload, Child, COST_SHAPES, startWorld } from './stand-in-bench.ts';
import type { StandInImpl, Timed } from './stand-in-client.ts';

const { values } = parseArgs({
  options: {
    k: { type: 'string' },
    protocol: { type: 'string' },
    out: { type: 'string' },
    runs: { type: 'string' },
    'no-profile': { type: 'boolean' },
    allocations: { type: 'boolean' },
  },
});
const runs = Number(values.runs ?? 1);
const k = Number(values.k ?? 500);
const protocol: 'h2' | 'http1' = values.protocol === 'http1' ? 'http1' : 'h2';
const out = values.out ?? (await mkdtemp(join(tmpdir(), 'ots-profile-')));
await mkdir(out, { recursive: true });

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function where(url: string, name: string): string {
  if (url.includes('/src/')) return 'library (src/)';
  if (url.includes('/bench/')) return 'bench client (bench/)';
  if (url.includes('undici')) return 'undici';
  if (/node:internal\/(http2|tls|net|stream|_tls|crypto)/.test(url) || /node:(http2|tls|net)/.test(url))
    return 'Node.js HTTP/2, TLS, sockets, streams';
  if (url.startsWith('node:')) return 'other Node.js internals';
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)') return 'idle';
  return 'V8, native and other';
}

/** Self time of the samples taken during `bursts` only (start-up and module loading left out). */
function summarize(
  profile: Profile,
  bursts: Timed[],
): { categories: [string, number][]; library: [string, number][] } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (!frame || !bursts.some((b) => at >= b.fromUs && at <= b.toUs)) return;
    const category = where(frame.url, frame.functionName);
    byCategory.set(category, (byCategory.get(category) ?? 0) + us);
    if (category === 'library (src/)' || category === 'V8, native and other') {
      const file = frame.url.replace(/^.*\/(src|node_modules)\//, '$1/');
      const name = `${frame.functionName || '(anonymous)'} ${file}:${String(frame.lineNumber + 1)}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    }
  });
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]);
  return { categories: sorted(byCategory), library: sorted(byFunction).slice(0, 25) };
}

const captured = await captureAnswers(
  out,
  (sim) => {
    sim.seed(burstTemplate());
    for (const [n, d] of COST_SHAPES) sim.seed(benchTemplate(n, d));
  },
  captureWorkload,
);
const plan = {
  latencyMs: 10,
  protocols: [protocol],
  ks: [k],
  costRuns: 0,
  burstRuns: 0,
  dir: out,
  maxConcurrentStreams: 100,
};
const world = await startWorld(plan, protocol, captured);

/** One client process's bursts, profiled unless `--no-profile`. */
async function measure(impl: StandInImpl, run: number): Promise<[Timed, Timed]> {
  const dir = join(out, `${impl}-${String(run)}`);
  const profiling = values['no-profile'] !== true;
  const client = await Child.start(
    './stand-in-client.ts',
    profiling ? ['--cpu-prof', '--cpu-prof-dir', dir] : ['--expose-gc'],
  );
  await client.run({ open: { impl, kubeconfig: world.kubeconfig, protocol, k } });
  const sampled = values.allocations === true;
  if (sampled) await mkdir(dir, { recursive: true });
  const keep = (phase: string): { allocations?: string } =>
    sampled ? { allocations: join(dir, `${phase}.heapprofile`) } : {};
  const first = await client.run<Timed>({ burst: { k, ...keep('first') } });
  const warm = await client.run<Timed>({ burst: { k, ...keep('warm') } });
  await client.run({ close: true });
  await client.exit();
  process.stdout.write(
    `${impl}: first ${first.wallMs.toFixed(0)} ms (cpu ${first.cpuMs.toFixed(0)}), warm ${warm.wallMs.toFixed(0)} ms (cpu ${warm.cpuMs.toFixed(0)})\n`,
  );
  if (sampled) printAllocations(impl, first, warm);
  if (!profiling) return [first, warm];
  const [file] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  await writeFile(join(dir, 'bursts.json'), JSON.stringify([first, warm]));
  const profile = JSON.parse(await readFile(join(dir, file ?? ''), 'utf8')) as Profile;
  const { categories, library } = summarize(profile, [first, warm]);
  process.stdout.write('  self ms during both bursts:\n');
  for (const [name, us] of categories)
    process.stdout.write(`  ${(us / 1000).toFixed(0).padStart(6)}  ${name}\n`);
  if (impl === 'library') {
    process.stdout.write('  top functions (library and native):\n');
    for (const [name, us] of library)
      process.stdout.write(`  ${(us / 1000).toFixed(1).padStart(7)}  ${name}\n`);
  }
  return [first, warm];
}

function printAllocations(impl: StandInImpl, first: Timed, warm: Timed): void {
  const perJob = (t: Timed): string => (((t.allocations?.totalMb ?? 0) * 1000) / k).toFixed(0);
  process.stdout.write(
    `  allocated: first ${String(first.allocations?.totalMb.toFixed(1))} MB (${perJob(first)} kB a job), warm ${String(warm.allocations?.totalMb.toFixed(1))} MB (${perJob(warm)} kB a job)\n`,
  );
  if (impl !== 'library') return;
  for (const [name, mb] of warm.allocations?.sites ?? [])
    process.stdout.write(`  ${mb.toFixed(2).padStart(7)} MB  ${name}\n`);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
try {
  const measured: Record<StandInImpl, [Timed, Timed][]> = { library: [], raw: [] };
  for (let run = 0; run < runs; run++)
    for (const impl of ['library', 'raw'] as StandInImpl[]) measured[impl].push(await measure(impl, run));
  for (const [i, phase] of ['first', 'warm'].entries()) {
    const of = (impl: StandInImpl, what: 'wallMs' | 'cpuMs'): number =>
      median(measured[impl].map((m) => m[i]?.[what] ?? 0));
    process.stdout.write(
      `median of ${String(runs)}, K=${String(k)} ${protocol} ${phase}: library ${of('library', 'wallMs').toFixed(0)} ms / raw ${of('raw', 'wallMs').toFixed(0)} ms = ${(of('library', 'wallMs') / of('raw', 'wallMs')).toFixed(2)}x wall; cpu ${of('library', 'cpuMs').toFixed(0)} / ${of('raw', 'cpuMs').toFixed(0)} ms = ${(of('library', 'cpuMs') / of('raw', 'cpuMs')).toFixed(2)}x\n`,
    );
  }
  process.stdout.write(`files in ${out}\n`);
} finally {
  world.server.stop();
}
