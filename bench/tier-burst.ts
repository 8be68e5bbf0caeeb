// `node scripts/with-node.mjs node bench/tier-burst.ts --kubeconfig FILE [--context namespace-admin]
// [--k 500] [--runs 1] [--schema-first] [--record [--max-inflight N,M]] | --render`: a
// burst of K create jobs with the pre-flight on ONE Connection against the real tier (`npm run
// cluster -- --kubeconfig-out FILE --http2-max-streams 2000`, OpenShift's stream limit), then K
// delete jobs. A dry run counts as a mutating request for kube-apiserver's API Priority and Fairness,
// so the pre-flight doubles the writes a burst puts in its queues: this counts the 429 answers and
// the library's retries of them (from its request TracingChannel), and the jobs that failed, by
// class (error name, step, code, status and message with the job's names taken out). `--record`
// adds the run to bench/tier-burst.json and rewrites docs/performance.md's section from it;
// `--render` only rewrites the section.
import { tracingChannel } from 'node:diagnostics_channel';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import * as ocp from '../src/index.ts';
import { REQUEST_CHANNEL, type RequestTrace } from '../src/connection/tracing.ts';
import {
  type BurstFigure,
  readTierBursts,
  recordTierBurst,
  writeTierBurstSection,
} from './tier-burst-report.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    k: { type: 'string' },
    runs: { type: 'string' },
    'schema-first': { type: 'boolean' },
    record: { type: 'boolean' },
    render: { type: 'boolean' },
    // What the tier was started with (`npm run cluster -- --max-inflight N,M`), for the record only.
    'max-inflight': { type: 'string' },
  },
});
if (values.render === true) {
  await writeTierBurstSection(readTierBursts());
  process.exit(0);
}
if (values.kubeconfig === undefined) throw new Error('tier-burst: --kubeconfig FILE is required');
const kubeconfig = values.kubeconfig;
const k = Number(values.k ?? 500);
const runs = Number(values.runs ?? 1);
// Not the admin: system:masters is exempt from API Priority and Fairness, a scheduler's identity is not.
const context = values.context ?? 'namespace-admin';

/** The burst Template of bench/burst.ts, inline (the tier stores no Template of the bench's). */
const TEMPLATE: ocp.TemplateObject = {
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'tier-burst' },
  parameters: [{ name: 'JOB', required: true }],
  objects: ['a', 'b', 'c', 'd'].map((suffix, i) => ({
    apiVersion: 'v1',
    kind: i % 2 === 0 ? 'ConfigMap' : 'Secret',
    metadata: { name: `\${JOB}-${suffix}` },
    ...(i % 2 === 0 ? { data: { job: '${JOB}' } } : { stringData: { key: '${JOB}' } }),
  })),
};

interface Tally {
  attempts: number;
  tooMany: number;
  /** Attempts after the first of a request: 429 retries and refused HTTP/2 streams sent again. */
  retries: number;
}
let tally: Tally = { attempts: 0, tooMany: 0, retries: 0 };
tracingChannel<unknown, RequestTrace>(REQUEST_CHANNEL).subscribe({
  start: (context) => {
    tally.attempts++;
    if (context.attempt > 1) tally.retries++;
  },
  end: () => undefined,
  asyncStart: (context) => {
    if (context.statusCode === 429) tally.tooMany++;
  },
  asyncEnd: () => undefined,
  error: () => undefined,
});

/** A failure's class: what failed and how, without the job's own names. */
function failureClass(reason: unknown): string {
  if (!(reason instanceof Error)) return String(reason);
  const fields = reason as Error & { step?: string; code?: string; statusCode?: number };
  // Counts and waits differ per job; an HTTP status ("429:") and the wait a 429 asked for are kept.
  const message = reason.message
    .replace(/d36b-\d+-\d+-\d+/g, 'JOB')
    .replace(/(?<!asked to wait )\b\d+\b(?!:)/g, 'N');
  return [reason.name, fields.step, fields.code, fields.statusCode, message]
    .filter((part) => part !== undefined)
    .join(' · ');
}

function classes(reasons: unknown[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const reason of reasons) {
    const key = failureClass(reason);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function burst(name: string, job: (i: number) => Promise<unknown>): Promise<BurstFigure> {
  tally = { attempts: 0, tooMany: 0, retries: 0 };
  const loadBefore = loadavg()[0] ?? 0;
  const started = performance.now();
  const settled = await Promise.allSettled(Array.from({ length: k }, (_, i) => job(i)));
  const wallMs = performance.now() - started;
  const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  const failures = classes(rejected.map((s): unknown => s.reason));
  const load = Math.max(loadBefore, loadavg()[0] ?? 0);
  const figure: BurstFigure = { name, k, wallMs, ...tally, failed: rejected.length, failures, load };
  process.stdout.write(
    `${name} K=${String(k)}: ${wallMs.toFixed(0)} ms, ${String(figure.attempts)} request attempts, ${String(figure.tooMany)} answered 429, ${String(figure.retries)} retries, ${String(figure.failed)} jobs failed, load ${load.toFixed(2)}\n`,
  );
  for (const [failure, count] of Object.entries(failures))
    process.stdout.write(`  ${String(count)} × ${failure}\n`);
  return figure;
}

await using api = await ocp.connect({ kubeconfig, context });
process.stdout.write(`context ${context}\n`);
const options = { namespace: 'workers', api } as const;
const jobName = (run: number, i: number): string => `d36b-${String(process.pid)}-${String(run)}-${String(i)}`;
// `--schema-first`: the burst without the pre-flight first, so neither order favours one.
const order =
  values['schema-first'] === true ? (['schema', 'server'] as const) : (['server', 'schema'] as const);
const figures: BurstFigure[] = [];
for (let run = 0; run < runs; run++) {
  for (const preflight of order) {
    figures.push(
      await burst(`create (preflight ${preflight})`, (i) =>
        ocp.create(TEMPLATE, { JOB: jobName(run, i) }, { ...options, preflight }),
      ),
    );
    figures.push(
      await burst(`delete after preflight ${preflight}`, (i) =>
        ocp.delete(TEMPLATE, { JOB: jobName(run, i) }, options),
      ),
    );
  }
}
if (values.record === true)
  await recordTierBurst({
    context,
    order: `${order[0]} first`,
    runs,
    inflight: values['max-inflight'] ?? '400,200',
    figures,
  });
