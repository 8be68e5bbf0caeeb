// docs/observability.md's OpenTelemetry recipe, as printed, against an in-memory span exporter: one
// span per operation, a child span per request, errors recorded, nothing secret in any attribute.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, rejection, WORKER } from '../helpers.ts';

const exporter = new InMemorySpanExporter();
let h: Harness;
let recipe: string;

beforeAll(async () => {
  h = await harness();
  const page = await readFile('docs/observability.md', 'utf8');
  const source = /## OpenTelemetry[\s\S]*?```ts\n([\s\S]*?)```/.exec(page)?.[1];
  if (source === undefined) throw new Error('docs/observability.md lost its OpenTelemetry recipe');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  // Inside the checkout, so that the recipe's imports resolve from node_modules.
  recipe = resolve(`test/connection/.otel-recipe-${process.pid}.ts`);
  await writeFile(recipe, source);
  await import(recipe);
});
afterAll(async () => {
  await rm(recipe, { force: true });
  trace.disable();
  context.disable();
  await h.close();
});

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

test('an operation span per call with a child span per request, and errors recorded', async () => {
  const secret = 'SENTINEL-OTEL-PARAM-77aa';
  await using api = await h.connect();
  exporter.reset();
  h.sim.clearLog();
  const params = { VM_NAME: 'otel', API_KEY: secret };
  await ocp.create('worker-template', params, { ...WORKER, api });
  h.sim.addFault({ method: 'DELETE', nth: 1, action: { type: 'status', code: 500, message: 'boom' } });
  await rejection(ocp.delete('worker-template', params, { ...WORKER, api }));
  h.sim.clearFaults();
  await ocp.delete('worker-template', params, { ...WORKER, api });

  const spans = exporter.getFinishedSpans();
  const operations = spans.filter((s) => s.name.startsWith('openshift '));
  expect(operations.map((s) => s.name)).toEqual(['openshift create', 'openshift delete', 'openshift delete']);
  const [create, failed] = operations;
  expect(create?.attributes).toMatchObject({
    'openshift.operation': 'create',
    'openshift.mode': 'template',
    'openshift.namespace': 'workers',
    'openshift.template.name': 'worker-template',
    'openshift.template.namespace': 'infra',
    'openshift.objects': 3,
  });
  expect(failed?.status.code).toBe(2); // SpanStatusCode.ERROR
  expect(failed?.events.some((e) => e.name === 'exception')).toBe(true);
  // Every request the server received is one child span of the operation that sent it.
  const requests = spans.filter((s) => !s.name.startsWith('openshift '));
  expect(requests).toHaveLength(h.sim.log.length);
  const ids = new Set(operations.map((s) => s.spanContext().spanId));
  for (const span of requests) expect(ids.has(parentOf(span) ?? '')).toBe(true);
  const createRequests = requests.filter((s) => parentOf(s) === create?.spanContext().spanId);
  const names = createRequests.map((s) => s.name);
  expect(names.slice(0, 6)).toEqual([
    'GET Get',
    'POST Process',
    'GET Discover',
    'GET Schema',
    'GET Schema',
    'GET Schema',
  ]);
  // The pre-flight's dry runs of the three objects and its quota list, at once (in any order),
  // then the three writes in rendered order.
  expect([[...names.slice(6, 10)].sort(), names.slice(10)]).toEqual([
    ['GET Get', 'PATCH Apply', 'PATCH Apply', 'PATCH Apply'],
    ['PATCH Apply', 'PATCH Apply', 'PATCH Apply'],
  ]);
  const dryRuns = createRequests.slice(6, 10).filter((s) => s.name === 'PATCH Apply');
  const writes = createRequests.slice(10);
  const target = (s: (typeof createRequests)[number]): unknown => s.attributes['openshift.target'];
  const rendered = [
    'ConfigMap "otel-config" in namespace "workers"',
    'Secret "otel-credentials" in namespace "workers"',
    'VirtualMachine "otel" in namespace "workers"',
  ];
  expect([dryRuns.map(target).sort(), writes.map(target)]).toEqual([rendered, rendered]);
  expect(createRequests.at(-1)?.attributes['http.response.status_code']).toBe(201);
  expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain(secret);
});
