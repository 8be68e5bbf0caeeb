// Counts the body bytes the simulator sends, per request URL, at the simulator itself: the
// simulator runs in the benchmark's process and answers every request with one `end(text)`
// (simulator/http/answer.ts), so wrapping `end` on both response classes sees every body as sent,
// over HTTP/2 and HTTP/1.1. The simulator has no compression: these are the bytes on the wire
// (TLS and HTTP framing aside). Installed for one measurement, removed after.
import { ServerResponse } from 'node:http';
import { Http2ServerResponse } from 'node:http2';

export interface CountedBody {
  /** Path and query, as the request line had them. */
  url: string;
  status: number;
  bytes: number;
}

export interface ResponseCounter {
  readonly bodies: CountedBody[];
  clear(): void;
  /** Puts the original `end` methods back. */
  stop(): void;
}

type End = (this: unknown, ...args: unknown[]) => unknown;
interface Counted {
  prototype: { end: End };
}

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/** Starts counting the body of every response whose URL `wanted` accepts. */
export function countResponseBytes(wanted: (url: string) => boolean): ResponseCounter {
  const bodies: CountedBody[] = [];
  const classes = [ServerResponse, Http2ServerResponse] as unknown as Counted[];
  const originals = classes.map((c) => c.prototype.end);
  classes.forEach((c, i) => {
    const original = originals[i];
    if (!original) return;
    c.prototype.end = function (this: unknown, ...args: unknown[]): unknown {
      const response = this as { req?: { url?: string }; statusCode?: number };
      const url = response.req?.url ?? '';
      const chunk = typeof args[0] === 'function' ? undefined : args[0];
      if (wanted(url)) bodies.push({ url, status: response.statusCode ?? 0, bytes: byteLength(chunk) });
      return original.apply(this, args);
    };
  });
  return {
    bodies,
    clear: () => {
      bodies.length = 0;
    },
    stop: () => {
      classes.forEach((c, i) => {
        const original = originals[i];
        if (original) c.prototype.end = original;
      });
    },
  };
}
