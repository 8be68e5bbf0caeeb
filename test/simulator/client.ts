// A raw HTTPS client for the simulator's own tests: exact status, headers and body text.
import { request } from 'node:https';
import type { Simulator } from '../../simulator/index.ts';

export interface RawResponse {
  status: number;
  contentType: string | undefined;
  text: string;
  json: Record<string, unknown>;
  /** Each `Warning` header field, as sent. */
  warnings: string[];
}

export interface RawOptions {
  body?: unknown;
  contentType?: string;
  token?: string | null;
  ca?: string;
}

export function call(
  sim: Simulator,
  method: string,
  path: string,
  options: RawOptions = {},
): Promise<RawResponse> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const token = options.token === undefined ? sim.token : options.token;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    // Node's client sends a DELETE body unframed unless told its length.
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, sim.url),
      { method, headers, ca: options.ca ?? sim.caCert, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // Plain-text answers (404 page not found) have no JSON.
          }
          const warnings = res.rawHeaders.filter(
            (_, i) => i % 2 === 1 && /^warning$/i.test(res.rawHeaders[i - 1] ?? ''),
          );
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            text,
            json,
            warnings,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const apply = (
  sim: Simulator,
  path: string,
  body: unknown,
  manager = 'tester',
  extra = '',
): Promise<RawResponse> =>
  call(sim, 'PATCH', `${path}?fieldManager=${manager}${extra}`, {
    body,
    contentType: 'application/apply-patch+yaml',
  });
