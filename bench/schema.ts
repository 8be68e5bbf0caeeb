// `node scripts/with-node.mjs node --expose-gc bench/schema.ts [DOCUMENT.json]`: what the typing
// engine costs.
// The size of an OpenAPI v3 document (as kube-apiserver serves it at /openapi/v3/apis/GROUP/VERSION)
// against its compact type table, the heap each retains (with --expose-gc), the time to compact it,
// and the time to type one rendered Deployment, in µs per object. Without a document it uses the cut-down test fixture. A
// measurement, not a test: nothing here is asserted.
import { readFileSync } from 'node:fs';
import { compactTypes } from '../src/schema/compact.ts';
import { pruneUndeclared } from '../src/schema/prune.ts';
import { typeObject } from '../src/schema/typing.ts';
import apps from '../test/schema/fixtures/apps-v1.ts';
import { deployment } from '../test/schema/tables.ts';

const ROUNDS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Median µs per call over rounds of `count` calls, after one warm-up round. */
function microseconds(count: number, run: () => unknown): number {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < count; i++) run();
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / count);
  }
  return median(rounds);
}

/** Heap bytes `make()`'s result retains, or `undefined` without --expose-gc. */
function retained(make: () => unknown): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return undefined;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  return kept === undefined ? undefined : after - before;
}

function kilobytes(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a (run with --expose-gc)' : `${Math.round(bytes / 1024)} KiB`;
}

function withoutDescriptions(text: string): number {
  return JSON.stringify(JSON.parse(text), (key, value: unknown) =>
    key === 'description' ? undefined : value,
  ).length;
}

const path = process.argv[2];
const text = path === undefined ? JSON.stringify(apps) : readFileSync(path, 'utf8');
const document: unknown = JSON.parse(text);
const table = compactTypes(document);
const compact = JSON.stringify(table).length;
const object = deployment();
const refused = deployment();
(refused.spec as Record<string, unknown>).triggers = [];

const rows: [string, string][] = [
  ['document', path ?? 'test/schema/fixtures/apps-v1.ts (cut down)'],
  ['document bytes', String(text.length)],
  ['document bytes without descriptions', String(withoutDescriptions(text))],
  ['compact table bytes', String(compact)],
  ['document / compact', `${(text.length / compact).toFixed(1)}×`],
  ['heap: parsed document', kilobytes(retained(() => JSON.parse(text)))],
  ['heap: compact table', kilobytes(retained(() => compactTypes(JSON.parse(text))))],
  ['named types / kinds', `${Object.keys(table.types).length} / ${Object.keys(table.kinds).length}`],
  ['compactTypes, ms', (microseconds(5, () => compactTypes(document)) / 1000).toFixed(2)],
  ['typeObject (Deployment, clean), µs', microseconds(2000, () => typeObject(table, object)).toFixed(1)],
  [
    'typeObject with decode, µs',
    microseconds(2000, () => typeObject(table, object, { decode: true })).toFixed(1),
  ],
  [
    'pruneUndeclared (one field removed), µs',
    microseconds(2000, () => pruneUndeclared(table, refused)).toFixed(1),
  ],
];
for (const [name, value] of rows) console.log(`${name.padEnd(42)} ${value}`);
