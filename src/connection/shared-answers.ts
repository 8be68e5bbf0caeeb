// Answers a Connection keeps per key (discovery, the OpenAPI v3 root): one shared request per key
// that no caller's signal cancels, fetched again after a miss at a bounded rate.
import { RequestError } from '../errors.ts';
import { stoppedBy } from './failures.ts';
import type { RequestStep } from '../errors.ts';
import { type Throttling, throttledWaitHint } from './retry.ts';
import { waitFor } from '../util/wait.ts';
import type { WarningRoute } from './warnings.ts';

/** A cached answer is fetched again on a miss only when it is at least this old. */
export const MIN_REDISCOVERY_MS = 500;

interface Entry<T> {
  promise: Promise<T>;
  fetchedAt: number;
  settled: boolean;
  expired?: boolean;
  throttling: Throttling;
}

export interface CallerWait {
  signal: AbortSignal | undefined;
  readMs: number;
}

export type Fetch<T> = (key: string, route: WarningRoute | undefined, throttling: Throttling) => Promise<T>;

export class SharedAnswers<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #step: RequestStep;
  readonly #fetch: Fetch<T>;
  readonly #keep: boolean;
  readonly #target: (key: string) => string;

  /**
   * `fetch` runs without any caller's signal; its warnings go to the operation that started it.
   * With `keep: false` only requests in flight are shared. `step`, `target`: a waiter's error.
   */
  constructor(
    step: RequestStep,
    fetch: Fetch<T>,
    { keep = true, target = (key) => key }: { keep?: boolean; target?: (key: string) => string } = {},
  ) {
    this.#step = step;
    this.#fetch = fetch;
    this.#keep = keep;
    this.#target = target;
  }

  get(key: string, wait: CallerWait, route?: WarningRoute): Promise<T> {
    const entry = this.#entries.get(key) ?? this.#start(key, route);
    return this.#wait(entry, key, wait);
  }

  /** After a miss: fetches again unless in flight or younger than MIN_REDISCOVERY_MS. */
  refresh(key: string, wait: CallerWait, route?: WarningRoute): Promise<T> {
    const entry = this.#entries.get(key);
    const fresh =
      entry &&
      (!entry.settled ||
        (entry.expired !== true && performance.now() - entry.fetchedAt < MIN_REDISCOVERY_MS));
    return this.#wait(fresh ? entry : this.#start(key, route, entry), key, wait);
  }

  /** Whether the settled answer is `maxAgeMs` old or expired (one in flight is fresh). */
  due(key: string, maxAgeMs: number): boolean {
    const entry = this.#entries.get(key);
    if (entry?.settled !== true) return false;
    return entry.expired === true || performance.now() - entry.fetchedAt >= maxAgeMs;
  }

  /** The answer may be out of date: the next refresh() fetches again; until then it stays. */
  expire(key: string): void {
    const entry = this.#entries.get(key);
    if (entry) entry.expired = true;
  }

  /** One caller's wait, bounded by its signal and read limit, failing as its own request would. */
  #wait(entry: Entry<T>, key: string, { signal, readMs }: CallerWait): Promise<T> {
    if (entry.settled) return entry.promise;
    const deadline = AbortSignal.timeout(readMs);
    const either = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const target = this.#target(key);
    return waitFor(entry.promise, either, () => {
      if (signal?.aborted) return stoppedBy({ step: this.#step, target }, signal);
      const cause: unknown = deadline.reason;
      // Throttled, not slow: a scheduler reading a timeout would raise its limit, not back off.
      const throttled = { code: 'OTC_THROTTLED', outcome: 'refused', cause } as const;
      const hint = entry.throttling.tooMany > 0 ? throttledWaitHint(entry.throttling, readMs) : undefined;
      if (hint !== undefined) return new RequestError(this.#step, target, hint, throttled);
      const timedOut = { code: 'OTC_TIMEOUT', outcome: 'unknown', kind: 'timeout', cause } as const;
      return new RequestError(this.#step, target, `read timed out after ${readMs} ms`, timedOut);
    });
  }

  remember(key: string, value: T): void {
    this.#entries.set(key, {
      promise: Promise.resolve(value),
      fetchedAt: performance.now(),
      settled: true,
      throttling: { tooMany: 0, retryAfterMs: undefined },
    });
  }

  /** A failed fetch again puts `previous` back: a good answer is not lost to a transient failure. */
  #start(key: string, route: WarningRoute | undefined, previous?: Entry<T>): Entry<T> {
    const throttling: Throttling = { tooMany: 0, retryAfterMs: undefined };
    const entry: Entry<T> = {
      promise: this.#fetch(key, route, throttling),
      fetchedAt: performance.now(),
      settled: false,
      throttling,
    };
    this.#entries.set(key, entry);
    entry.promise.then(
      () => {
        entry.settled = true;
        entry.fetchedAt = performance.now();
        if (!this.#keep && this.#entries.get(key) === entry) this.#entries.delete(key);
      },
      () => {
        if (this.#entries.get(key) !== entry) return;
        if (previous?.settled === true) this.#entries.set(key, previous);
        else this.#entries.delete(key);
      },
    );
    return entry;
  }
}
