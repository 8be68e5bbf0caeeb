// `node scripts/with-node.mjs node bench/tier-burst.ts --kubeconfig FILE [--context namespace-admin]
// [--k 500] [--runs 1] [--schema-first]`: a
// burst of K create jobs with the pre-flight on ONE Connection against the real tier (`npm run
// cluster -- --kubeconfig-out FILE --http2-max-streams 2000`, OpenShift's stream limit), then K
// delete jobs. A dry run counts as a mutating request for kube-apiserver's API Priority and Fairness,
// so the pre-flight doubles the writes a burst puts in its queues: this counts the 429 answers and
// the library's retries of them (from its request TracingChannel), and the jobs that failed.
import { tracingChannel } from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import * as ocp from '../src/index.ts';
import { REQUEST_CHANNEL, type RequestTrace } from '../src/connection/tracing.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    k: { type: 'string' },
    runs: { type: 'string' },
    'schema-first': { type: 'boolean' },
  },
});
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

async function burst(
  name: string,
  job: (i: number) => Promise<unknown>,
): Promise<{ wallMs: number; failed: string[] } & Tally> {
  tally = { attempts: 0, tooMany: 0, retries: 0 };
  const started = performance.now();
  const settled = await Promise.allSettled(Array.from({ length: k }, (_, i) => job(i)));
  const wallMs = performance.now() - started;
  const failed = settled
    .filter((s): s is PromiseRejectedResult => s.status === 'rejected')
    .map((s) => (s.reason instanceof Error ? s.reason.message : String(s.reason)));
  const counted = { ...tally };
  process.stdout.write(
    `${name} K=${String(k)}: ${wallMs.toFixed(0)} ms, ${String(counted.attempts)} request attempts, ${String(counted.tooMany)} answered 429, ${String(counted.retries)} retries, ${String(failed.length)} jobs failed${failed[0] ? ` (first: ${failed[0].slice(0, 300)})` : ''}\n`,
  );
  return { wallMs, failed, ...counted };
}

await using api = await ocp.connect({ kubeconfig, context });
process.stdout.write(`context ${context}\n`);
const options = { namespace: 'workers', api } as const;
const jobName = (run: number, i: number): string => `d36b-${String(process.pid)}-${String(run)}-${String(i)}`;
// `--schema-first`: the burst without the pre-flight first, so neither order favours one.
const order =
  values['schema-first'] === true ? (['schema', 'server'] as const) : (['server', 'schema'] as const);
for (let run = 0; run < runs; run++) {
  for (const preflight of order) {
    await burst(`create (preflight ${preflight})`, (i) =>
      ocp.create(TEMPLATE, { JOB: jobName(run, i) }, { ...options, preflight }),
    );
    await burst('delete', (i) => ocp.delete(TEMPLATE, { JOB: jobName(run, i) }, options));
  }
}
