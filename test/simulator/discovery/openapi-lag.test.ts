// The merged /openapi/v3 root behind a CRD change, as kube-aggregator serves it (openapiRootLagMs):
// the root and the aggregator's routing keep what they read last, while the document's own path is
// answered by its server at once, with its hash in the ETag; the outdated hash answers 301 to it.
import { request } from 'node:https';
import { afterEach, expect, test } from 'vitest';
import { type JsonObject, type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator | undefined;
/** A simulator of the test's own, whose root lags a minute (an aggregated server's schedule). */
async function lagging(): Promise<Simulator> {
  sim = await startSimulator({ openapiRootLagMs: 60_000, seedExamples: false });
  return sim;
}
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Reply {
  status: number;
  etag: string | undefined;
  location: string | undefined;
  text: string;
}

function get(sim: Simulator, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = { headers: { Authorization: `Bearer ${sim.token}` }, ca: sim.caCert, agent: false };
    const req = request(new URL(path, sim.url), options, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('error', reject);
      res.on('end', () => {
        const { etag, location } = res.headers;
        resolve({ status: res.statusCode ?? 0, etag, location, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function listed(sim: Simulator, path: string): Promise<string | undefined> {
  const body = JSON.parse((await get(sim, '/openapi/v3')).text) as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  return body.paths[path]?.serverRelativeURL;
}

const schema = (properties: JsonObject): JsonObject => ({
  type: 'object',
  properties: { spec: { type: 'object', properties } },
});
const kind = { group: 'lag.example.com', version: 'v1', kind: 'Gadget' } as const;
const PATH = 'apis/lag.example.com/v1';

test('a group-version added after the root was read: not listed, and its document 404s, until the root is read again', async () => {
  const sim = await lagging();
  await listed(sim, 'api/v1');
  sim.addResource({ ...kind, plural: 'gadgets', schema: schema({ extra: { type: 'string' } }) });
  expect(await listed(sim, PATH)).toBeUndefined();
  const answer = await get(sim, `/openapi/v3/${PATH}`);
  expect([answer.status, answer.text]).toEqual([404, '']);
});

test("a CRD update: the root lists the old hash, the document's own path answers the new one at once", async () => {
  const sim = await lagging();
  sim.addResource({ ...kind, plural: 'gadgets', schema: schema({ extra: { type: 'string' } }) });
  const old = await listed(sim, PATH);
  expect(old).toMatch(/\?hash=[0-9A-F]{128}$/);
  sim.changeResourceSchema({ ...kind, schema: schema({}) });
  expect(await listed(sim, PATH)).toBe(old);
  const current = await get(sim, `/openapi/v3/${PATH}`);
  expect(current.status).toBe(200);
  expect(current.text).not.toContain('"extra"');
  const hash = /^"([0-9A-F]{128})"$/.exec(current.etag ?? '')?.[1] ?? '';
  expect(`/openapi/v3/${PATH}?hash=${hash}`).not.toBe(old);
  const moved = await get(sim, old ?? '');
  expect([moved.status, moved.location]).toEqual([301, `/openapi/v3/${PATH}?hash=${hash}`]);
});
