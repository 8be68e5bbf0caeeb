// The typing benchmark's client process: one step at a time on request from bench/typing.ts, so
// the parent can read the simulator's log between steps. A fresh process starts with the library's
// process-wide cache of schema documents empty, which is why every measurement of a first create
// runs in one. Reports wall time and counts of warnings (never their text: a warning names no
// value, but the parent has no need for more than the count).
import { getHeapStatistics } from 'node:v8';
import * as ocp from '../src/index.ts';

/** The text of the warning a Strict create gives for a group-version it applied untyped. */
export const UNTYPED_WARNING = 'applied without being typed first';
/** What every warning of a field removed under Warn contains. */
export const REMOVED_WARNING = 'unknown field "';

export interface CorpusEntry {
  name: string;
  parameters: Record<string, string>;
}

export type TypingStep =
  | { step: 'connect'; kubeconfig: string }
  /** `jobs` creates of the same Template at once on the current Connection (default 1). */
  | { step: 'create'; template: string; jobs?: number; fieldValidation?: ocp.FieldValidation }
  /** A template-mode delete of what `create` made, so the next run creates anew. */
  | { step: 'delete'; template: string }
  | { step: 'close' }
  /**
   * Heap after gc minus before, around a new Connection creating every Template with
   * `fieldValidation: 'Warn'`. The Connection stays open (so do those of earlier corpus-heap steps):
   * what it retains is what is measured.
   */
  | { step: 'corpus-heap'; kubeconfig: string; templates: CorpusEntry[] };

export interface StepResult {
  wallMs: number;
  /** The client process's CPU time over the step (user + system). */
  cpuMs: number;
  /** Warnings saying a group-version was applied without being typed first. */
  untyped: number;
  /** Warnings of a field removed from the applied copy (Warn). */
  removed: number;
  /** Every other warning. */
  warnings: number;
  /** Per create that failed: its message (ValidationError and OperationError name no values). */
  errors: string[];
  /** corpus-heap: the heap retained, in bytes. */
  retainedBytes?: number;
}

const OPTIONS = { namespace: 'workers', templateNamespace: 'infra' } as const;
const CORPUS = { namespace: 'check', templateNamespace: 'templates' } as const;

let api: ocp.Connection | undefined;
const counts = { untyped: 0, removed: 0, warnings: 0 };
const onWarning = (warning: ocp.ServerWarning): void => {
  if (warning.text.includes(UNTYPED_WARNING)) counts.untyped += 1;
  else if (warning.text.includes(REMOVED_WARNING)) counts.removed += 1;
  else counts.warnings += 1;
};

function connection(): ocp.Connection {
  if (!api) throw new Error('not connected');
  return api;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function heapUsed(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return getHeapStatistics().used_heap_size;
}

const kept: ocp.Connection[] = [];

async function corpusHeap(kubeconfig: string, templates: CorpusEntry[], errors: string[]): Promise<number> {
  if (!globalThis.gc) throw new Error('corpus-heap needs --expose-gc');
  const current = await ocp.connect({ kubeconfig, onWarning });
  kept.push(current);
  const before = heapUsed();
  for (const { name, parameters } of templates) {
    try {
      await ocp.create(name, parameters, { ...CORPUS, api: current, fieldValidation: 'Warn' });
    } catch (error) {
      errors.push(`${name}: ${message(error)}`);
    }
  }
  return heapUsed() - before;
}

async function run(command: TypingStep): Promise<StepResult> {
  counts.untyped = 0;
  counts.removed = 0;
  counts.warnings = 0;
  const errors: string[] = [];
  let retainedBytes: number | undefined;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  switch (command.step) {
    case 'connect':
      await api?.close();
      api = await ocp.connect({ kubeconfig: command.kubeconfig, onWarning });
      break;
    case 'create': {
      const current = connection();
      const options = {
        ...OPTIONS,
        api: current,
        ...(command.fieldValidation ? { fieldValidation: command.fieldValidation } : {}),
      };
      const settled = await Promise.allSettled(
        Array.from({ length: command.jobs ?? 1 }, () => ocp.create(command.template, {}, options)),
      );
      for (const s of settled) if (s.status === 'rejected') errors.push(message(s.reason));
      break;
    }
    case 'delete':
      await ocp.delete(command.template, {}, { ...OPTIONS, api: connection() });
      break;
    case 'close':
      await api?.close();
      api = undefined;
      break;
    case 'corpus-heap':
      retainedBytes = await corpusHeap(command.kubeconfig, command.templates, errors);
      break;
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { wallMs, cpuMs, ...counts, errors, ...(retainedBytes === undefined ? {} : { retainedBytes }) };
}

process.on('message', (command: TypingStep) => {
  run(command).then(
    (result) => process.send?.({ ok: true, result }),
    (error: unknown) => process.send?.({ ok: false, error: message(error) }),
  );
});
process.send?.({ ready: true });
