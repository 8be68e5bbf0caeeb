// Fault injection: what a rule matches and what it does to the matched request.

/** What happens to a matched request. "Before" actions stop the request from reaching storage. */
export type FaultAction =
  /**
   * Answer with a Kubernetes Status of this code instead of handling the request. With `execute`,
   * the request is handled (and persisted) first: an error after a committed write, as
   * kube-apiserver answers etcd's "etcdserver: request timed out" (a 500 with no reason).
   */
  | {
      type: 'status';
      code: number;
      reason?: string;
      message?: string;
      details?: Record<string, unknown>;
      execute?: boolean;
    }
  /** Answer with exactly this status, content type and body. With `execute`, handled first. */
  | { type: 'raw'; code: number; contentType?: string; body: string; execute?: boolean }
  /** Wait before handling: a stall before the response headers. */
  | { type: 'delay'; ms: number }
  /** Never answer. With `execute`, the request is handled (and persisted) first. */
  | { type: 'hang'; execute?: boolean }
  /** Destroy the connection without an answer. With `execute`, the request is handled first. */
  | { type: 'reset'; execute?: boolean }
  /** Handle the request, send the headers and half the body, then wait `ms` before the rest. */
  | { type: 'stall-body'; ms: number }
  /** Handle the request, send the headers and half the body, then destroy the connection. */
  | { type: 'reset-mid-body' }
  /** Handle the request, announce the whole body, send half and close the connection cleanly. */
  | { type: 'truncate' }
  /** Handle and answer the request, then stop listening and drop every connection: later requests are refused. */
  | { type: 'down-after' }
  /** Handle the request and send its body `bytes` at a time, `intervalMs` apart. */
  | { type: 'trickle'; bytes: number; intervalMs: number }
  /**
   * An answer that never ends: the headers (no length), then `bytes` of JSON whitespace every
   * `intervalMs` (0: as fast as the client reads) until the client goes away. With `execute`, the
   * request is handled (and persisted) first, and its status is the one sent.
   */
  | { type: 'endless-body'; bytes: number; intervalMs: number; execute?: boolean }
  /**
   * Refuse with 429 TooManyRequests before handling, as priority-and-fairness does; with
   * `retryAfterSeconds` the answer carries a Retry-After header.
   */
  | { type: 'too-many-requests'; retryAfterSeconds?: number }
  /**
   * End every open connection (GOAWAY first over HTTP/2) without answering this request; the
   * server keeps listening. With `execute`, the request is handled (and persisted) first.
   */
  | { type: 'drop-connections'; execute?: boolean }
  /**
   * Refuse the request unprocessed, as a server that cannot take more streams does: RST_STREAM
   * REFUSED_STREAM over HTTP/2 (RFC 9113 section 8.7, safe to send again); over HTTP/1.1, which has
   * no such signal, the connection is closed without an answer.
   */
  | { type: 'refuse-stream' }
  /**
   * End the connection for an error, as Go's HTTP/2 server does (ENHANCE_YOUR_CALM 0xb for a
   * misbehaving client, INTERNAL_ERROR 0x2): a GOAWAY with `errorCode` whose last-stream-id is the
   * stream before this request's, so this request (and any later) was not processed (RFC 9113
   * section 6.8). With `execute` the request is handled first and the id is its own stream's. No
   * answer either way. HTTP/1.1 has no such frame: the connection is closed without an answer.
   */
  | { type: 'goaway'; errorCode: number; execute?: boolean }
  /**
   * Handle the request as usual and add these `Warning` header field values to its answer, exactly
   * as given (each one a header field; a value may hold several comma-separated warnings).
   */
  | { type: 'warn'; headers: string[] }
  /**
   * Run `change` first (a test changing what the server holds: another manager's write, a revoked
   * rule through `setRules`, which this very request then meets), then handle the request as usual:
   * the cluster changed just before this request. A change that returns a promise holds the
   * request until it settles, so another client's own request can be the change.
   */
  | { type: 'change-first'; change: () => unknown };

export interface FaultRule {
  method?: string;
  /** Exact path, or a pattern tested against the path (no query). */
  path?: string | RegExp;
  /** Fire on the nth matching request only (1-based). Without it, every matching request fires. */
  nth?: number;
  /** How many times the rule fires at most; default 1 with `nth`, unlimited without. */
  times?: number;
  action: FaultAction;
}

export class FaultTable {
  readonly #rules: { rule: FaultRule; seen: number; fired: number }[] = [];

  add(rule: FaultRule): void {
    this.#rules.push({ rule, seen: 0, fired: 0 });
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** The action of the first rule that fires for this request, counting it against every matching rule. */
  match(method: string, path: string): FaultAction | undefined {
    let chosen: FaultAction | undefined;
    for (const entry of this.#rules) {
      const { rule } = entry;
      if (rule.method && rule.method.toUpperCase() !== method) continue;
      if (typeof rule.path === 'string' && rule.path !== path) continue;
      if (rule.path instanceof RegExp && !rule.path.test(path)) continue;
      entry.seen += 1;
      const limit = rule.times ?? (rule.nth === undefined ? Infinity : 1);
      const due = rule.nth === undefined ? true : entry.seen >= rule.nth;
      if (chosen === undefined && due && entry.fired < limit) {
        entry.fired += 1;
        chosen = rule.action;
      }
    }
    return chosen;
  }
}
