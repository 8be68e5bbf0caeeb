// The heap a Connection retains for the schema documents of the published Templates in the
// corpus folder CI keeps beside the clone: every Template created with `fieldValidation: 'Warn'`
// on one Connection, in a fresh client process with --expose-gc, heap after gc minus before. Then the same
// again in that process on a second server (its documents are new to the process-wide cache,
// which is keyed by server), with the library's code already run once: that second figure is closer
// to the documents alone, the first includes the code the first creates compile.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAllYaml } from '@kubernetes/client-node';
import { type JsonObject, startSimulator } from '../simulator/index.ts';
import { testValue } from '../scripts/test-values.ts';
import { countResponseBytes } from './response-bytes.ts';
import type { CorpusEntry } from './typing-client.ts';
import { isOpenApi } from './typing.ts';
import { inFreshChild } from './typing-steps.ts';

/** Where .ci/run looks for the corpus: beside the clone. */
const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));
export const DEFAULT_CORPUS = join(REPOSITORY, '..', 'shared', 'corpus');
/** The values .ci/run's check-templates step gives: a parameter some corpus Templates require. */
const GIVEN: Record<string, string> = { APPLICATION_USER: 'tester' };
/** The target, 4 MB, in bytes (10^6: the stricter reading). */
export const HEAP_TARGET_BYTES = 4_000_000;

export type CorpusHeap =
  | { skipped: string }
  | {
      corpus: string;
      templates: number;
      /** Templates whose Warn create failed, with the library's message. */
      failed: string[];
      /** Warnings of the first pass: fields removed, and any other. */
      removed: number;
      warnings: number;
      /** Median over runs: cold process, then the second server. */
      retainedBytes: number;
      warmRetainedBytes: number;
      runs: number;
      documents: number;
      documentBytes: number;
      rootBytes: number;
    };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every Template in the folder, stored as check-templates stores it, with its parameter values. */
async function loadCorpus(dir: string): Promise<{ stored: JsonObject[]; entries: CorpusEntry[] }> {
  const files = (await readdir(dir)).filter((f) => /\.(json|ya?ml)$/i.test(f)).sort();
  const stored: JsonObject[] = [];
  const entries: CorpusEntry[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    const documents = (
      extname(file).toLowerCase() === '.json' ? [JSON.parse(text)] : loadAllYaml(text)
    ) as unknown[];
    for (const template of documents.filter((t): t is JsonObject => isObject(t) && t.kind === 'Template')) {
      const metadata = isObject(template.metadata) ? template.metadata : {};
      if (typeof metadata.name !== 'string') continue;
      stored.push({
        ...template,
        apiVersion: 'template.openshift.io/v1',
        metadata: {
          name: metadata.name,
          namespace: 'templates',
          ...(isObject(metadata.labels) ? { labels: metadata.labels } : {}),
        },
      });
      const parameters: Record<string, string> = {};
      for (const p of (Array.isArray(template.parameters) ? template.parameters : []).filter(isObject)) {
        const name = typeof p.name === 'string' ? p.name : '';
        if (Object.hasOwn(GIVEN, name)) parameters[name] = GIVEN[name] ?? '';
        else if (
          typeof p.generate === 'string' &&
          p.generate !== '' &&
          !(typeof p.value === 'string' && p.value !== '')
        )
          parameters[name] = testValue(typeof p.from === 'string' ? p.from : '');
      }
      entries.push({ name: metadata.name, parameters });
    }
  }
  return { stored, entries };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

export async function corpusHeap(
  plan: { corpus: string; runs: number; dir: string },
  progress: (line: string) => void,
): Promise<CorpusHeap> {
  if (!existsSync(plan.corpus)) return { skipped: `no corpus at ${plan.corpus}` };
  const { stored, entries } = await loadCorpus(plan.corpus);
  if (entries.length === 0) return { skipped: `no Template in ${plan.corpus}` };
  const counter = countResponseBytes(isOpenApi);
  try {
    const cold: number[] = [];
    const warm: number[] = [];
    let failed: string[] = [];
    let removed = 0;
    let warnings = 0;
    let bodies: { url: string; bytes: number }[] = [];
    for (let run = 0; run < plan.runs; run++) {
      // Fresh servers each run, so every run creates the objects anew.
      const sims = [
        await startSimulator({ seedExamples: false, namespaces: ['templates', 'check'] }),
        await startSimulator({ seedExamples: false, namespaces: ['templates', 'check'] }),
      ];
      try {
        const kubeconfigs = sims.map((_, i) => join(plan.dir, `corpus-${i}.json`));
        for (const [i, sim] of sims.entries()) {
          for (const template of stored) sim.seed(template);
          await sim.writeKubeconfig(kubeconfigs[i] ?? '');
        }
        await inFreshChild(async (child) => {
          counter.clear();
          const first = await child.run({
            step: 'corpus-heap',
            kubeconfig: kubeconfigs[0] ?? '',
            templates: entries,
          });
          bodies = counter.bodies.map((b) => ({ url: b.url, bytes: b.bytes }));
          const second = await child.run({
            step: 'corpus-heap',
            kubeconfig: kubeconfigs[1] ?? '',
            templates: entries,
          });
          cold.push(first.retainedBytes ?? 0);
          warm.push(second.retainedBytes ?? 0);
          failed = first.errors;
          removed = first.removed;
          warnings = first.warnings;
        });
      } finally {
        for (const sim of sims) await sim.close();
      }
    }
    const documents = bodies.filter((b) => b.url.startsWith('/openapi/v3/'));
    const result = {
      corpus: relative(REPOSITORY, plan.corpus),
      templates: entries.length,
      failed,
      removed,
      warnings,
      retainedBytes: median(cold),
      warmRetainedBytes: median(warm),
      runs: plan.runs,
      documents: documents.length,
      documentBytes: documents.reduce((s, b) => s + b.bytes, 0),
      rootBytes: bodies.filter((b) => !b.url.startsWith('/openapi/v3/')).reduce((s, b) => s + b.bytes, 0),
    };
    progress(
      `typing corpus: ${result.templates} Templates (${failed.length} failed), ${result.documents} documents, ${result.documentBytes} bytes; heap retained ${(result.retainedBytes / 1e6).toFixed(2)} MB cold, ${(result.warmRetainedBytes / 1e6).toFixed(2)} MB warm`,
    );
    return result;
  } finally {
    counter.stop();
  }
}
