// Fault injection and observation: what the reliability tests and the benchmarks stand on.
import { afterAll, beforeAll, beforeEach, expect, onTestFinished, test } from 'vitest';
import { call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
beforeEach(() => {
  sim.clearFaults();
  sim.clearLog();
  sim.setLatency(0);
});
afterAll(async () => {
  await sim.close();
});

test('the request log records method, path, query, content type, body and identity, never the token', async () => {
  await call(sim, 'PATCH', '/api/v1/namespaces/workers/configmaps/logged?fieldManager=me&dryRun=All', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'logged' } },
    contentType: 'application/apply-patch+yaml',
  });
  expect(sim.log).toHaveLength(1);
  expect(sim.log[0]).toMatchObject({
    method: 'PATCH',
    path: '/api/v1/namespaces/workers/configmaps/logged',
    query: { fieldManager: 'me', dryRun: 'All' },
    contentType: 'application/apply-patch+yaml',
    user: 'admin',
    status: 201,
  });
  expect(JSON.parse(sim.log[0]?.body ?? '')).toMatchObject({ kind: 'ConfigMap' });
  expect(JSON.stringify(sim.log)).not.toContain(sim.token);
  expect(sim.mutations()).toHaveLength(1);
});

test('a status fault on the nth matching request, once', async () => {
  sim.addFault({
    method: 'GET',
    path: /\/configmaps\//,
    nth: 2,
    action: { type: 'status', code: 503, reason: 'ServiceUnavailable', message: 'try later' },
  });
  const codes: number[] = [];
  for (let i = 0; i < 3; i++)
    codes.push((await call(sim, 'GET', '/api/v1/namespaces/workers/configmaps/x')).status);
  expect(codes).toEqual([404, 503, 404]);
});

test('a status fault that executes first: stored, then answered as kube-apiserver answers an etcd timeout', async () => {
  const path = '/api/v1/namespaces/workers/configmaps/committed-timeout';
  sim.addFault({
    method: 'PATCH',
    path,
    action: {
      type: 'status',
      code: 500,
      reason: '',
      message: 'etcdserver: request timed out',
      execute: true,
    },
  });
  const answer = await call(sim, 'PATCH', `${path}?fieldManager=me`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'committed-timeout' }, data: { a: 'b' } },
    contentType: 'application/apply-patch+yaml',
  });
  // The body the real tier answered, byte for byte (test/cluster/etcd-fault.test.ts makes it).
  expect([answer.status, answer.text]).toEqual([
    500,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request timed out","code":500}',
  ]);
  const stored = await call(sim, 'GET', path);
  expect([stored.status, stored.json.data]).toEqual([200, { a: 'b' }]);
  await call(sim, 'DELETE', path);
});

test('raw answers: a non-JSON 200 and a truncated body', async () => {
  sim.addFault({
    path: '/api/v1',
    action: { type: 'raw', code: 200, contentType: 'text/html', body: '<html>' },
  });
  const res = await call(sim, 'GET', '/api/v1');
  expect(res.status).toBe(200);
  expect(res.text).toBe('<html>');
  sim.clearFaults();
  sim.addFault({ path: '/api/v1', action: { type: 'reset-mid-body' } });
  await expect(call(sim, 'GET', '/api/v1')).rejects.toThrow();
});

test('latency, stalls and trickles slow answers down but keep them whole', async () => {
  sim.setLatency(50);
  let started = performance.now();
  await call(sim, 'GET', '/version');
  expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  sim.setLatency(0);
  sim.addFault({ path: '/version', action: { type: 'stall-body', ms: 60 } });
  started = performance.now();
  const stalled = await call(sim, 'GET', '/version');
  expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  expect(stalled.json.major).toBe('1');
  sim.clearFaults();
  sim.addFault({ path: '/version', action: { type: 'trickle', bytes: 16, intervalMs: 2 } });
  expect((await call(sim, 'GET', '/version')).json.minor).toBe('34');
});

