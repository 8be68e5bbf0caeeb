// The real tier's burst figures (bench/tier-burst.ts): kept in bench/tier-burst.json, since the
// tier needs Go and minutes to start and `npm run bench` does not start it, and shown as a section
// of docs/performance.md, written both by `npm run bench` and by `tier-burst.ts --record`.
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';

export interface BurstFigure {
  name: string;
  k: number;
  wallMs: number;
  attempts: number;
  tooMany: number;
  retries: number;
  failed: number;
  /** Failed jobs by class (error name, step, code, status, message without the job's names). */
  failures: Record<string, number>;
  /** The 1-minute load average, the higher of its values before and after the burst. */
  load: number;
}

export interface TierBurstSession {
  date: string;
  machine: string;
  context: string;
  order: string;
  /** The tier's --max-requests-inflight and --max-mutating-requests-inflight. */
  inflight: string;
  runs: number;
  figures: BurstFigure[];
}

const RECORDS = new URL('./tier-burst.json', import.meta.url);
const HEADING = '## Real tier: bursts of K jobs with and without the pre-flight';

export function readTierBursts(): TierBurstSession[] {
  if (!existsSync(RECORDS)) return [];
  return JSON.parse(readFileSync(RECORDS, 'utf8')) as TierBurstSession[];
}

function summaryRows(session: TierBurstSession): string[] {
  const names = [...new Set(session.figures.map((f) => f.name))];
  return names.map((name) => {
    const runs = session.figures.filter((f) => f.name === name);
    const each = (pick: (f: BurstFigure) => number): string => runs.map(pick).join(' / ');
    const seconds = runs.map((f) => f.wallMs / 1000);
    return `| ${session.inflight} | ${session.order} | ${name} | ${String(runs[0]?.k ?? 0)} | ${Math.min(...seconds).toFixed(1)}–${Math.max(...seconds).toFixed(1)} | ${each((f) => f.tooMany)} | ${each((f) => f.retries)} | ${each((f) => f.failed)} | ${Math.max(...runs.map((f) => f.load)).toFixed(1)} |`;
  });
}

function failureLines(session: TierBurstSession): string[] {
  const total: Record<string, number> = {};
  for (const figure of session.figures)
    for (const [failure, count] of Object.entries(figure.failures)) {
      // One line per code and cause: which object of the job failed first is left out.
      const key = failure.replace(
        / for N objects?.*?first failure: \w+ \w+ "JOB-\w+"( in namespace "[^"]+")?/,
        '',
      );
      total[key] = (total[key] ?? 0) + count;
    }
  return Object.entries(total)
    .sort(([, a], [, b]) => b - a)
    .map(([failure, count]) => `- ${session.inflight}, ${session.order}: ${String(count)} × \`${failure}\``);
}

/** The section, or a line saying the tier was not measured. */
export function tierBurstSection(sessions: readonly TierBurstSession[]): string {
  if (sessions.length === 0)
    return `${HEADING}\n\nNot measured: run \`bench/tier-burst.ts --record\` against \`npm run cluster\`.\n`;
  const failures = sessions.flatMap(failureLines);
  return `${HEADING}

\`node scripts/with-node.mjs node bench/tier-burst.ts --kubeconfig FILE --k 500 --runs N --record\`
(and with \`--schema-first\`, each session on a fresh tier) against \`npm run cluster -- --http2-max-streams 2000\`: kube-apiserver
1.34.4 with API Priority and Fairness's default priority levels over the seats of
\`--max-requests-inflight\` and \`--max-mutating-requests-inflight\` (column inflight: kube-apiserver's
defaults 400,200, or OpenShift's 3000,1000 from cluster-kube-apiserver-operator
bindata/assets/config/defaultconfig.yaml, \`npm run cluster -- --max-inflight 3000,1000\`) and the
simulator as the aggregated openshift-apiserver. One Connection as \`namespace-admin\` (its requests land in
\`global-default\`, as a user's do on OpenShift; \`system:masters\` would be exempt) runs K create
jobs of a Template of 2 ConfigMaps and 2 Secrets at once, with the pre-flight (\`server\`) and without
it (\`schema\`), each followed by K deletes. Per run, separated by " / ": the answers 429, the
library's retries (429s with \`Retry-After\`, refused streams) and the jobs that failed. Load is the
machine's 1-minute load average during the burst: the machine has ${String(cpus().length)} cores shared with other work,
so wall times are this machine's at that load only; the 429 counts depend on it too (APF rejects
what waits in its queues longer than a quarter of the request's 60 s, or finds them full).

The tier gives the simulator the FlowSchemas OpenShift gives openshift-apiserver
(\`scripts/cluster/flow-schemas.ts\`): its SubjectAccessReviews exempt, its other requests at
\`workload-high\`. Without them its reviews queued in \`global-default\` behind the callers' requests
that waited on them, and about three jobs in four of every 500-job burst failed at Process (a 504,
or the library's 60 s read timeout). APF's \`Retry-After\` is 1 s at first and doubles, up to 32 s,
while a priority level keeps rejecting (k8s.io/apiserver pkg/util/flowcontrol/dropped_requests_tracker.go);
the library waits out up to 10 such answers for one request, each up to 60 s and 180 s in all
(\`src/connection/retry.ts\`). With its earlier bound of 30 s in all, the 4th to 6th back-to-back
bursts of the 400,200 server-first session failed 55–151 jobs each on a 429 asking for 32 s.

| inflight | order | burst | K | wall (s) | 429s | retries | failed jobs | load |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${sessions.flatMap(summaryRows).join('\n')}

${failures.length === 0 ? 'No job failed.' : `Failed jobs by class, over all runs:\n\n${failures.join('\n')}`}

Measured on ${[...new Set(sessions.map((s) => `${s.date} (${s.machine})`))].join(', ')}.
`;
}

/** Adds one session to the records and rewrites docs/performance.md's section from them. */
export async function recordTierBurst(session: Omit<TierBurstSession, 'date' | 'machine'>): Promise<void> {
  const machine = `${String(cpus().length)} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${String(Math.round(totalmem() / 2 ** 30))} GiB; Node ${process.versions.node}`;
  const sessions = [
    ...readTierBursts().filter(
      (s) => s.order !== session.order || s.inflight !== session.inflight || s.runs !== session.runs,
    ),
    { date: new Date().toISOString().slice(0, 10), machine, ...session },
  ];
  await writeFile(RECORDS, `${JSON.stringify(sessions, null, 2)}\n`);
  await writeTierBurstSection(sessions);
}

/** docs/performance.md with its tier section rewritten (added at the end when it has none). */
export async function writeTierBurstSection(sessions: readonly TierBurstSession[]): Promise<void> {
  const docs = new URL('../docs/performance.md', import.meta.url);
  const text = await readFile(docs, 'utf8');
  const start = text.indexOf(HEADING);
  const next = start < 0 ? -1 : text.indexOf('\n## ', start + HEADING.length);
  const section = tierBurstSection(sessions);
  const updated =
    start < 0
      ? `${text.trimEnd()}\n\n${section}`
      : `${text.slice(0, start)}${section}${next < 0 ? '' : text.slice(next)}`;
  await writeFile(docs, updated);
}
