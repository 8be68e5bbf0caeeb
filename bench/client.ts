// The benchmark's client process: runs one operation at a time on request from bench/run.ts, with
// this library or with a do-it-yourself baseline on @kubernetes/client-node, and reports its own
// wall time, CPU time and peak heap growth. The simulator lives in the parent, so none of its work
// is counted here.
import { getHeapStatistics } from 'node:v8';
import * as k8s from '@kubernetes/client-node';
import * as ocp from '../src/index.ts';
import {
  applyAll,
  deleteAll,
  type RawTransport,
  rawH1,
  rawH2,
  readAll,
  type Rendered,
  render as rawRender,
  replayDelete,
} from './raw.ts';

export type Impl = 'library' | 'baseline' | 'raw' | 'raw-h2';
export type Op =
  'connect' | 'process' | 'create' | 'get' | 'get-ref' | 'delete' | 'setup-create' | 'delete-ref' | 'close';

export interface Command {
  impl: Impl;
  op: Op;
  template: string;
  kubeconfig: string;
}

export interface Measurement {
  wallMs: number;
  cpuMs: number;
  peakHeapBytes: number;
}

const NAMESPACES = { namespace: 'workers', templateNamespace: 'infra' } as const;

interface LibraryState {
  api?: ocp.Connection;
  refs: ocp.ResourceRef[];
}
interface BaselineState {
  kc?: k8s.KubeConfig;
  objects?: k8s.KubernetesObjectApi;
  custom?: k8s.CustomObjectsApi;
  refs: k8s.KubernetesObject[];
}
const library: LibraryState = { refs: [] };
const raw: { client?: RawTransport; applied: Rendered[] } = { applied: [] };

/**
 * The same requests as the library and nothing else (bench/raw.ts): over plain undici with
 * HTTP/1.1 keep-alive, or over one node:http2 session.
 */
async function rawOp(op: Op, template: string, kubeconfig: string, h2: boolean): Promise<void> {
  const send = (method: string, path: string, body?: unknown, type?: string): Promise<unknown> => {
    if (!raw.client) throw new Error('not connected');
    return raw.client.send(method, path, body, type);
  };
  switch (op) {
    case 'connect':
      raw.client = h2 ? rawH2(kubeconfig) : rawH1(kubeconfig);
      await send('GET', '/api/v1');
      return;
    case 'process':
      await rawRender(send, template);
      return;
    case 'create':
    case 'setup-create':
      raw.applied = await applyAll(send, await rawRender(send, template));
      return;
    case 'get':
      await readAll(send, await rawRender(send, template));
      return;
    case 'get-ref':
      await readAll(send, raw.applied);
      return;
    case 'delete':
      if (!raw.client) throw new Error('not connected');
      await replayDelete(raw.client, await rawRender(send, template));
      return;
    case 'delete-ref':
      await deleteAll(send, raw.applied, true);
      return;
    case 'close':
      await raw.client?.close();
      delete raw.client;
      return;
  }
}
const baseline: BaselineState = { refs: [] };

async function libraryOp(op: Op, template: string, kubeconfig: string): Promise<void> {
  const api = (): ocp.Connection => {
    if (!library.api) throw new Error('not connected');
    return library.api;
  };
  switch (op) {
    case 'connect':
      library.api = await ocp.connect({ kubeconfig });
      return;
    case 'process':
      await ocp.process(template, {}, { ...NAMESPACES, api: api() });
      return;
    case 'create':
    case 'setup-create':
      library.refs = await ocp.create(template, {}, { ...NAMESPACES, api: api() });
      return;
    case 'get':
      await ocp.get(template, {}, { ...NAMESPACES, api: api() });
      return;
    case 'get-ref':
      await ocp.get({ namespace: 'workers', resources: library.refs, api: api() });
      return;
    case 'delete':
      await ocp.delete(template, {}, { ...NAMESPACES, api: api() });
      return;
    case 'delete-ref':
      await ocp.delete({ namespace: 'workers', resources: library.refs, api: api() });
      return;
    case 'close':
      await library.api?.close();
      delete library.api;
      return;
  }
}

