// /openapi/v3 as kube-apiserver serves it: the root merged by kube-aggregator's spec proxier
// (pkg/controllers/openapiv3/aggregator), with a hash per group-version and no ETag; each document
// by k8s.io/kube-openapi pkg/handler3/handler.go, with caching headers, redirects, 304s; the
// documents themselves (the real servers' schemas as data); a kind added at run time; and a
// server without /openapi/v3.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RESOURCES } from '../../../simulator/discovery/resources.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Where a simulator listens and how to talk to it: a started one, or one read from a kubeconfig. */
type Server = Pick<Simulator, 'url' | 'caCert' | 'token'>;

function get(sim: Server, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, sim.url),
      { headers: { Authorization: `Bearer ${sim.token}`, ...headers }, ca: sim.caCert, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

type Schema = Record<string, unknown>;
interface Document {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema> };
}

async function root(sim: Simulator): Promise<Record<string, string>> {
  const reply = await get(sim, '/openapi/v3');
  const body = JSON.parse(reply.text) as { paths: Record<string, { serverRelativeURL: string }> };
  return Object.fromEntries(
    Object.entries(body.paths).map(([path, entry]) => [path, entry.serverRelativeURL]),
  );
}

async function document(sim: Simulator, path: string): Promise<Document> {
  const url = (await root(sim))[path];
  if (url === undefined) throw new Error(`the root does not list ${path}`);
  return JSON.parse((await get(sim, url)).text) as Document;
}

const pathOf = (group: string, version: string): string =>
  group === '' ? `api/${version}` : `apis/${group}/${version}`;
const served = [...new Set(RESOURCES.map((r) => pathOf(r.group, r.version)))];
const sha512 = (text: string): string => createHash('sha512').update(text).digest('hex').toUpperCase();

