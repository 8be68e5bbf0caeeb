// How a call becomes work: its own Connection or the caller's, template mode (validate, render,
// resolve and check every target) or reference mode (validate and resolve the refs).
import { openConnection } from './connection/connect.ts';
import { ClusterConnection } from './connection/connection.ts';
import { ValidationError } from './errors.ts';
import { isRecord } from './util/json.ts';
import { contextFor, type OperationContext, resolveReferences, resolveTargets } from './operations.ts';
import { render, renderForDelete } from './render.ts';
import { isTemplateObject, type TemplateSource } from './checks/template-source.ts';
import type {
  CommonOptions,
  ReferenceOptions,
  TemplateObject,
  TemplateOptions,
  TemplateParameters,
} from './types.ts';
import { checkReferenceArguments, checkTemplateArguments } from './checks/arguments.ts';
import { countOf, referenceCall, templateCall, traceOperation } from './connection/tracing.ts';
import type { Target } from './validate.ts';

/** Runs `work` on the caller's connection (left open) or on one of its own (always closed). */
export async function withConnection<T>(
  operation: string,
  options: CommonOptions,
  work: (connection: ClusterConnection) => Promise<T>,
): Promise<T> {
  if (options.api !== undefined) {
    if (!(options.api instanceof ClusterConnection)) {
      throw new ValidationError(operation, ['api must be a Connection returned by connect()']);
    }
    if (options.api.closed) throw new ValidationError(operation, ['api is a closed Connection']);
    return work(options.api);
  }
  // The operation's signal covers its own connection too: loading, the check request, the pool.
  const connection = await openConnection({
    ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }),
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

export function assertValid(operation: string, issues: string[]): void {
  if (issues.length > 0) throw new ValidationError(operation, issues);
}

/**
 * Template mode: validate the arguments, render, resolve and check every target, then `act`.
 * `absent` answers for a target namespace that does not exist, from the Template's object count.
 */
export async function onTemplateTargets<O extends TemplateOptions, T>(
  operation: 'create' | 'get' | 'delete',
  source: TemplateSource,
  parameters: TemplateParameters | undefined,
  options: O | undefined,
  act: (op: OperationContext, targets: Target[], options: O) => Promise<T>,
  absent?: (count: number) => T,
): Promise<T> {
  return traceOperation(
    () => templateCall(operation, source, options),
    async () => {
      const issues = checkTemplateArguments(operation, source, parameters, options);
      if (issues.length > 0 || options === undefined) throw new ValidationError(operation, issues);
      return withConnection(operation, options, async (connection) => {
        const op = contextFor(operation, connection, options);
        const rendered =
          operation === 'delete'
            ? await renderForDelete(op, source, parameters, options)
            : await render(op, source, parameters, options);
        // A delete into a namespace that no longer exists: none of its objects exist either.
        if (rendered === undefined) return act(op, [], options);
        if ('absent' in rendered) {
          if (absent === undefined) throw rendered.absent;
          return absent(rendered.count);
        }
        op.redact = rendered.redact;
        return act(op, await resolveTargets(op, rendered.objects, options.namespace), options);
      });
    },
    countOf,
  );
}

/** Reference mode: validate the refs, resolve their kinds, then `act`; an empty list sends nothing. */
export async function onReferenceTargets<O extends ReferenceOptions, T>(
  operation: 'get' | 'delete',
  options: O,
  act: (op: OperationContext, targets: Target[], options: O) => Promise<T[]>,
): Promise<T[]> {
  return traceOperation(
    () => referenceCall(operation, options),
    async () => {
      assertValid(operation, checkReferenceArguments(operation, options));
      if (options.resources.length === 0) return [];
      return withConnection(operation, options, async (connection) => {
        const op = contextFor(operation, connection, options);
        return act(op, await resolveReferences(op, options.resources), options);
      });
    },
    countOf,
  );
}

/** Reference mode is told apart by `resources`: a Template object has none. */
export function isReferenceCall<R extends ReferenceOptions>(first: string | TemplateObject | R): first is R {
  return isRecord(first) && ('resources' in first || !isTemplateObject(first));
}
