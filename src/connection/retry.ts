// The one failure sent again at the request layer: a 429 with Retry-After (the server did nothing).

/** client-go's ten attempts, with room for APF's doubling run up to 32 s; minutes are not waited for. */
const RETRY_ON_429 = { attempts: 10, waitMs: 60_000, totalMs: 180_000 } as const;

/** The 429s one request has met so far: how many, and the wait the last one asked for. */
export interface Throttling {
  tooMany: number;
  retryAfterMs: number | undefined;
}

const times = (n: number): string => `${n} time${n === 1 ? '' : 's'}`;
const lastAsked = (t: Throttling): string =>
  t.retryAfterMs === undefined
    ? 'the last without Retry-After'
    : `the last asking to retry after ${Math.round(t.retryAfterMs)} ms`;

/** Why a request's own 429s ended it: the next wait would have passed its bound. */
export function throttledHint(t: Throttling, boundMs: number): string {
  return `throttled: answered 429 ${times(t.tooMany)}, ${lastAsked(t)}, which would end past this request's bound of ${boundMs} ms (requestTimeout connect + read); not sent again`;
}

/** Why a caller's wait for a shared request ended: that request was being throttled. */
export function throttledWaitHint(t: Throttling, readMs: number): string {
  return `throttled: the shared request this waited for was answered 429 ${times(t.tooMany)}, ${lastAsked(t)}, and had no answer within this caller's read limit of ${readMs} ms`;
}

/** What became of a 429, for the error that reports it. */
export function overloadHint(retries: number, waited: number, delay: number | undefined): string {
  if (retries > 0) {
    return `retried ${times(retries)} over ${Math.round(waited)} ms as the server's Retry-After asked; the server is still overloaded`;
  }
  if (delay === undefined) return 'the server sent no Retry-After, so it was not retried';
  return `the server asked to wait ${Math.round(delay)} ms, more than the ${RETRY_ON_429.waitMs} ms this library waits at once; not retried`;
}

/** Seconds or an HTTP date, as Retry-After allows; undefined when absent or unreadable. */
export function retryDelay(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Whether a 429 answer is waited out and sent again, given what was retried so far. */
export function shouldRetry(delay: number | undefined, retries: number, waited: number): delay is number {
  return (
    delay !== undefined &&
    retries < RETRY_ON_429.attempts &&
    delay <= RETRY_ON_429.waitMs &&
    waited + delay <= RETRY_ON_429.totalMs
  );
}
