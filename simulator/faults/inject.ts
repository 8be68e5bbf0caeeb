// What a matched fault rule does to its request: answers in its place, delays, cuts or drops it.
import { constants as h2 } from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Answer, reset, type Response, send, writable } from '../http/answer.ts';
import { StatusError } from '../objects/status.ts';
import type { FaultAction } from './rules.ts';

/** The request a fault acts on, and what the server lets a fault do to it and to the server. */
export interface FaultedRequest {
  response: Response;
  /** Handles the request as if no fault matched (it may persist), and returns its answer. */
  execute: () => Answer;
  /** Records the status sent (0: none) in the request log. */
  finish: (code: number) => void;
  dropConnections: () => void;
  goDown: () => Promise<void>;
}

export async function applyFault(fault: FaultAction, request: FaultedRequest): Promise<void> {
  const { response, execute, finish } = request;
  switch (fault.type) {
    case 'status': {
      if (fault.execute) execute();
      const status = new StatusError(
        fault.code,
        fault.reason ?? 'InternalError',
        fault.message ?? 'injected failure',
        fault.details,
      );
      const answer = { code: fault.code, type: 'application/json', text: JSON.stringify(status.status) };
      send(response, answer);
      finish(fault.code);
      return;
    }
    case 'too-many-requests': {
      // API Priority and Fairness rejects before the request is handled (apiserver
      // pkg/server/filters/priority-and-fairness.go: tooManyRequests).
      const status = new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
        retryAfterSeconds: fault.retryAfterSeconds ?? 1,
      });
      const headers: Record<string, string> =
        fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
      send(response, {
        code: 429,
        type: 'application/json',
        text: JSON.stringify(status.status),
        headers,
      });
      finish(429);
      return;
    }
    case 'drop-connections':
      if (fault.execute) execute();
      finish(0);
      request.dropConnections();
      return;
    case 'warn': {
      const answer = execute();
      send(response, { ...answer, rawWarnings: fault.headers });
      finish(answer.code);
      return;
    }
    case 'down-after': {
      const answer = execute();
      send(response, answer);
      finish(answer.code);
      response.once('finish', () => {
        void request.goDown();
      });
      return;
    }
    case 'raw':
      if (fault.execute) execute();
      send(response, {
        code: fault.code,
        type: fault.contentType ?? 'application/json',
        text: fault.body,
      });
      finish(fault.code);
      return;
    case 'change-first': {
      // Held until the change is done: another client's request may be the change.
      await fault.change();
      const answer = execute();
      send(response, answer);
      finish(answer.code);
      return;
    }
    case 'delay': {
      await sleep(fault.ms);
      const answer = execute();
      send(response, answer);
      finish(answer.code);
      return;
    }
    case 'hang':
      if (fault.execute) execute();
      finish(0);
      return;
    case 'reset':
      if (fault.execute) execute();
      reset(response);
      finish(0);
      return;
    case 'refuse-stream':
      if ('stream' in response) response.stream.close(h2.NGHTTP2_REFUSED_STREAM);
      else response.socket?.destroy();
      finish(0);
      return;
    case 'goaway':
      if (fault.execute) execute();
      goAway(response, fault.errorCode, fault.execute === true);
      finish(0);
      return;
    case 'endless-body':
      await endlessBody(fault, request);
      return;
    case 'truncate':
    case 'stall-body':
    case 'reset-mid-body':
    case 'trickle':
      await cutBody(fault, request);
      return;
  }
}

/**
 * A GOAWAY naming the last stream processed: this request's, or the one before it (client streams
 * are odd and count up by two). The client ends the connection on an error code.
 */
function goAway(response: Response, errorCode: number, processed: boolean): void {
  if (!('stream' in response)) {
    response.socket?.destroy();
    return;
  }
  const id = response.stream.id ?? 0;
  response.stream.session?.goaway(errorCode, processed ? id : Math.max(0, id - 2));
}

type BodyFault = Extract<FaultAction, { type: 'truncate' | 'stall-body' | 'reset-mid-body' | 'trickle' }>;

/** Announces the whole answer's length, then sends less of it, or slower, than announced. */
async function cutBody(fault: BodyFault, { response, execute, finish }: FaultedRequest): Promise<void> {
  const answer = execute();
  const bytes = Buffer.from(answer.text);
  writable(response).writeHead(answer.code, {
    'Content-Type': answer.type,
    'Content-Length': bytes.length,
  });
  finish(answer.code);
  if (fault.type === 'trickle') {
    for (let i = 0; i < bytes.length && !response.destroyed; i += fault.bytes) {
      writable(response).write(bytes.subarray(i, i + fault.bytes));
      await sleep(fault.intervalMs);
    }
    response.end();
    return;
  }
  const half = Math.floor(bytes.length / 2);
  writable(response).write(bytes.subarray(0, half));
  if (fault.type === 'truncate') {
    if ('stream' in response) response.stream.close(h2.NGHTTP2_NO_ERROR);
    else response.socket?.end();
    return;
  }
  if (fault.type === 'reset-mid-body') {
    await sleep(20);
    reset(response);
    return;
  }
  await sleep(fault.ms);
  if (!response.destroyed) response.end(bytes.subarray(half));
}

/** Headers, then filler for as long as the client reads, each piece once the last has drained. */
async function endlessBody(
  fault: Extract<FaultAction, { type: 'endless-body' }>,
  { response, execute, finish }: FaultedRequest,
): Promise<void> {
  const code = fault.execute ? execute().code : 200;
  const out = writable(response);
  out.writeHead(code, { 'Content-Type': 'application/json' });
  finish(code);
  const filler = Buffer.alloc(fault.bytes, ' ');
  // The client going away closes the response; a write after it would only be dropped.
  const closed = new AbortController();
  response.once('close', () => {
    closed.abort();
  });
  while (!closed.signal.aborted && !response.destroyed) {
    if (!out.write(filler)) await drained(response);
    await sleep(fault.intervalMs);
  }
}

function drained(response: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
