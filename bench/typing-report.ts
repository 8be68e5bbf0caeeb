// The typing section of docs/performance.md and its rows in the targets table.
import { HEAP_TARGET_BYTES, type CorpusHeap } from './typing-corpus.ts';
import type { CountCheck, FirstCreateRow } from './typing.ts';

export interface TypingReport {
  checks: CountCheck[];
  first: FirstCreateRow[];
  heap: CorpusHeap;
}

const f1 = (x: number): string => x.toFixed(1);
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;
const kib = (bytes: number): string => `${Math.round(bytes / 1024)} KiB`;

function heapVerdict(heap: CorpusHeap): string {
  if ('skipped' in heap) return `not measured: ${heap.skipped}`;
  const met = heap.retainedBytes <= HEAP_TARGET_BYTES;
  return `${mb(heap.retainedBytes)} for ${heap.templates} Templates, ${heap.documents} documents — ${met ? 'met' : '**not met**'}`;
}

export function typingTargets(typing: TypingReport): string[] {
  const failed = typing.checks.filter((c) => !c.ok);
  const counts =
    typing.checks.length === 0
      ? 'not measured'
      : failed.length === 0
        ? `met (${typing.checks.length} checks)`
        : `**not met**: ${failed.map((c) => `${c.label} (${c.detail})`).join('; ')}`;
  return [
    `| create() with typing: a Connection's first create reads the /openapi/v3 root once and one document per group-version used (concurrently over HTTP/2, one after another over HTTP/1.1), all before the first PATCH and on no new connection; a create on a Connection that holds them sends nothing beyond its own requests | ${counts} |`,
    `| heap a Connection retains for the schema documents of the whole corpus ≤ ${mb(HEAP_TARGET_BYTES)} | ${heapVerdict(typing.heap)} |`,
  ];
}

function firstTable(rows: FirstCreateRow[]): string {
  const lines = [
    '| ms per request | N | D | first create, typed ms | same, untyped (no /openapi/v3) ms | typing adds ms | schema requests span ms | client CPU ms typed / untyped | create on a second Connection ms | requests typed / untyped | root bytes | document bytes |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.latencyMs} | ${r.n} | ${r.d} | ${f1(r.typedMs)} | ${f1(r.untypedMs)} | ${f1(r.typedMs - r.untypedMs)} | ${f1(r.schemaSpanMs)} | ${f1(r.typedCpuMs)} / ${f1(r.untypedCpuMs)} | ${f1(r.secondConnectionMs)} | ${r.typedRequests} / ${r.untypedRequests} | ${r.rootBytes} | ${r.documentBytes} (${kib(r.documentBytes)}) |`,
    );
  }
  return lines.join('\n');
}

function heapText(heap: CorpusHeap): string {
  if ('skipped' in heap) return `The corpus heap was not measured: ${heap.skipped}.`;
  const failed =
    heap.failed.length === 0
      ? `every one was created`
      : `${heap.failed.length} failed: ${heap.failed.map((f) => f.split(':')[0]).join(', ')}`;
  const verdict = heap.retainedBytes <= HEAP_TARGET_BYTES ? 'met' : '**not met**';
  return `The ${heap.templates} published Templates of the corpus folder (\`--corpus\`), each created with
\`fieldValidation: 'Warn'\` on one Connection in a fresh client process (${failed};
${heap.removed} warnings of a removed field, ${heap.warnings} other warnings), fetched
${heap.documents} documents, ${heap.documentBytes} bytes (${kib(heap.documentBytes)}), and a root of
${heap.rootBytes} bytes. Heap after gc minus before, around the creates (median of ${heap.runs}
processes): **${mb(heap.retainedBytes)}** — target ≤ ${mb(HEAP_TARGET_BYTES)}, ${verdict}. That figure
includes what the first creates compile and the Connection's discovery; the same creates again in
that process, on a second Connection to another server (whose documents are new to the
process-wide cache, keyed by server), retain ${mb(heap.warmRetainedBytes)}, which is closer to
the documents alone.`;
}

export function typingSection(typing: TypingReport): string {
  const checks = typing.checks.map((c) => `| ${c.label} | ${c.ok ? 'yes' : '**no**'} | ${c.detail} |`);
  return `## Typing: every object against the server's schema before the first mutation

\`create()\` types every rendered object against the OpenAPI v3 document the server publishes for
its group-version (\`fieldValidation\` \`Strict\`, the default, everywhere in this benchmark). The
library keeps the documents, as compact tables, process-wide; each Connection reads the
\`/openapi/v3\` root once. The requests below are the simulator's log of one create of a
4-object Template over 3 group-versions (v1, kubevirt.io/v1, apps/v1), at 50 ms per request so
that requests sent together overlap in the log; each first create runs in a fresh client process.
"In flight" counts document GETs the simulator held between arrival and answer: all at once over
HTTP/2, one at a time over HTTP/1.1, where each request in parallel would open a socket and a TLS
handshake of its own.

| check | holds | seen |
| --- | --- | --- |
${checks.join('\n')}

The first create on a fresh Connection in a fresh process (documents not yet held), against the
default simulator and against one without \`/openapi/v3\` (\`openapiV3: false\`: its root is a 404,
and \`Strict\` applies untyped with one warning per group-version); then the same create on a
second Connection of that process (the documents held, the root read again). Median of 3
processes, interleaved. "Schema requests span" is the simulator's time from the root's arrival to
the last document's answer: the network part of what typing adds, which the difference of two
wall times (each with its own noise) only estimates; the rest is the client's CPU, compacting the
documents and typing. Bytes are response bodies as the simulator sent them (no compression).

${typing.first.length > 0 ? firstTable(typing.first) : 'Not measured (--smoke).'}

${heapText(typing.heap)}
`;
}
