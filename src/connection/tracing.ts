// Node.js TracingChannels for APMs and OpenTelemetry: one trace per public operation and one per
// HTTP request attempt, at no cost when nobody subscribes (the contexts are not even built).
// The contexts carry names, namespaces, methods, paths and outcomes — never a parameter value, a
// token, Secret data or kubeconfig content, and never a result.
import { isTemplateObject, sourceName } from '../checks/template-source.ts';
import { tracingChannel } from 'node:diagnostics_channel';
import { isRecord } from '../util/json.ts';
import type { Operation } from './warnings.ts';

/** What `openshift-template-client:operation` carries through start, end, asyncStart/asyncEnd and error. */
interface OperationTrace {
  operation: Operation;
  /** Template mode (a Template is rendered) or reference mode (saved refs); absent for `connect`. */
  mode?: 'template' | 'reference';
  namespace?: string;
  templateName?: string;
  /** Where the Template is stored (template mode): `templateNamespace`, else `namespace`. */
  templateNamespace?: string;
  dryRun?: boolean;
  /** On success: how many objects the operation rendered, applied, read or deleted. */
  objects?: number;
  /** On failure: the error the caller gets. */
  error?: unknown;
}

/** What `openshift-template-client:request` carries for each attempt of each HTTP request. */
export interface RequestTrace {
  method: string;
  /** The path without its query. */
  path: string;
  protocol: 'h2' | 'http/1.1' | undefined;
  /** 1 for the first attempt; a 429 retry or a refused HTTP/2 stream sent again counts up. */
  attempt: number;
  /** The public operation the request belongs to. */
  operation: Operation;
  /** The request's label in errors and debug lines (`Get`, `Process`, `Apply`, ...) and its target. */
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

/**
 * Runs `work` as TracingChannel's `tracePromise` does — start (with bound stores), end, then
 * asyncStart/asyncEnd on settlement, error on rejection, all with the same context object — but
 * records only what `settled` copies from the result, never the result itself.
 */
function traced<C extends { error?: unknown }, T>(
  channels: Channels<C>,
  context: C,
  work: () => Promise<T>,
  settled: (context: C, result: T) => void,
): Promise<T> {
  return channels.start.runStores(context, () => {
    try {
      return work().then(
        (result) => {
          settled(context, result);
          channels.asyncStart.publish(context);
          channels.asyncEnd.publish(context);
          return result;
        },
        (error: unknown) => {
          context.error = error;
          channels.error.publish(context);
          channels.asyncStart.publish(context);
          channels.asyncEnd.publish(context);
          throw error;
        },
      );
    } finally {
      channels.end.publish(context);
    }
  });
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

/** Whether request attempts need tracing at all: checked once per request. */
export function tracingRequests(): boolean {
  return requests.hasSubscribers;
}

/** Traces one attempt of one request. */
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

/** The trace context of a template-mode call, read defensively: arguments are not checked yet. */
export function templateCall(operation: Operation, templateName: unknown, options: unknown): OperationTrace {
  const o = isRecord(options) ? options : {};
  const namespace = text(o.namespace);
  // A Template object is stored nowhere: it has a name, but no namespace.
  const templateNamespace = isTemplateObject(templateName)
    ? undefined
    : (text(o.templateNamespace) ?? namespace);
  const name = sourceName(templateName);
  return {
    operation,
    mode: 'template',
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { templateName: name }),
    ...(templateNamespace === undefined ? {} : { templateNamespace }),
    dryRun: o.dryRun === true,
  };
}

/** The trace context of a reference-mode call. */
export function referenceCall(operation: Operation, options: unknown): OperationTrace {
  const o = isRecord(options) ? options : {};
  const namespace = text(o.namespace);
  return {
    operation,
    mode: 'reference',
    ...(namespace === undefined ? {} : { namespace }),
    dryRun: o.dryRun === true,
  };
}

/** How many objects an operation's result holds. */
export function countOf(result: unknown): number | undefined {
  return Array.isArray(result) ? result.length : undefined;
}
