// The tracing benchmark's client process (bench/tracing.ts): sequential creates of 100 objects on
// one Connection, with no subscriber, with a subscriber on both channels, or with the library as
// it was before it had channels; or the same under a CPU profile, summed by where the time went.
import { tracingChannel } from 'node:diagnostics_channel';
import { Session } from 'node:inspector/promises';

export type TracingMode = 'none' | 'subscribed' | 'without' | 'profile';

const [mode, kubeconfig, entry, template] = process.argv.slice(2) as [TracingMode, string, string, string];
const ocp = (await import(entry)) as typeof import('../src/index.ts');
const ROUNDS = 7;

if (mode === 'subscribed') {
  const nothing = (): void => undefined;
  const handlers = { start: nothing, end: nothing, asyncStart: nothing, asyncEnd: nothing, error: nothing };
  tracingChannel('openshift-template-client:operation').subscribe(handlers);
  tracingChannel('openshift-template-client:request').subscribe(handlers);
}

const api = await ocp.connect({ kubeconfig });
const options = { namespace: 'workers', templateNamespace: 'infra', api } as const;
async function round(job: string): Promise<number> {
  const started = performance.now();
  await ocp.create(template, { JOB: job }, options);
  const ms = performance.now() - started;
  await ocp.delete(template, { JOB: job }, options);
  return ms;
}
for (let i = 0; i < 3; i++) await round(`warm-${i}`);

/** Self time by where the code lives, from a V8 CPU profile. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
function category(url: string, name: string): string {
  if (url.includes('/src/')) return 'this library (src/)';
  if (url.includes('undici')) return 'undici';
  if (url.includes('@kubernetes')) return 'client-node';
  if (/^node:internal\/(http2|tls|net|stream|_tls|crypto)/.test(url) || /node:(http2|tls|net)/.test(url))
    return 'Node.js HTTP/2, TLS, sockets, streams';
  if (url.startsWith('node:')) return 'other Node.js internals';
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)') return 'idle (waiting for the server)';
  if (name === '(program)' || url === '') return 'V8 and native code (JSON, crypto, syscalls)';
  return 'other JavaScript';
}

if (mode === 'profile') {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  for (let i = 0; i < ROUNDS; i++) await round(`profiled-${i}`);
  const { profile } = await session.post('Profiler.stop');
  const nodes = new Map((profile.nodes as ProfileNode[]).map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0)));
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    const where = category(frame.url, frame.functionName);
    byCategory.set(where, (byCategory.get(where) ?? 0) + us);
    if (where === 'this library (src/)') {
      const name = `${frame.functionName || '(anonymous)'} (${frame.url.replace(/^.*\/src\//, 'src/')}:${frame.lineNumber + 1})`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    }
  }
  process.stdout.write(
    JSON.stringify({
      rounds: ROUNDS,
      categories: Object.fromEntries(byCategory),
      library: Object.fromEntries([...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 8)),
    }),
  );
} else {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) times.push(await round(`measured-${i}`));
  times.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ createMs: times[Math.floor(times.length / 2)] }));
}
await api.close();
