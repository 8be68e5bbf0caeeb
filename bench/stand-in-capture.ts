// The stand-in's answers, captured from the simulator: a workload runs against one simulator,
// whose request log then says every request it sent; each is sent again, in order, to a second
// simulator seeded alike, and its answer (status, warnings, body) is kept under the request's key.
// No answer is written by hand: the stand-in serves only what the simulator said.
import { writeFile } from 'node:fs/promises';
import { connect as connectH2 } from 'node:http2';
import { join } from 'node:path';
import { generateTlsMaterial } from '../simulator/certs.ts';
import { type LogEntry, type Simulator, startSimulator } from '../simulator/index.ts';

/** The job name answers are captured for; the stand-in puts each request's own name in its place. */
export const JOB_SENTINEL = 'jobz0';
/** How a job's name looks, in a path or a body (`jobz17`); jobs of the stand-in's benches are so named. */
export const JOB_TOKEN = /jobz\d+/;

export interface CapturedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Capture {
  tls: { cert: string; key: string };
  answers: Record<string, CapturedAnswer>;
}

/**
 * `PATCH dry /api/v1/namespaces/workers/configmaps/x`: the method, whether a dry run, the path; for
 * a POST also the name in its body (processing POSTs share a path, their Templates differ).
 */
export function answerKey(method: string, url: string, body: string): string {
  const [path = '', query = ''] = url.split('?');
  const dry = new URLSearchParams(query).get('dryRun') === 'All';
  const named =
    method === 'POST'
      ? ` ${(JSON.parse(body) as { metadata?: { name?: string } }).metadata?.name ?? ''}`
      : '';
  return `${method}${dry ? ' dry' : ''} ${path}${named}`;
}

function replay(sim: Simulator, entry: LogEntry): Promise<CapturedAnswer> {
  const session = connectH2(sim.url, { ca: sim.caCert });
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(entry.query))
    for (const v of Array.isArray(value) ? value : [value]) query.append(key, v);
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': entry.method,
      ':path': `${entry.path}${search}`,
      authorization: `Bearer ${sim.token}`,
      accept: 'application/json',
      ...(entry.contentType ? { 'content-type': entry.contentType } : {}),
    });
    let status = 0;
    const headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    stream.on('response', (answer) => {
      status = Number(answer[':status']);
      if (typeof answer.warning === 'string') headers.warning = answer.warning;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      session.close();
      resolve({ status, headers, body: Buffer.concat(chunks).toString() });
    });
    stream.end(entry.body === '' ? undefined : entry.body);
  });
}

/**
 * Runs `workload` against a simulator seeded by `seed`, replays what it sent against a second one
 * seeded alike, and writes the answers, with the TLS material both simulators and the stand-in
 * share, to `dir`/stand-in.json; returns that path and the kubeconfig of the stand-in, whose
 * server URL the caller fills in.
 */
export async function captureAnswers(
  dir: string,
  seed: (sim: Simulator) => void,
  workload: (kubeconfig: string) => Promise<void>,
): Promise<{ file: string; kubeconfig: (url: string) => string }> {
  const tls = generateTlsMaterial();
  const start = async (): Promise<Simulator> => {
    const sim = await startSimulator({ tls, seedExamples: false, namespaces: ['infra', 'workers'] });
    seed(sim);
    return sim;
  };
  const recorded = await start();
  const replayed = await start();
  const answers: Record<string, CapturedAnswer> = {};
  const config = recorded.kubeconfig;
  try {
    const kubeconfig = join(dir, 'capture-kubeconfig.json');
    await recorded.writeKubeconfig(kubeconfig);
    await workload(kubeconfig);
    for (const entry of recorded.log) {
      const answer = await replay(replayed, entry);
      const dry = entry.query.dryRun === 'All' ? '?dryRun=All' : '';
      const key = answerKey(entry.method, entry.path + dry, entry.body);
      // The first answer stands: an object's create, not a later re-apply of it.
      answers[key] ??= answer;
    }
  } finally {
    await recorded.close();
    await replayed.close();
  }
  const file = join(dir, 'stand-in.json');
  await writeFile(file, JSON.stringify({ tls: { cert: tls.serverCert, key: tls.serverKey }, answers }));
  return {
    file,
    kubeconfig: (url) => {
      const cluster = config.clusters[0]?.cluster;
      if (cluster) cluster.server = url;
      return JSON.stringify(config);
    },
  };
}
