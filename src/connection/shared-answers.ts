// Answers a Connection keeps per key (discovery per group-version, the OpenAPI v3 root): one shared
// request per key, which no single caller's signal can cancel, and a bounded fetch again after a
// miss, as client-go's deferred discovery mapper does.
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
  /** The answer may be out of date (the server said so): the next refresh() fetches at once. */
  expired?: boolean;
  /** The 429s the fetch has met: a caller that stops waiting meanwhile says it was throttled. */
  throttling: Throttling;
}

/** What bounds one caller's wait: its operation's signal and read limit. */
export interface CallerWait {
  signal: AbortSignal | undefined;
  readMs: number;
}

/** One shared request for `key`; it keeps `throttling` up to date with the 429s it meets. */
export type Fetch<T> = (key: string, route: WarningRoute | undefined, throttling: Throttling) => Promise<T>;

export class SharedAnswers<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #step: RequestStep;
  readonly #fetch: Fetch<T>;
  readonly #keep: boolean;
  readonly #target: (key: string) => string;

  /**
   * `fetch` runs without any caller's signal: its result is shared by every caller. Its warnings
   * go to the operation that started it. `step` names the step in a waiting caller's own error.
   * With `keep: false` only requests in flight are shared: an answer is not kept once it settles
   * (the caller keeps it elsewhere). `target` names a key in that error (default: the key).
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

  /** The cached answer, or one fetch shared by every concurrent first caller. */
  get(key: string, wait: CallerWait, route?: WarningRoute): Promise<T> {
    const entry = this.#entries.get(key) ?? this.#start(key, route);
    return this.#wait(entry, key, wait);
  }

  /**
   * After a miss: fetches again unless a fetch is in flight or the answer is younger than
   * MIN_REDISCOVERY_MS, so a burst of misses costs one request per key.
   */
  refresh(key: string, wait: CallerWait, route?: WarningRoute): Promise<T> {
    const entry = this.#entries.get(key);
    const fresh =
      entry &&
      (!entry.settled ||
        (entry.expired !== true && performance.now() - entry.fetchedAt < MIN_REDISCOVERY_MS));
    return this.#wait(fresh ? entry : this.#start(key, route, entry), key, wait);
  }

  /**
   * Whether the answer held is out of date: settled and at least `maxAgeMs` old, or expired. A
   * fetch in flight is not: it is the fresh answer.
   */
  due(key: string, maxAgeMs: number): boolean {
    const entry = this.#entries.get(key);
    if (entry?.settled !== true) return false;
    return entry.expired === true || performance.now() - entry.fetchedAt >= maxAgeMs;
  }

  /**
   * The answer held, or being fetched, may be out of date: the next refresh() fetches again at
   * once. It stays until then, for callers that prefer a stale answer to none.
   */
  expire(key: string): void {
    const entry = this.#entries.get(key);
    if (entry) entry.expired = true;
  }

  /**
   * One caller's wait for a shared request: bounded by its own signal and read limit, with the
   * error its own request would have had, while the request goes on for the others.
   */
  #wait(entry: Entry<T>, key: string, { signal, readMs }: CallerWait): Promise<T> {
    if (entry.settled) return entry.promise;
    // An unref'd timer: a caller's limit never keeps the process alive.
    const deadline = AbortSignal.timeout(readMs);
    const either = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const target = this.#target(key);
    return waitFor(entry.promise, either, () => {
      if (signal?.aborted) return stoppedBy(this.#step, target, signal);
      // Throttled, not slow: a scheduler reading a timeout would raise its limit, not back off.
      if (entry.throttling.tooMany > 0)
        return new RequestError(this.#step, target, throttledWaitHint(entry.throttling, readMs), {
          code: 'OTC_THROTTLED',
          outcome: 'refused',
          cause: deadline.reason,
        });
      return new RequestError(this.#step, target, `read timed out after ${readMs} ms`, {
        code: 'OTC_TIMEOUT',
        outcome: 'unknown',
        kind: 'timeout',
        cause: deadline.reason,
      });
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
        // A failed lookup is forgotten so that a later operation can try again.
        if (this.#entries.get(key) !== entry) return;
        if (previous?.settled === true) this.#entries.set(key, previous);
        else this.#entries.delete(key);
      },
    );
    return entry;
  }
}
