// An HTTP/2 relay in front of the real tier that can answer one chosen request with a GOAWAY
// carrying an error code (#34 item 8). kube-apiserver sends such a GOAWAY only to a client that
// misbehaves (Go's http2 server: ENHANCE_YOUR_CALM, PROTOCOL_ERROR), which the library never does,
// so the frame comes from here, while every stream the relay passes on is the tier's own. It ends
// TLS with a certificate of its own CA and sends each stream on to the tier over one HTTP/2 session.
import {
  type ClientHttp2Session,
  connect,
  constants,
  createSecureServer,
  type IncomingHttpHeaders,
  type Http2SecureServer,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import { generateTlsMaterial } from '../../simulator/certs.ts';

/** The next request with this method and path draws a GOAWAY with `errorCode`. */
export interface GoAwayRule {
  method: string;
  path: string;
  errorCode: number;
  /**
   * true: the tier handles the request first, and the GOAWAY names its stream as the last one
   * processed (the answer is never sent). false: the request is not passed on, and the GOAWAY
   * names the stream before it.
   */
  processed: boolean;
}

/** The next request with this method and path is held until `until` settles, then passed on. */
export interface HoldRule {
  method: string;
  path: string;
  until: () => Promise<unknown>;
}

export interface H2Relay {
  /** `https://127.0.0.1:port`, for a kubeconfig, with `caCert` as its certificate authority. */
  url: string;
  caCert: string;
  /** Client connections accepted so far. */
  readonly sessions: number;
  /** Requests passed on to the tier: method, path (no query) and the tier's status. */
  readonly passed: { method: string; path: string; status: number }[];
  goAwayOn(rule: GoAwayRule): void;
  /** Holds a request on its way to the tier: another client's write can come between deterministically. */
  holdOn(rule: HoldRule): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([':method', ':path', ':scheme', ':authority', 'host', 'connection']);

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
  return out;
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    stream.on('error', reject);
  });
}

interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function sendOn(session: ClientHttp2Session, headers: IncomingHttpHeaders, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const empty = body.length === 0;
    const request = session.request(
      {
        ':method': headers[':method'] ?? 'GET',
        ':path': headers[':path'] ?? '/',
        ...forwardedHeaders(headers),
      },
      { endStream: empty },
    );
    request.on('response', (answer) => {
      void readAll(request).then(
        (data) => {
          resolve({ status: Number(answer[':status']), headers: answer, body: data });
        },
        (error: unknown) => {
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    request.on('error', reject);
    if (!empty) request.end(body);
  });
}

/** Starts the relay on 127.0.0.1 in front of `target`, whose certificates `targetCa` signs. */
export async function startH2Relay(target: string, targetCa: string): Promise<H2Relay> {
  const tls = generateTlsMaterial();
  const upstream = connect(target, { ca: targetCa });
  upstream.on('error', () => undefined);
  const rules: GoAwayRule[] = [];
  const holds: HoldRule[] = [];
  const passed: H2Relay['passed'] = [];
  let sessions = 0;
  const open = new Set<ServerHttp2Session>();
  const server: Http2SecureServer = createSecureServer({ key: tls.serverKey, cert: tls.serverCert });
  server.on('session', (session) => {
    sessions += 1;
    open.add(session);
    session.on('close', () => open.delete(session));
    session.on('error', () => undefined);
  });
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => undefined);
    void (async () => {
      const body = await readAll(stream);
      const method = String(headers[':method']);
      const path = String(headers[':path']).split('?')[0] ?? '';
      const held = holds.findIndex((r) => r.method === method && r.path === path);
      if (held >= 0) await holds.splice(held, 1)[0]?.until();
      const index = rules.findIndex((r) => r.method === method && r.path === path);
      const rule = index >= 0 ? rules.splice(index, 1)[0] : undefined;
      if (rule && !rule.processed) {
        // Client streams are odd and count up by two: the one before is the last processed.
        stream.session?.goaway(rule.errorCode, Math.max(0, (stream.id ?? 0) - 2));
        return;
      }
      const answer = await sendOn(upstream, headers, body);
      passed.push({ method, path, status: answer.status });
      if (rule) {
        stream.session?.goaway(rule.errorCode, stream.id ?? 0);
        return;
      }
      const { ':status': _status, ...rest } = answer.headers;
      stream.respond({ ...forwardedHeaders(rest), ':status': answer.status });
      stream.end(answer.body);
    })().catch(() => {
      if (!stream.closed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}`,
    caCert: tls.caCert,
    get sessions() {
      return sessions;
    },
    passed,
    goAwayOn: (rule) => rules.push(rule),
    holdOn: (rule) => holds.push(rule),
    close: async () => {
      upstream.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        for (const session of open) session.destroy();
      });
    },
  };
}
