// What the simulator sends back, and the two ways it ends a request: an answer or a reset.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as h2, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';

export type Request = IncomingMessage | Http2ServerRequest;
export type Response = ServerResponse | Http2ServerResponse;

/** The HTTP/2 compatibility response has the same writeHead/write as HTTP/1.1's; TypeScript cannot unify them. */
export const writable = (response: Response): ServerResponse => response as ServerResponse;

export interface Answer {
  code: number;
  type: string;
  text: string;
  headers?: Record<string, string>;
  /** Texts sent as `Warning: 299 - "..."`, one header field each, as kube-apiserver does. */
  warnings?: string[];
  /** Raw `Warning` header field values, sent as they are (tests of a client's parser). */
  rawWarnings?: string[];
}

/**
 * One warning header value as kube-apiserver writes it: code 299, agent "-", the text quoted with
 * `"` and `\` escaped (k8s.io/apimachinery pkg/util/net/http.go, NewWarningHeader).
 */
function warningHeader(text: string): string {
  return `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export function send(response: Response, answer: Answer): void {
  const warnings = [...(answer.warnings ?? []).map(warningHeader), ...(answer.rawWarnings ?? [])];
  writable(response).writeHead(answer.code, {
    ...(answer.type === '' ? {} : { 'Content-Type': answer.type }),
    'Content-Length': Buffer.byteLength(answer.text),
    'Cache-Control': 'no-cache, private',
    'Audit-Id': randomBytes(8).toString('hex'),
    ...answer.headers,
    ...(warnings.length > 0 ? { Warning: warnings } : {}),
  });
  response.end(answer.text);
}

/** Ends one request without an answer: RST_STREAM over HTTP/2, the connection over HTTP/1.1. */
export function reset(response: Response): void {
  if ('stream' in response) response.stream.close(h2.NGHTTP2_INTERNAL_ERROR);
  else response.socket?.destroy();
}
