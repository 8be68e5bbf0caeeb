// The rawest clients the benchmark compares against: the same requests as the library and nothing
// else (no validation, no discovery, no error handling beyond the status), over plain undici with
// HTTP/1.1 keep-alive and unlimited sockets, or over one node:http2 session.
import { readFileSync } from 'node:fs';
import { connect as connectH2 } from 'node:http2';
import { Agent } from 'undici';
import { IDLE_SOCKET_MS } from '../src/wire/h1.ts';

export type Send = (method: string, path: string, body?: unknown, contentType?: string) => Promise<unknown>;

export interface RawTransport {
  send: Send;
  /** Whether requests share one connection, so that a wave of them costs no new sockets. */
  multiplexed: boolean;
  close(): Promise<void>;
}

export interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid?: string };
}

const RESOURCE: Record<string, string> = {
  'v1/ConfigMap': '/api/v1/namespaces/workers/configmaps',
  'v1/Secret': '/api/v1/namespaces/workers/secrets',
  'kubevirt.io/v1/VirtualMachine': '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines',
  'apps/v1/Deployment': '/apis/apps/v1/namespaces/workers/deployments',
};

export function objectPath(object: Rendered): string {
  return `${RESOURCE[`${object.apiVersion}/${object.kind}`] ?? ''}/${object.metadata.name}`;
}

function credentials(kubeconfig: string): { server: string; ca: string; token: string } {
  const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  const cluster = config.clusters[0]?.cluster;
  return {
    server: cluster?.server ?? '',
    ca: Buffer.from(cluster?.['certificate-authority-data'] ?? '', 'base64').toString(),
    token: config.users[0]?.user.token ?? '',
  };
}

function checked(status: number, text: string, method: string, path: string): unknown {
  if (status >= 300 && !(method === 'DELETE' && status === 404))
    throw new Error(`${method} ${path}: ${status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/**
 * undici over HTTP/1.1, with no socket limit unless `connections` is given: the rawest keep-alive
 * client. Its idle sockets are kept as long as the library keeps its own (undici's 4 s would
 * close them between two rounds of a bench), so the two differ only in the library's own work.
 */
export function rawH1(kubeconfig: string, connections: number | null = null): RawTransport {
  const { server, ca, token } = credentials(kubeconfig);
  const agent = new Agent({
    connect: { ca },
    allowH2: false,
    connections,
    keepAliveTimeout: IDLE_SOCKET_MS,
  });
  const send: Send = async (method, path, body, contentType = 'application/json') => {
    const response = await agent.request({
      origin: server,
      path,
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body ? { 'content-type': contentType } : {}),
      },
      body: body === undefined ? null : JSON.stringify(body),
      ...(method === 'DELETE' ? { reset: false } : {}),
    });
    return checked(response.statusCode, await response.body.text(), method, path);
  };
  return { send, multiplexed: false, close: () => agent.close() };
}

/** One node:http2 session, every request a stream on it. */
export function rawH2(kubeconfig: string): RawTransport {
  const { server, ca, token } = credentials(kubeconfig);
  const session = connectH2(server, { ca });
  const send: Send = (method, path, body, contentType = 'application/json') =>
    new Promise((resolve, reject) => {
      const headers = {
        ':method': method,
        ':path': path,
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body ? { 'content-type': contentType } : {}),
      };
      // Without a body the stream is ended at once (endStream), as node:http2 does for GET.
      const stream = session.request(headers, { endStream: body === undefined });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (answer) => {
        status = Number(answer[':status']);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => {
        try {
          resolve(checked(status, Buffer.concat(chunks).toString(), method, path));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      if (body !== undefined) stream.end(JSON.stringify(body));
    });
  return {
    send,
    multiplexed: true,
    close: () =>
      new Promise((resolve) => {
        session.close(resolve);
      }),
  };
}

/** GET the Template, set parameter values in a copy, POST it for processing. */
export async function render(
  send: Send,
  template: string,
  values: Record<string, string> = {},
): Promise<Rendered[]> {
  const stored = (await send(
    'GET',
    `/apis/template.openshift.io/v1/namespaces/infra/templates/${template}`,
  )) as {
    parameters?: { name: string }[];
    metadata: { name: string };
  };
  const copy = {
    ...stored,
    metadata: { name: stored.metadata.name },
    parameters: (stored.parameters ?? []).map((p) =>
      p.name in values ? { ...p, value: values[p.name] } : p,
    ),
  };
  const processed = (await send(
    'POST',
    '/apis/template.openshift.io/v1/namespaces/workers/processedtemplates',
    copy,
  )) as {
    objects: Rendered[];
  };
  return processed.objects;
}

export async function applyAll(send: Send, objects: Rendered[]): Promise<Rendered[]> {
  const applied: Rendered[] = [];
  for (const object of objects) {
    const body = { ...object, metadata: { ...object.metadata, namespace: 'workers' } };
    applied.push(
      (await send(
        'PATCH',
        `${objectPath(object)}?fieldManager=raw`,
        body,
        'application/apply-patch+yaml',
      )) as Rendered,
    );
  }
  return applied;
}

/**
 * The pre-flight's requests only: every object's apply with dryRun=All and the namespace's quota list,
 * all at once (streams of one session, or as many sockets as there are requests), then nothing
 * unless every one passed.
 */
export async function dryRunWave(send: Send, objects: Rendered[]): Promise<void> {
  await Promise.all([
    // The library lists the namespace's ResourceQuotas beside the wave, to sum the batch's need.
    send('GET', '/api/v1/namespaces/workers/resourcequotas'),
    ...objects.map((object) =>
      send(
        'PATCH',
        `${objectPath(object)}?fieldManager=raw&dryRun=All`,
        { ...object, metadata: { ...object.metadata, namespace: 'workers' } },
        'application/apply-patch+yaml',
      ),
    ),
  ]);
}

export async function readAll(send: Send, objects: Rendered[]): Promise<void> {
  for (const object of objects) await send('GET', objectPath(object));
}

/** In reverse order; with `uids`, each object's own UID as a precondition. */
export async function deleteAll(send: Send, objects: Rendered[], uids = false): Promise<void> {
  for (const object of [...objects].reverse()) {
    const preconditions = uids && object.metadata.uid ? { preconditions: { uid: object.metadata.uid } } : {};
    await send('DELETE', objectPath(object), { kind: 'DeleteOptions', apiVersion: 'v1', ...preconditions });
  }
}

/**
 * The library's replay delete, requests only: every object read (at once over one multiplexed
 * connection), then deleted in reverse order with the UID it read as a precondition.
 */
export async function replayDelete(client: RawTransport, objects: Rendered[]): Promise<void> {
  const read = (object: Rendered): Promise<Rendered> =>
    client.send('GET', objectPath(object)) as Promise<Rendered>;
  const live: Rendered[] = [];
  if (client.multiplexed) live.push(...(await Promise.all(objects.map(read))));
  else for (const object of objects) live.push(await read(object));
  await deleteAll(client.send, live, true);
}
