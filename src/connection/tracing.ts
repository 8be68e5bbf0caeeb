// TracingChannels for APMs: one trace per public operation and per request attempt, free when
// nobody subscribes. Contexts carry names, paths and outcomes, never a value, secret or result.
import { isTemplateObject, sourceName } from '../checks/template-source.ts';
import { tracingChannel } from 'node:diagnostics_channel';
import { isRecord } from '../util/json.ts';
import type { Operation } from './warnings.ts';

/** What `openshift-template-client:operation` carries through start, end, asyncStart/asyncEnd and error. */
interface OperationTrace {
  operation: Operation;
  mode?: 'template' | 'reference';
  namespace?: string;
  templateName?: string;
  templateNamespace?: string;
  dryRun?: boolean;
  objects?: number;
  error?: unknown;
}

/** What `openshift-template-client:request` carries for each attempt of each HTTP request. */
export interface RequestTrace {
  method: string;
  path: string;
  protocol: 'h2' | 'http/1.1' | undefined;
  /** 1 for the first attempt; a 429 retry or a refused HTTP/2 stream sent again counts up. */
  attempt: number;
  operation: Operation;
  step: string;
  target: string;
  statusCode?: number;
  error?: unknown;
}

const OPERATION_CHANNEL = 'openshift-template-client:operation';
export const REQUEST_CHANNEL = 'openshift-template-client:request';

const operations = tracingChannel<unknown, OperationTrace>(OPERATION_CHANNEL);
const requests = tracingChannel<unknown, RequestTrace>(REQUEST_CHANNEL);

type Channels<C extends object> = ReturnType<typeof tracingChannel<unknown, C>>;

/** TracingChannel's `tracePromise`, its context's `result` left undefined: only what `settled` copies is recorded. */
async function traced<C extends object, T>(
  channels: Channels<C>,
  context: C,
  work: () => Promise<T>,
  settled: (context: C, result: T) => void,
): Promise<T> {
  let result!: T;
  await channels.tracePromise(async () => {
    result = await work();
    settled(context, result);
  }, context);
  return result;
}

/** Traces one public operation; `describe` runs only when someone subscribes. */
export function traceOperation<T>(
  describe: () => OperationTrace,
  work: () => Promise<T>,
  count: (result: T) => number | undefined,
): Promise<T> {
  if (!operations.hasSubscribers) return work();
  return traced(operations, describe(), work, (context, result) => {
    const objects = count(result);
    if (objects !== undefined) context.objects = objects;
  });
}

export function tracingRequests(): boolean {
  return requests.hasSubscribers;
}

export function traceAttempt<T extends { code: number }>(
  context: RequestTrace,
  work: () => Promise<T>,
): Promise<T> {
  return traced(requests, context, work, (ctx, answer) => {
    ctx.statusCode = answer.code;
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A call's trace context, read defensively: arguments are not checked yet. */
function callTrace(
  operation: Operation,
  mode: 'template' | 'reference',
  o: Record<string, unknown>,
): OperationTrace {
  const namespace = text(o.namespace);
  return { operation, mode, ...(namespace === undefined ? {} : { namespace }), dryRun: o.dryRun === true };
}

export function templateCall(operation: Operation, templateName: unknown, options: unknown): OperationTrace {
  const o = isRecord(options) ? options : {};
  const trace = callTrace(operation, 'template', o);
  // A Template object is stored nowhere: it has a name, but no namespace.
  const templateNamespace = isTemplateObject(templateName)
    ? undefined
    : (text(o.templateNamespace) ?? trace.namespace);
  const name = sourceName(templateName);
  return {
    ...trace,
    ...(name === undefined ? {} : { templateName: name }),
    ...(templateNamespace === undefined ? {} : { templateNamespace }),
  };
}

export function referenceCall(operation: Operation, options: unknown): OperationTrace {
  return callTrace(operation, 'reference', isRecord(options) ? options : {});
}

export function countOf(result: unknown): number | undefined {
  return Array.isArray(result) ? result.length : undefined;
}
