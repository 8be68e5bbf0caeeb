// The client process of the stand-in benches (bench/stand-in-bench.ts): this library with the
// pre-flight, or the raw client sending the same requests (dry runs included), one command at a
// time, so the parent reads the stand-in's request counts between them. Reports wall and CPU time.
import * as ocp from '../src/index.ts';
import { type Allocations, sampleAllocations } from './allocations.ts';
import { BURST_TEMPLATE } from './templates.ts';
import { DEFAULT_MAX_SOCKETS } from '../src/connection/requests.ts';
import { applyAll, dryRunWave, objectPath, type RawTransport, rawH1, rawH2, render } from './raw.ts';

export type StandInImpl = 'library' | 'raw';

export type ClientCommand =
  /** A throwaway burst of `k` jobs on a Connection of its own, then the measured one opened. */
  | { open: { impl: StandInImpl; kubeconfig: string; protocol: 'h2' | 'http1'; k: number } }
  /**
   * `k` concurrent create jobs on the measured Connection; with `allocations`, what they allocated
   * (the profile kept in that file).
   */
  | { burst: { k: number; allocations?: string } }
  /** `runs` rounds of: a create with the pre-flight, one without, one single-request read. */
  | { cost: { template: string; runs: number } }
  | { close: true };

export interface Timed {
  /** Sampled with `allocations` only (the sampling costs time of its own). */
  allocations?: Allocations;
  wallMs: number;
  cpuMs: number;
  /** The monotonic clock's µs at start and end, the clock a `--cpu-prof` profile's samples are timed by. */
  fromUs: number;
  toUs: number;
}

export interface CostSamples {
  withMs: number[];
  withoutMs: number[];
  /** One request's round trip through the library on the same Connection (a one-ref get). */
  rttMs: number[];
  /**
   * The raw client's same rounds, taking turns with the library's (over HTTP/1.1 with the
   * library's socket limit): what the wave costs any client on this machine and server.
   */
  raw: { withMs: number[]; withoutMs: number[]; rttMs: number[] };
}

const NAMESPACES = { namespace: 'workers', templateNamespace: 'infra' } as const;

/** One create job of the client under test; `preflight` is the library's option. */
type Job = (job: string, preflight?: 'server' | 'schema') => Promise<ocp.CreatedRef[] | undefined>;

interface Opened {
  job: Job;
  close(): Promise<void>;
  api?: ocp.Connection;
}

async function openLibrary(kubeconfig: string): Promise<Opened> {
  const api = await ocp.connect({ kubeconfig });
  const job: Job = (name, preflight = 'server') =>
    ocp.create(BURST_TEMPLATE, { JOB: name }, { ...NAMESPACES, api, preflight });
  return { job, close: () => api.close(), api };
}

async function openRaw(kubeconfig: string, protocol: 'h2' | 'http1'): Promise<Opened> {
  const client: RawTransport = protocol === 'h2' ? rawH2(kubeconfig) : rawH1(kubeconfig);
  // The same first request as connect(): one warm connection before the burst, as the library has.
  await client.send('GET', '/api/v1');
  const job: Job = async (name) => {
    const objects = await render(client.send, BURST_TEMPLATE, { JOB: name });
    await dryRunWave(client.send, objects);
    await applyAll(client.send, objects);
    return undefined;
  };
  return { job, close: () => client.close() };
}

/** Job names the stand-in recognises (bench/stand-in-capture.ts): `jobz` and a number above 0. */
const jobName = (i: number): string => `jobz${String(i)}`;
const THROWAWAY = 1_000_000;
const WARM_UP = 9_000_000;

async function timed(work: () => Promise<unknown>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, fromUs, toUs };
}

const burstOf = (job: Job, k: number, from = 1): Promise<unknown> =>
  Promise.all(Array.from({ length: k }, (_, i) => job(jobName(from + i))));