/** What a user of client-node writes without this library. */
async function render(template: string): Promise<k8s.KubernetesObject[]> {
  const custom = baseline.custom;
  if (!custom) throw new Error('not connected');
  const stored = (await custom.getNamespacedCustomObject({
    group: 'template.openshift.io',
    version: 'v1',
    namespace: 'infra',
    plural: 'templates',
    name: template,
  })) as { metadata: Record<string, unknown> };
  const copy = { ...stored, metadata: { name: stored.metadata.name } };
  const processed = (await custom.createNamespacedCustomObject({
    group: 'template.openshift.io',
    version: 'v1',
    namespace: 'workers',
    plural: 'processedtemplates',
    body: copy,
  })) as { objects: { apiVersion: string; kind: string; metadata: Record<string, unknown> }[] };
  return processed.objects.map((o) => {
    const metadata = new k8s.V1ObjectMeta();
    Object.assign(metadata, o.metadata, { namespace: 'workers' });
    return { ...o, metadata };
  });
}

async function baselineOp(op: Op, template: string, kubeconfig: string): Promise<void> {
  const objects = (): k8s.KubernetesObjectApi => {
    if (!baseline.objects) throw new Error('not connected');
    return baseline.objects;
  };
  switch (op) {
    case 'connect': {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfig);
      baseline.kc = kc;
      baseline.objects = k8s.KubernetesObjectApi.makeApiClient(kc);
      baseline.custom = kc.makeApiClient(k8s.CustomObjectsApi);
      return;
    }
    case 'process':
      await render(template);
      return;
    case 'create':
    case 'setup-create': {
      const rendered = await render(template);
      baseline.refs = [];
      for (const object of rendered) {
        baseline.refs.push(
          await objects().patch(
            object,
            undefined,
            undefined,
            'mini-scheduler',
            false,
            k8s.PatchStrategy.ServerSideApply,
          ),
        );
      }
      return;
    }
    case 'get':
      for (const object of await render(template))
        await objects().read(
          object as k8s.KubernetesObject & { metadata: { name: string; namespace: string } },
        );
      return;
    case 'get-ref':
      for (const object of baseline.refs)
        await objects().read(
          object as k8s.KubernetesObject & { metadata: { name: string; namespace: string } },
        );
      return;
    case 'delete':
      for (const object of (await render(template)).reverse()) {
        try {
          await objects().delete(object);
        } catch (error) {
          if (!(error instanceof k8s.ApiException) || error.code !== 404) throw error;
        }
      }
      return;
    case 'delete-ref':
      for (const object of [...baseline.refs].reverse()) {
        const body = new k8s.V1DeleteOptions();
        body.preconditions = new k8s.V1Preconditions();
        if (object.metadata?.uid !== undefined) body.preconditions.uid = object.metadata.uid;
        await objects().delete(object, undefined, undefined, undefined, undefined, undefined, body);
      }
      return;
    case 'close':
      delete baseline.kc;
      delete baseline.objects;
      delete baseline.custom;
      return;
  }
}

async function measure(command: Command): Promise<Measurement> {
  globalThis.gc?.();
  // v8's heap statistics are cheap; process.memoryUsage() reads /proc and, sampled every
  // millisecond, would itself slow the client down.
  const heapUsed = (): number => getHeapStatistics().used_heap_size;
  const heapBefore = heapUsed();
  let peak = heapBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, heapUsed());
  }, 10);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  try {
    if (command.impl === 'library') await libraryOp(command.op, command.template, command.kubeconfig);
    else if (command.impl === 'raw' || command.impl === 'raw-h2')
      await rawOp(command.op, command.template, command.kubeconfig, command.impl === 'raw-h2');
    else await baselineOp(command.op, command.template, command.kubeconfig);
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  peak = Math.max(peak, heapUsed());
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakHeapBytes: peak - heapBefore };
}

process.on('message', (command: Command) => {
  measure(command).then(
    (result) => process.send?.({ ok: true, result }),
    (error: unknown) =>
      process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.send?.({ ready: true });