test('reset before headers, and a hang that executes the request first', async () => {
  sim.addFault({ path: '/version', action: { type: 'reset' } });
  await expect(call(sim, 'GET', '/version')).rejects.toThrow(/socket hang up|ECONNRESET/);
  sim.addFault({
    method: 'PATCH',
    action: { type: 'hang', execute: true },
  });
  const pending = call(sim, 'PATCH', '/api/v1/namespaces/workers/configmaps/hung?fieldManager=me', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hung' } },
    contentType: 'application/apply-patch+yaml',
  });
  pending.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(sim.getObject('v1', 'ConfigMap', 'workers', 'hung')).toBeDefined();
  expect(sim.log.at(-1)?.status).toBe(0);
});

test('connections and TLS handshakes are counted', async () => {
  const before = sim.stats();
  await call(sim, 'GET', '/version');
  await call(sim, 'GET', '/version');
  const after = sim.stats();
  // The raw client opens a connection per request (agent: false).
  expect(after.connections - before.connections).toBe(2);
  expect(after.handshakes - before.handshakes).toBe(2);
});

test('a GOAWAY fault: its error code, and a last-stream-id of the stream before (or, executed, its own)', async () => {
  const { connect } = await import('node:http2');
  // An HTTP/2 server whatever OTS_SIMULATOR_PROTOCOL says: GOAWAY is an HTTP/2 frame.
  const h2 = await startSimulator({ protocol: 'h2' });
  onTestFinished(() => h2.close());
  const goAway = async (execute: boolean): Promise<{ code: number; last: number; ids: number[] }> => {
    h2.clearFaults();
    h2.addFault({ path: '/api/v1/namespaces/workers/configmaps/held', action: { type: 'hang' } });
    h2.addFault({
      path: '/api/v1/namespaces/workers/configmaps/away',
      action: { type: 'goaway', errorCode: 0xb, execute },
    });
    const session = connect(h2.url, { ca: h2.caCert });
    session.on('error', () => undefined);
    const seen = new Promise<{ code: number; last: number }>((resolve) => {
      session.once('goaway', (code: number, last: number) => {
        resolve({ code, last });
      });
    });
    const open = (name: string) => {
      const stream = session.request({
        ':path': `/api/v1/namespaces/workers/configmaps/${name}`,
        authorization: `Bearer ${h2.token}`,
      });
      stream.on('error', () => undefined);
      return stream;
    };
    const held = open('held');
    await new Promise((resolve) => held.once('ready', resolve));
    while (!h2.log.some((e) => e.path.endsWith('/held')))
      await new Promise((resolve) => setImmediate(resolve));
    const away = open('away');
    const result = await seen;
    session.destroy();
    return { ...result, ids: [held.id ?? 0, away.id ?? 0] };
  };
  const before = await goAway(false);
  expect(before).toEqual({ code: 0xb, last: before.ids[0], ids: [before.ids[0], (before.ids[0] ?? 0) + 2] });
  const own = await goAway(true);
  expect(own.last).toBe(own.ids[1]);
});

test("a change-first fault that narrows the caller's rules: the very request it fires on meets them", async () => {
  const secrets = { verbs: ['get', 'create', 'patch'], apiGroups: [''], resources: ['secrets'] };
  const configMaps = { verbs: ['get', 'create', 'patch'], apiGroups: [''], resources: ['configmaps'] };
  const token = 'narrowed-token';
  // The caller's own object: setRules changes the simulator's copy, never it.
  const identity = { user: 'narrowed', rules: [configMaps, secrets] };
  sim.addToken(token, identity);
  const path = '/api/v1/namespaces/workers/secrets/narrowed';
  sim.addFault({
    method: 'PATCH',
    path,
    nth: 2,
    action: {
      type: 'change-first',
      change: () => {
        sim.setRules('narrowed', [configMaps]);
      },
    },
  });
  const apply = () =>
    call(sim, 'PATCH', `${path}?fieldManager=me&dryRun=All`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'narrowed' } },
      contentType: 'application/apply-patch+yaml',
      token,
    });
  const [first, second] = [await apply(), await apply()];
  expect([first.status, second.status]).toEqual([201, 403]);
  expect(second.json.message).toBe(
    'secrets "narrowed" is forbidden: User "narrowed" cannot patch resource "secrets" in API group "" in the namespace "workers"',
  );
  expect(identity.rules).toEqual([configMaps, secrets]);
});