let opened: Opened | undefined;
let openedOn: { kubeconfig: string; protocol: 'h2' | 'http1' } | undefined;
/** The cost rounds' raw client, opened by the first of them and kept, its sockets warm. */
let rawForCost: RawTransport | undefined;

async function open(command: Extract<ClientCommand, { open: unknown }>['open']): Promise<void> {
  const start = (): Promise<Opened> =>
    command.impl === 'library'
      ? openLibrary(command.kubeconfig)
      : openRaw(command.kubeconfig, command.protocol);
  // Compiles every path a burst takes (Node's HTTP/2 code included) before anything is measured.
  const throwaway = await start();
  await throwaway.job(jobName(WARM_UP));
  await burstOf(throwaway.job, command.k, THROWAWAY);
  await throwaway.close();
  opened = await start();
  openedOn = { kubeconfig: command.kubeconfig, protocol: command.protocol };
  await opened.job(jobName(WARM_UP));
}

async function rawCostClient(): Promise<RawTransport> {
  if (rawForCost) return rawForCost;
  if (!openedOn) throw new Error('no Connection is open');
  const { kubeconfig, protocol } = openedOn;
  rawForCost = protocol === 'h2' ? rawH2(kubeconfig) : rawH1(kubeconfig, DEFAULT_MAX_SOCKETS);
  await rawForCost.send('GET', '/api/v1');
  return rawForCost;
}

async function cost(template: string, runs: number): Promise<CostSamples> {
  const api = opened?.api;
  if (!api) throw new Error('cost runs on the library only');
  const create = (preflight: 'server' | 'schema'): Promise<ocp.CreatedRef[]> =>
    ocp.create(template, {}, { ...NAMESPACES, api, preflight });
  const [first] = await create('schema');
  if (!first) throw new Error(`${template} rendered no object`);
  const raw = await rawCostClient();
  const rawCreate = async (wave: boolean): Promise<void> => {
    const objects = await render(raw.send, template);
    if (wave) await dryRunWave(raw.send, objects);
    await applyAll(raw.send, objects);
  };
  const firstPath = objectPath({
    apiVersion: first.apiVersion,
    kind: first.kind,
    metadata: { name: first.name },
  });
  const samples: CostSamples = {
    withMs: [],
    withoutMs: [],
    rttMs: [],
    raw: { withMs: [], withoutMs: [], rttMs: [] },
  };
  for (let run = 0; run < runs; run++) {
    // Taking turns, so that a spell of load on the machine falls on all of them.
    samples.withMs.push((await timed(() => create('server'))).wallMs);
    samples.withoutMs.push((await timed(() => create('schema'))).wallMs);
    samples.rttMs.push(
      (await timed(() => ocp.get({ namespace: 'workers', resources: [first], api }))).wallMs,
    );
    samples.raw.withMs.push((await timed(() => rawCreate(true))).wallMs);
    samples.raw.withoutMs.push((await timed(() => rawCreate(false))).wallMs);
    samples.raw.rttMs.push((await timed(() => raw.send('GET', firstPath))).wallMs);
  }
  return samples;
}

async function run(command: ClientCommand): Promise<unknown> {
  if ('open' in command) return open(command.open);
  if ('cost' in command) return cost(command.cost.template, command.cost.runs);
  if ('burst' in command) {
    const job = opened?.job;
    if (!job) throw new Error('no Connection is open');
    const work = (): Promise<Timed> => timed(() => burstOf(job, command.burst.k));
    if (command.burst.allocations === undefined) return work();
    const [result, allocations] = await sampleAllocations(work, command.burst.allocations);
    return { ...result, allocations };
  }
  await Promise.all([opened?.close(), rawForCost?.close()]);
  opened = undefined;
  rawForCost = undefined;
  return undefined;
}

process.on('message', (command: ClientCommand) => {
  run(command).then(
    (result) => process.send?.({ ok: true, result }),
    (error: unknown) =>
      process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.send?.({ ready: true });
