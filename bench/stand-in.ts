// The stand-in server: a minimal Node HTTP/2 (or HTTP/1.1-only) server in its own process that
// answers every request with a body the simulator gave for the same request (bench/stand-in-capture.ts),
// after a fixed latency. It keeps no state, types nothing and checks nothing, so what a burst costs
// against it is the client's own cost (the simulator's processing is slower than the client's and
// would hide it). Run by bench/stand-in-bench.ts through `fork`, driven over IPC.
import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { keepAliveAsKubeApiserver } from '../simulator/http/idle.ts';
import { answerKey, type Capture, JOB_SENTINEL, JOB_TOKEN } from './stand-in-capture.ts';

export interface StandInStart {
  capture: string;
  protocol: 'h2' | 'http1';
  latencyMs: number;
  maxConcurrentStreams: number;
}

/** What the parent asks: to start, or the counts since the last `count` (then reset). */
export type StandInCommand = { start: StandInStart } | { count: true };

export interface StandInCounts {
  requests: number;
  /** Per answer key kind: `PATCH dry`, `PATCH`, `GET`, `POST`, `DELETE`. */
  byKind: Record<string, number>;
  connections: number;
  unknown: string[];
}

let counts: StandInCounts = { requests: 0, byKind: {}, connections: 0, unknown: [] };

const sentinel = new RegExp(`${JOB_SENTINEL}(?!\\d)`, 'g');

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

function serve(capture: Capture, latencyMs: number): (request: Request, response: Response) => void {
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = performance.now();
      const body = Buffer.concat(chunks).toString();
      const url = request.url ?? '/';
      // The job's name, wherever it shows first; the answer was captured for the sentinel's.
      const job = JOB_TOKEN.exec(`${url} ${body}`)?.[0];
      const key = answerKey(request.method ?? 'GET', url, body);
      const unjobbed = job === undefined ? key : key.replaceAll(job, JOB_SENTINEL);
      const answer = capture.answers[unjobbed];
      counts.requests++;
      const kind = unjobbed.split(' /')[0] ?? '';
      counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
      if (answer === undefined && counts.unknown.length < 10) counts.unknown.push(unjobbed);
      const text = answer ? (job === undefined ? answer.body : answer.body.replace(sentinel, job)) : '{}';
      const wait = Math.max(0, latencyMs - (performance.now() - arrived));
      setTimeout(() => {
        (response as ServerResponse).writeHead(answer?.status ?? 404, {
          'content-type': 'application/json',
          ...answer?.headers,
        });
        response.end(text);
      }, wait);
    });
  };
}

function start(options: StandInStart): Promise<string> {
  const capture = JSON.parse(readFileSync(options.capture, 'utf8')) as Capture;
  const handler = serve(capture, options.latencyMs);
  const tls = { cert: capture.tls.cert, key: capture.tls.key };
  const server =
    options.protocol === 'h2'
      ? createSecureServer(
          {
            ...tls,
            allowHTTP1: true,
            settings: { maxConcurrentStreams: options.maxConcurrentStreams },
          },
          handler,
        )
      : createServer({ ...tls, ALPNProtocols: ['http/1.1'] }, handler);
  // Idle connections kept as kube-apiserver keeps them, with no Keep-Alive limit announced.
  keepAliveAsKubeApiserver(server);
  server.on('connection', () => {
    counts.connections++;
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`https://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    });
  });
}

process.on('message', (command: StandInCommand) => {
  if ('start' in command) {
    void start(command.start).then((url) => process.send?.({ url }));
    return;
  }
  process.send?.({ counts });
  counts = { requests: 0, byKind: {}, connections: 0, unknown: [] };
});
process.send?.({ ready: true });
