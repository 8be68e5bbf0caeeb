// One request to the API server: its shape, answer and limits; connection.ts sends it.
import { MAX_TIMEOUT_MS } from '../checks/options.ts';
import { RequestError } from '../errors.ts';
import type { RequestTimeout } from '../types/index.ts';
import type { FailedRequest } from './failures.ts';
import type { Throttling } from './retry.ts';
import type { WarningRoute } from './warnings.ts';

export const DEFAULT_TIMEOUT = { connect: 10_000, read: 60_000 } as const;
/** Sockets per Connection unless connect() says otherwise: sequential work uses one. */
export const DEFAULT_MAX_SOCKETS = 32;

export interface Timeouts {
  connect: number;
  read: number;
}

export function toTimeouts(timeout: RequestTimeout | undefined, fallback: Timeouts): Timeouts {
  if (timeout === undefined) return fallback;
  return typeof timeout === 'number'
    ? { connect: timeout, read: timeout }
    : { connect: timeout.connect, read: timeout.read };
}

export interface ApiRequest extends FailedRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  timeout?: Timeouts | undefined;
  signal?: AbortSignal | undefined;
  /** The operation the request belongs to and its warning handler; default: `connect`, the Connection's. */
  warnings?: WarningRoute | undefined;
  /** A 2xx answer with an empty body is `body: undefined` instead of a bad response. */
  emptyAnswerOk?: boolean;
  /** Sent as `If-None-Match`: a 304 to it is an answer (`body: undefined`), not a failure. */
  ifNoneMatch?: string | undefined;
  /** Kept up to date with the 429s the request meets, for callers waiting on it (shared answers). */
  throttling?: Throttling | undefined;
}

export interface ApiResponse {
  /** A 2xx, or 304 where the request had `ifNoneMatch`: what the caller holds is current. */
  code: number;
  body: unknown;
  /** The answer's `ETag` header, where it had one. */
  etag?: string | undefined;
}

/** A request's whole life, as the caller's signal and its own connect + read deadline bound it. */
export interface Bound {
  signal: AbortSignal;
  at: number;
  /** connect + read, capped where a Node.js timer would fire at once instead. */
  ms: number;
  end(): void;
}

/**
 * connect + read from the start bounds every attempt, 429 wait and the answer, as client-go's
 * `Timeout` does. Our own timer: AbortSignal.timeout()/any() hold on until they fire.
 */
export function boundOf(timeouts: Timeouts, caller: AbortSignal | undefined): Bound {
  const ms = Math.min(timeouts.connect + timeouts.read, MAX_TIMEOUT_MS);
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException(`no complete answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  timer.unref();
  const forward = (): void => {
    controller.abort(caller?.reason);
  };
  caller?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    at: performance.now() + ms,
    ms,
    end: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', forward);
    },
  };
}

/** The cluster's CA as a list, whatever form the kubeconfig gave it in. */
export function caList(ca: unknown): (string | Buffer)[] {
  const all = Array.isArray(ca) ? (ca as unknown[]) : [ca];
  return all.filter((c): c is string | Buffer => typeof c === 'string' || Buffer.isBuffer(c));
}

/** The answer, or `undefined` where the server answered 404 (it does not serve that path). */
export async function unlessNotFound<T>(answer: Promise<T>): Promise<T | undefined> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof RequestError && error.statusCode === 404) return undefined;
    throw error;
  }
}

export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The path with its query, form-encoded, without the query's undefined values. */
export function pathWithQuery(request: ApiRequest): string {
  const set = Object.entries(request.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
  return set.length === 0 ? request.path : `${request.path}?${new URLSearchParams(set).toString()}`;
}
