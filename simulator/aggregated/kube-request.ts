// One HTTPS request to kube-apiserver with a bearer token, answered whatever its status: what the
// simulator's delegate (delegate.ts) and the real tier's own script (scripts/cluster/kube.ts) send.
import { type Agent, request as httpsRequest } from 'node:https';

export interface KubeAnswer {
  status: number;
  /** The answer parsed as JSON; undefined when it is not JSON (`text` holds it). */
  body: unknown;
  text: string;
}

export interface KubeRequest {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string | string[]>;
}

export function kubeRequest(
  agent: Agent,
  base: string,
  token: string,
  request: KubeRequest,
): Promise<KubeAnswer> {
  const { method, path } = request;
  const text = request.body === undefined ? undefined : JSON.stringify(request.body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, base),
      {
        method,
        agent,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${token}`,
          ...request.headers,
          accept: 'application/json',
          // Node frames no DELETE body by itself (no chunked encoding for DELETE): without a
          // length its bytes would reach kube-apiserver as the next request on the socket.
          ...(text === undefined
            ? {}
            : {
                'content-type': request.contentType ?? 'application/json',
                'content-length': Buffer.byteLength(text),
              }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text: raw });
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${method} ${path}: kube-apiserver did not answer within 30 s`)),
    );
    req.on('error', reject);
    req.end(text);
  });
}
