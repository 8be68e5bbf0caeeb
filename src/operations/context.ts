// What every operation shares: its Connection, limits, signal, warnings and redaction, one
// request, an object's path and UID, and a failure as a RequestError.
import type { Operation, WarningRoute } from '../connection/warnings.ts';
import { ClusterConnection } from '../connection/connection.ts';
import { openConnection } from '../connection/connect.ts';
import { type ApiRequest, type ApiResponse, type Timeouts, toTimeouts } from '../connection/requests.ts';
import { RequestError, ValidationError } from '../errors.ts';
import { type Redactor } from '../util/redact.ts';
import type { RequestStep } from '../errors.ts';
import type { CommonOptions, ResourceRef, ServerWarning, WarningCode } from '../types/index.ts';
import { isRecord } from '../util/json.ts';
import { describeRef } from '../checks/refs.ts';

/** What the requests of one operation share: its Connection, limits, signal and redaction. */
export interface OperationContext {
  operation: Operation;
  connection: ClusterConnection;
  timeout: Timeouts;
  signal: AbortSignal | undefined;
  redact: Redactor;
  warnings: WarningRoute;
}

export function contextFor(
  operation: Operation,
  connection: ClusterConnection,
  options: Pick<CommonOptions, 'requestTimeout' | 'signal' | 'onWarning'>,
): OperationContext {
  return {
    operation,
    connection,
    timeout: toTimeouts(options.requestTimeout, connection.timeouts),
    signal: options.signal,
    redact: (text) => text,
    // One report of each distinct warning per call (connection/warnings.ts).
    warnings: { operation, handler: options.onWarning, reported: new Set() },
  };
}

/** One request of the operation, with its limits, signal and warning route. */
export function send(
  op: OperationContext,
  request: Omit<ApiRequest, 'timeout' | 'signal' | 'warnings'>,
): Promise<ApiResponse> {
  return op.connection.request({ ...request, timeout: op.timeout, signal: op.signal, warnings: op.warnings });
}

/** How a warning names the object its request was about. */
export function warningTarget(ref: ResourceRef): NonNullable<ServerWarning['target']> {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace };
}

/**
 * Tells the operation's caller one warning, about `ref` when given, its text redacted.
 */
export function tell(op: OperationContext, code: WarningCode, text: string, ref?: ResourceRef): void {
  const target = ref === undefined ? {} : { target: warningTarget(ref) };
  op.connection.notify({ text: op.redact(text), code, operation: op.operation, ...target }, op.warnings);
}

export const segment = (value: string): string => encodeURIComponent(value);

export function objectPath(apiVersion: string, resource: string, namespace: string, name?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const collection = `${base}/namespaces/${segment(namespace)}/${segment(resource)}`;
  return name === undefined ? collection : `${collection}/${segment(name)}`;
}

export function uidOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  if (typeof metadata.uid === 'string') return metadata.uid;
  const details = isRecord(body.details) ? body.details : {};
  return typeof details.uid === 'string' ? details.uid : undefined;
}

export function withUid(ref: ResourceRef, uid: string | undefined): ResourceRef {
  const { uid: _old, ...rest } = ref;
  return uid === undefined ? rest : { ...rest, uid };
}

/** A failure as a RequestError; anything else is a defect, kept as `cause`, its message not repeated. */
export function asRequestError(error: unknown, step: RequestStep, ref: ResourceRef): RequestError {
  if (error instanceof RequestError) return error;
  const detail = 'failed unexpectedly (a defect of the library: please report it)';
  return new RequestError(step, describeRef(ref), detail, {
    cause: error,
    code: 'OTC_UNEXPECTED',
    outcome: 'unknown',
    resource: warningTarget(ref),
  });
}

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
    // The code a request in flight gets when close() ends it: a scheduler checks one code.
    if (options.api.closed)
      throw new ValidationError(operation, ['api is a closed Connection'], 'OTC_CONNECTION_CLOSED');
    return work(options.api);
  }
  // The operation's signal covers its own connection too: loading, the check request, the pool.
  const { requestTimeout, onWarning, signal } = options;
  const connection = await openConnection({ requestTimeout, onWarning, signal });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

export function assertValid(operation: string, issues: string[]): void {
  if (issues.length > 0) throw new ValidationError(operation, issues);
}
