// The per-connection discovery cache: one shared request per group-version, which no single
// caller's signal can cancel, and a bounded re-discovery when a kind is missing (a CRD installed
// after connect(), or a transient 404), as client-go's deferred discovery mapper does.
import { RequestError, stoppedBy } from '../errors.ts';
import { isRecord } from '../util/json.ts';
import { waitFor } from '../util/wait.ts';
import type { WarningRoute } from './warnings.ts';

/** A discovered resource: the plural name for URLs and whether it lives in a namespace. */
export interface ResourceInfo {
  name: string;
  namespaced: boolean;
  kind: string;
}

export interface DiscoveredResource extends ResourceInfo {
  singularName?: string;
  verbs?: string[];
}

/** `undefined`: the server does not serve the group-version (404). */
export type Document = DiscoveredResource[] | undefined;

/** A cached answer is fetched again on a miss only when it is at least this old. */
export const MIN_REDISCOVERY_MS = 500;

interface Entry {
  promise: Promise<Document>;
  fetchedAt: number;
  settled: boolean;
}

/** What bounds one caller's wait: its operation's signal and read limit. */
export interface CallerWait {
  signal: AbortSignal | undefined;
  readMs: number;
}

export class DiscoveryCache {
  readonly #entries = new Map<string, Entry>();
  readonly #fetch: (apiVersion: string, route: WarningRoute | undefined) => Promise<Document>;

  /**
   * `fetch` runs without any caller's signal: its result is shared by every caller. Its warnings
   * go to the operation that started it.
   */
  constructor(fetch: (apiVersion: string, route: WarningRoute | undefined) => Promise<Document>) {
    this.#fetch = fetch;
  }

  /** The cached document, or one fetch shared by every concurrent first caller. */
  get(apiVersion: string, wait: CallerWait, route?: WarningRoute): Promise<Document> {
    const entry = this.#entries.get(apiVersion) ?? this.#start(apiVersion, route);
    return this.#wait(entry, apiVersion, wait);
  }

  /**
   * After a miss: fetches again unless a fetch is in flight or the answer is younger than
   * MIN_REDISCOVERY_MS, so a burst of misses costs one request per group-version.
   */
  refresh(apiVersion: string, wait: CallerWait, route?: WarningRoute): Promise<Document> {
    const entry = this.#entries.get(apiVersion);
    const fresh = entry && (!entry.settled || performance.now() - entry.fetchedAt < MIN_REDISCOVERY_MS);
    return this.#wait(fresh ? entry : this.#start(apiVersion, route), apiVersion, wait);
  }

  /**
   * One caller's wait for a shared request: bounded by its own signal and read limit, with the
   * error its own request would have had, while the request goes on for the others.
   */
  #wait(entry: Entry, apiVersion: string, { signal, readMs }: CallerWait): Promise<Document> {
    if (entry.settled) return entry.promise;
    // An unref'd timer: a caller's limit never keeps the process alive.
    const deadline = AbortSignal.timeout(readMs);
    const either = signal ? AbortSignal.any([signal, deadline]) : deadline;
    return waitFor(entry.promise, either, () =>
      signal?.aborted
        ? stoppedBy('Discover', apiVersion, signal)
        : new RequestError('Discover', apiVersion, `read timed out after ${readMs} ms`, {
            kind: 'timeout',
            cause: deadline.reason,
          }),
    );
  }

  remember(apiVersion: string, resources: DiscoveredResource[]): void {
    this.#entries.set(apiVersion, {
      promise: Promise.resolve(resources),
      fetchedAt: performance.now(),
      settled: true,
    });
  }

  #start(apiVersion: string, route: WarningRoute | undefined): Entry {
    const entry: Entry = {
      promise: this.#fetch(apiVersion, route),
      fetchedAt: performance.now(),
      settled: false,
    };
    this.#entries.set(apiVersion, entry);
    entry.promise.then(
      () => {
        entry.settled = true;
        entry.fetchedAt = performance.now();
      },
      () => {
        // A failed lookup is forgotten so that a later operation can try again.
        if (this.#entries.get(apiVersion) === entry) this.#entries.delete(apiVersion);
      },
    );
    return entry;
  }
}

/**
 * The resource for a kind in a discovery document. Subresources (`pods/status`) share their
 * parent's kind and are skipped; where two resources share a kind (template.openshift.io serves
 * kind Template as both `processedtemplates` and `templates`), the one whose singular name is the
 * kind wins, then the one that can be read.
 */
export function resourceForKind(
  resources: readonly DiscoveredResource[],
  kind: string,
): ResourceInfo | undefined {
  const candidates = resources.filter((r) => r.kind === kind && r.name !== '' && !r.name.includes('/'));
  const lower = kind.toLowerCase();
  const best =
    candidates.find((r) => r.singularName === lower) ??
    candidates.find((r) => r.verbs?.includes('get')) ??
    candidates[0];
  return best ? { name: best.name, namespaced: best.namespaced, kind: best.kind } : undefined;
}

export function parseDiscovery(body: unknown): DiscoveredResource[] {
  const resources = isRecord(body) && Array.isArray(body.resources) ? (body.resources as unknown[]) : [];
  return resources.filter(isRecord).map((r) => ({
    name: typeof r.name === 'string' ? r.name : '',
    namespaced: r.namespaced === true,
    kind: typeof r.kind === 'string' ? r.kind : '',
    ...(typeof r.singularName === 'string' ? { singularName: r.singularName } : {}),
    ...(Array.isArray(r.verbs) ? { verbs: r.verbs.filter((v): v is string => typeof v === 'string') } : {}),
  }));
}