/** Every `description` key outside a `properties` map (where it would be a field's name). */
function descriptions(value: unknown, where = '', inProperties = false): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => descriptions(item, `${where}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(key === 'description' && !inProperties ? [`${where}.description`] : []),
    ...(['default', 'example', 'enum'].includes(key) && !inProperties
      ? []
      : descriptions(child, `${where}.${key}`, !inProperties && key === 'properties')),
  ]);
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

describe('the root, GET /openapi/v3', () => {
  test('lists every group-version the simulator serves, each under the SHA-512 of its document', async () => {
    const reply = await get(sim, '/openapi/v3');
    expect(reply.status).toBe(200);
    // handleDiscovery sets no Content-Type: http.ServeContent sniffs the JSON as text.
    expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-cache, private');
    const urls = await root(sim);
    expect(Object.keys(urls).sort()).toEqual([...served].sort());
    for (const path of served) {
      const url = urls[path] ?? '';
      expect(url).toMatch(new RegExp(`^/openapi/v3/${path.replaceAll('.', '\\.')}\\?hash=[0-9A-F]{128}$`));
      const body = await get(sim, url);
      expect(url.endsWith(`=${sha512(body.text)}`), path).toBe(true);
    }
  });

  test('no ETag and a Last-Modified of the moment (http.ServeContent with time.Now()): nothing to revalidate by', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const reply = await get(sim, '/openapi/v3');
    expect(reply.headers.etag).toBeUndefined();
    expect(Date.parse(reply.headers['last-modified'] ?? '')).toBeGreaterThanOrEqual(before);
    expect(reply.headers['accept-ranges']).toBe('bytes');
    // A tag matches nothing without an ETag; `*` matches any answer.
    const tagged = await get(sim, '/openapi/v3', { 'If-None-Match': `"${sha512(reply.text)}"` });
    expect([tagged.status, tagged.text]).toEqual([200, reply.text]);
    const any = await get(sim, '/openapi/v3', { 'If-None-Match': '*' });
    expect([any.status, any.text]).toEqual([304, '']);
    // If-Modified-Since is 304 only at or after the current second.
    const past = await get(sim, '/openapi/v3', {
      'If-Modified-Since': new Date(before - 60_000).toUTCString(),
    });
    expect(past.status).toBe(200);
    const future = await get(sim, '/openapi/v3', {
      'If-Modified-Since': new Date(Date.now() + 60_000).toUTCString(),
    });
    expect([future.status, future.text]).toEqual([304, '']);
  });
});

describe('a group-version document', () => {
  test('under its current hash: public, immutable, an Expires a year on, an ETag, 304 for If-None-Match', async () => {
    const url = (await root(sim))['apis/apps/v1'] ?? '';
    const reply = await get(sim, url);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['cache-control']).toBe('public, immutable');
    expect(reply.headers.vary).toBe('Accept');
    const expires = new Date(reply.headers.expires ?? '');
    expect(expires.getUTCFullYear()).toBeGreaterThanOrEqual(new Date().getUTCFullYear() + 1);
    expect(reply.headers.etag).toBe(`"${url.split('hash=')[1] ?? ''}"`);
    const cached = await get(sim, url, { 'If-None-Match': reply.headers.etag ?? '' });
    expect([cached.status, cached.text, cached.headers.etag]).toEqual([304, '', reply.headers.etag]);
  });

  test('an outdated hash is a 301 to the current URL; no hash is no-cache, private', async () => {
    const url = (await root(sim))['apis/apps/v1'] ?? '';
    const moved = await get(sim, `/openapi/v3/apis/apps/v1?hash=${'0'.repeat(128)}`);
    expect([moved.status, moved.headers.location, moved.text]).toEqual([301, url, '']);
    const plain = await get(sim, '/openapi/v3/apis/apps/v1');
    expect([plain.status, plain.headers['cache-control']]).toEqual([200, 'no-cache, private']);
    expect(plain.headers.expires).toBeUndefined();
    expect(plain.text).toBe((await get(sim, url)).text);
    // The aggregator's handleGroupVersion answers a group-version no APIService lists with a bare
    // 404 before handler3 sees it, whatever the Accept header.
    const unknown = await get(sim, '/openapi/v3/apis/nothing.example.com/v1');
    expect([unknown.status, unknown.text]).toEqual([404, '']);
    const protobufOnly = { Accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' };
    expect((await get(sim, '/openapi/v3/apis/nothing.example.com/v1', protobufOnly)).status).toBe(404);
  });

  test('JSON only: a client that accepts only protobuf gets 406', async () => {
    const protobuf = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
    const refused = await get(sim, '/openapi/v3/api/v1', { Accept: protobuf });
    expect(refused.status).toBe(406);
    const either = await get(sim, '/openapi/v3/api/v1', { Accept: `${protobuf}, application/json;q=0.5` });
    expect([either.status, either.headers['content-type']]).toEqual([200, 'application/json']);
  });
});

describe('the documents: the real servers schemas, kept as data', () => {
  test('every kind the simulator serves has a schema marked with its group-version-kind', async () => {
    for (const path of served) {
      const { components } = await document(sim, path);
      const kinds = Object.values(components.schemas).flatMap(
        (schema) =>
          (schema['x-kubernetes-group-version-kind'] as
            { group: string; version: string; kind: string }[] | undefined) ?? [],
      );
      for (const r of RESOURCES.filter((x) => pathOf(x.group, x.version) === path)) {
        expect(kinds, `${path} ${r.kind}`).toContainEqual({
          group: r.group,
          version: r.version,
          kind: r.kind,
        });
      }
    }
  });

  test('no description anywhere (a field named so stays), every reference resolves, PATCH declares fieldValidation', async () => {
    const template = await document(sim, 'apis/template.openshift.io/v1');
    expect(template.components.schemas['com.github.openshift.api.template.v1.Parameter']).toMatchObject({
      properties: { description: { type: 'string' } },
    });
    for (const path of served) {
      const doc = await document(sim, path);
      expect(descriptions(doc), path).toEqual([]);
      const references = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
        (m) => m[1] ?? '',
      );
      for (const name of references) expect(doc.components.schemas[name], `${path} ${name}`).toBeDefined();
      const patches = Object.values(doc.paths)
        .map(
          (item) =>
            item.patch as { 'x-kubernetes-action'?: string; parameters?: { name: string }[] } | undefined,
        )
        .filter((patch) => patch?.['x-kubernetes-action'] === 'patch');
      const patchable = RESOURCES.some(
        (r) => pathOf(r.group, r.version) === path && !r.name.includes('/') && r.verbs.includes('patch'),
      );
      expect(patches.length > 0, path).toBe(patchable);
      for (const patch of patches) expect(patch?.parameters?.map((p) => p.name)).toContain('fieldValidation');
    }
  });

  test('a Template is as the server publishes it: objects is a list of RawExtension, a free-form object', async () => {
    const { components } = await document(sim, 'apis/template.openshift.io/v1');
    const template = components.schemas['com.github.openshift.api.template.v1.Template'] as {
      properties: Record<string, Schema>;
    };
    expect(template.properties.objects).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension' },
    });
    expect(components.schemas['io.k8s.apimachinery.pkg.runtime.RawExtension']).toEqual({ type: 'object' });
  });

  test('a Deployment keeps its structure and x-kubernetes extensions: containers is a list keyed by name', async () => {
    const { components } = await document(sim, 'apis/apps/v1');
    const pod = components.schemas['io.k8s.api.core.v1.PodSpec'] as { properties: Record<string, Schema> };
    expect(pod.properties.containers).toMatchObject({
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
    });
  });

  test('every source is recorded with its repository, path, branch or tag, and commit', () => {
    const sources = JSON.parse(
      readFileSync(
        new URL('../../../simulator/discovery/openapi/data/sources.json', import.meta.url),
        'utf8',
      ),
    ) as Record<string, string>[];
    expect(new Set(sources.map((s) => s.repository))).toEqual(
      new Set([
        'kubernetes-sigs/kubectl-validate',
        'openshift/api',
        'kubevirt/kubevirt',
        'kubevirt/containerized-data-importer',
        'prometheus-operator/prometheus-operator',
      ]),
    );
    for (const source of sources) {
      expect(Object.keys(source).sort()).toEqual(['commit', 'path', 'ref', 'repository']);
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(sources.find((s) => s.repository === 'openshift/api')?.ref).toBe('release-4.21');
  });
});

const WIDGET_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
};

describe('a kind added while the simulator runs', () => {
  test('discovery lists it, and its group-version gets a new document and hash; the others keep theirs', async () => {
    const before = await root(sim);
    sim.addResource({
      group: 'kubevirt.io',
      version: 'v1',
      plural: 'widgets',
      kind: 'Widget',
      status: true,
      schema: WIDGET_SCHEMA,
    });
    sim.addResource({
      group: 'example.com',
      version: 'v1alpha1',
      plural: 'gadgets',
      kind: 'Gadget',
      namespaced: false,
      schema: WIDGET_SCHEMA,
    });

    const list = JSON.parse((await get(sim, '/apis/kubevirt.io/v1')).text) as {
      resources: { name: string; kind: string }[];
    };
    expect(list.resources).toContainEqual(expect.objectContaining({ name: 'widgets', kind: 'Widget' }));
    expect(list.resources).toContainEqual(
      expect.objectContaining({ name: 'widgets/status', kind: 'Widget' }),
    );
    const groups = JSON.parse((await get(sim, '/apis')).text) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toContain('example.com');

    const after = await root(sim);
    expect(after['apis/kubevirt.io/v1']).not.toBe(before['apis/kubevirt.io/v1']);
    expect(after['apis/example.com/v1alpha1']).toMatch(
      /^\/openapi\/v3\/apis\/example\.com\/v1alpha1\?hash=[0-9A-F]{128}$/,
    );
    for (const path of served.filter((p) => p !== 'apis/kubevirt.io/v1'))
      expect(after[path], path).toBe(before[path]);

    const moved = await get(sim, before['apis/kubevirt.io/v1'] ?? '');
    expect([moved.status, moved.headers.location]).toEqual([301, after['apis/kubevirt.io/v1']]);
    const kubevirt = await document(sim, 'apis/kubevirt.io/v1');
    expect(kubevirt.components.schemas['io.kubevirt.v1.Widget']).toMatchObject({
      properties: { spec: { properties: { size: { type: 'integer' } } } },
      'x-kubernetes-group-version-kind': [{ group: 'kubevirt.io', version: 'v1', kind: 'Widget' }],
    });
    expect(kubevirt.components.schemas['io.kubevirt.v1.VirtualMachine']).toBeDefined();
    expect(Object.keys(kubevirt.paths)).toContain(
      '/apis/kubevirt.io/v1/namespaces/{namespace}/widgets/{name}/status',
    );
    const gadget = await document(sim, 'apis/example.com/v1alpha1');
    expect(Object.keys(gadget.paths)).toContain('/apis/example.com/v1alpha1/gadgets/{name}');
    expect(gadget.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });
});

describe('a server without /openapi/v3', () => {
  test('answers 404 for the root and every document, as one with the feature off', async () => {
    const old = await startSimulator({ openapiV3: false, seedExamples: false });
    try {
      for (const path of ['/openapi/v3', '/openapi/v3/apis/apps/v1']) {
        const reply = await get(old, path);
        expect([reply.status, reply.text], path).toEqual([404, '404 page not found\n']);
      }
      expect((await get(old, '/apis/apps/v1')).status).toBe(200);
    } finally {
      await old.close();
    }
  });

  test('npm run simulator -- --no-openapi-v3 starts one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ots-openapi-'));
    const kubeconfig = join(dir, 'kubeconfig.json');
    const child = spawn(
      process.execPath,
      ['simulator/main.ts', '--no-openapi-v3', '--kubeconfig-out', kubeconfig],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('kubeconfig written')) resolve();
        });
        child.once('exit', (code) => {
          reject(new Error(`simulator exited early with ${String(code)}`));
        });
      });
      const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as Simulator['kubeconfig'];
      const cluster = config.clusters[0]?.cluster;
      const server: Server = {
        url: cluster?.server ?? '',
        caCert: Buffer.from(cluster?.['certificate-authority-data'] ?? '', 'base64').toString('utf8'),
        token: config.users[0]?.user.token ?? '',
      };
      expect((await get(server, '/openapi/v3')).status).toBe(404);
      expect((await get(server, '/api/v1')).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
