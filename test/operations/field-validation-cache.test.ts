// Where create()'s schemas come from (issue #27): /openapi/v3's root once per Connection, each
// group-version's document once per hash for the whole process, all before the first PATCH; a
// kind added later found under its new hash; a server without /openapi/v3; operations that never
// fetch a schema; and a Secret-bound parameter value that never reaches an issue, warning or debug
// line. Each test has a simulator of its own, so the process-wide documents start empty for it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject, LogEntry, SimulatorOptions } from '../../simulator/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import { collect, objectMutations, outlast } from './typing-helpers.ts';

const keep = closedAfterAll();
const fresh = async (options: SimulatorOptions = {}): Promise<Harness> => keep(await harness(options));

const ROOT = '/openapi/v3';
const schemaGets = (h: Harness): LogEntry[] =>
  h.sim.log.filter((e) => e.method === 'GET' && (e.path === ROOT || e.path.startsWith(`${ROOT}/`)));
const roots = (h: Harness): LogEntry[] => schemaGets(h).filter((e) => e.path === ROOT);
const documents = (h: Harness): LogEntry[] => schemaGets(h).filter((e) => e.path !== ROOT);
const documentPaths = (h: Harness): string[] =>
  documents(h)
    .map((e) => e.path)
    .sort();
describe('documents', () => {
  test('fetched once over many creates, shared by a second Connection, all before the first PATCH', async () => {
    const h = await fresh();
    await using first = await h.connect();
    await ocp.create('worker-template', { VM_NAME: 'c-0' }, { ...WORKER, api: first });
    expect(roots(h)).toHaveLength(1);
    expect(documentPaths(h)).toEqual([`${ROOT}/api/v1`, `${ROOT}/apis/kubevirt.io/v1`]);
    for (const entry of documents(h)) expect(entry.query.hash).toMatch(/^[0-9A-F]{128}$/);
    const firstPatch = h.sim.log.find((e) => e.method === 'PATCH')?.seq ?? 0;
    expect(schemaGets(h).every((e) => e.seq < firstPatch && e.status === 200)).toBe(true);
    const root = roots(h)[0]?.seq ?? 0;
    expect(documents(h).every((e) => e.seq > root)).toBe(true);

    for (let i = 1; i <= 4; i++)
      await ocp.create('worker-template', { VM_NAME: `c-${i}` }, { ...WORKER, api: first });
    expect(schemaGets(h)).toHaveLength(3);
    // Five creates of three objects: each object's pre-flight dry run and its write.
    expect(h.sim.log.filter((e) => e.method === 'PATCH')).toHaveLength(30);

    // A Connection that a handler opens per job: the root again, the documents from the process.
    h.sim.clearLog();
    await using second = await h.connect();
    await ocp.create('worker-template', { VM_NAME: 'c-5' }, { ...WORKER, api: second });
    await ocp.create('worker-template', { VM_NAME: 'c-6' }, { ...WORKER, api: second });
    expect(schemaGets(h).map((e) => e.path)).toEqual([ROOT]);
    expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'c-6')).toBeDefined();
  });

  test('Connections whose first creates overlap download each document once between them', async () => {
    const h = await fresh();
    // A slow document keeps the first download in flight while the other Connections reach theirs.
    h.sim.addFault({ path: /^\/openapi\/v3\/./, action: { type: 'delay', ms: 1_500 } });
    const apis = await Promise.all([h.connect(), h.connect(), h.connect()]);
    try {
      await Promise.all(
        apis.map((api, i) => ocp.create('worker-template', { VM_NAME: `s-${i}` }, { ...WORKER, api })),
      );
    } finally {
      for (const api of apis) await api.close();
    }
    expect(roots(h)).toHaveLength(3);
    expect(documentPaths(h)).toEqual([`${ROOT}/api/v1`, `${ROOT}/apis/kubevirt.io/v1`]);
    for (const i of [0, 1, 2])
      expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', `s-${i}`)).toBeDefined();
  });

  test('a shared download that fails leaves the Connection waiting on it to ask for itself', async () => {
    const h = await fresh();
    const core = `${ROOT}/api/v1`;
    const coreGets = (): LogEntry[] => documents(h).filter((e) => e.path === core);
    h.sim.addFault({ path: core, nth: 1, action: { type: 'hang' } });
    const first = await h.connect();
    await using second = await h.connect();
    const stuck = rejection(ocp.create('worker-template', { VM_NAME: 'f-0' }, { ...WORKER, api: first }));
    expect(await settles(() => coreGets().length, 1)).toBe(1);
    const waiting = ocp.create('worker-template', { VM_NAME: 'f-1' }, { ...WORKER, api: second });
    expect(await settles(() => roots(h).length, 2)).toBe(2);
    // The second Connection waits on the first one's download instead of sending its own.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(coreGets()).toHaveLength(1);

    await first.close();
    expect(instance(await stuck, ocp.RequestError).code).toBe('OTC_CONNECTION_CLOSED');
    await waiting;
    expect(coreGets().map((e) => e.status)).toEqual([0, 200]);
    expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'f-1')).toBeDefined();
  });

  test('a kind added to a group-version later is found: the root read again, the new hash fetched', async () => {
    const h = await fresh();
    const kind = (name: string, property: string): Parameters<typeof h.sim.addResource>[0] => ({
      group: 'example.com',
      version: 'v1',
      plural: `${name.toLowerCase()}s`,
      kind: name,
      schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { [property]: { type: 'string' } } } },
      },
    });
    const object = (name: string, kind: string, spec: JsonObject): JsonObject => ({
      apiVersion: 'example.com/v1',
      kind,
      metadata: { name },
      spec,
    });
    h.sim.addResource(kind('Gadget', 'size'));
    h.sim.seedTemplate('gadget', [], [object('g', 'Gadget', { size: 'big' })]);
    await using api = await h.connect();
    await ocp.create('gadget', {}, { ...WORKER, api });
    const before = documents(h).find((e) => e.path === `${ROOT}/apis/example.com/v1`)?.query.hash;
    expect(before).toMatch(/^[0-9A-F]{128}$/);

    h.sim.addResource(kind('Widget', 'color'));
    h.sim.seedTemplate('widget', [], [object('w', 'Widget', { color: 'blue' })]);
    await outlast();
    h.sim.clearLog();
    await ocp.create('widget', {}, { ...WORKER, api });
    expect(h.sim.getObject('example.com/v1', 'Widget', 'workers', 'w')?.spec).toEqual({ color: 'blue' });
    expect(roots(h)).toHaveLength(1);
    const after = documents(h);
    expect(after.map((e) => e.path)).toEqual([`${ROOT}/apis/example.com/v1`]);
    expect(after[0]?.query.hash).toMatch(/^[0-9A-F]{128}$/);
    expect(after[0]?.query.hash).not.toBe(before);

    // Typed against the new document: its undeclared field is named, nothing applied.
    h.sim.seedTemplate('widget-typo', [], [object('w2', 'Widget', { colour: 'blue' })]);
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.create('widget-typo', {}, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(error.code).toBe('OTC_UNSAFE_OBJECT');
    expect(error.issues).toEqual([
      'Widget "w2" in namespace "workers": .spec.colour: field not declared in schema',
    ]);
    expect(objectMutations(h)).toEqual([]);
  });

  test('a refusal reads the root again, once in the operation; the hash unchanged, no document', async () => {
    const h = await fresh();
    h.sim.seedTemplate(
      'typo',
      [],
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typo' }, extra: 'x', data: {} }],
    );
    await using api = await h.connect();
    await ocp.create('worker-template', { VM_NAME: 'r-0' }, { ...WORKER, api });
    await outlast();
    h.sim.clearLog();
    const error = instance(await rejection(ocp.create('typo', {}, { ...WORKER, api })), ocp.ValidationError);
    expect(error.issues).toEqual([
      'ConfigMap "typo" in namespace "workers": .extra: field not declared in schema',
    ]);
    expect(schemaGets(h).map((e) => e.path)).toEqual([ROOT]);
  });
});

describe('a server without /openapi/v3', () => {
  test('Strict applies as before, saying once per Connection and group-version that nothing was typed', async () => {
    const h = await fresh({ openapiV3: false });
    const untyped = (seen: ocp.ServerWarning[]): ocp.ServerWarning[] =>
      seen.filter((w) => w.code === 'OTC_APPLIED_UNTYPED');
    for (const names of [
      ['u-1', 'u-2'],
      ['u-3', 'u-4'],
    ]) {
      const { seen, handler } = collect();
      await using api = await h.connect({ onWarning: handler });
      for (const name of names) await ocp.create('worker-template', { VM_NAME: name }, { ...WORKER, api });
      const said = untyped(seen);
      // One for v1 (the ConfigMap and the Secret), one for kubevirt.io/v1 (the VirtualMachine).
      expect(said).toHaveLength(2);
      expect(new Set(said.map((w) => w.text)).size).toBe(2);
      for (const warning of said)
        expect(warning).toEqual({ code: 'OTC_APPLIED_UNTYPED', operation: 'create', text: warning.text });
      expect(said.every((w) => w.text.includes('applied without being typed first'))).toBe(true);
      for (const name of names) {
        expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', name)).toBeDefined();
      }
    }
  });

  test.each(['Warn', 'Ignore'] as const)(
    '%s: OTC_SCHEMA_UNAVAILABLE before any mutation (nothing can be dropped without the schema)',
    async (fieldValidation) => {
      const h = await fresh({ openapiV3: false });
      await using api = await h.connect();
      const error = instance(
        await rejection(
          ocp.create('worker-template', { VM_NAME: 'blind' }, { ...WORKER, api, fieldValidation }),
        ),
        ocp.ValidationError,
      );
      expect(error.code).toBe('OTC_SCHEMA_UNAVAILABLE');
      expect(objectMutations(h)).toEqual([]);
      expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'blind-config')).toBeUndefined();
    },
  );
});

describe('a group-version the root does not list', () => {
  test('Strict applies its objects untyped, saying so, never before a refusal; Warn is OTC_SCHEMA_UNAVAILABLE', async () => {
    const h = await fresh();
    await (async () => {
      await using first = await h.connect();
      await ocp.create('worker-template', { VM_NAME: 'listed' }, { ...WORKER, api: first });
    })();
    const v1 = documents(h).find((e) => e.path === `${ROOT}/api/v1`);
    // A root that lists api/v1 only, at the hash the server really serves it under.
    const url = `${ROOT}/api/v1?hash=${String(v1?.query.hash)}`;
    h.sim.addFault({
      method: 'GET',
      path: ROOT,
      action: {
        type: 'raw',
        code: 200,
        contentType: 'application/json',
        body: JSON.stringify({ paths: { 'api/v1': { serverRelativeURL: url } } }),
      },
    });
    h.sim.clearLog();
    const { seen, handler } = collect();
    await using api = await h.connect({ onWarning: handler });
    await ocp.create('worker-template', { VM_NAME: 'unlisted' }, { ...WORKER, api });
    const untyped = seen.filter((w) => w.text.includes('applied without being typed first'));
    expect(untyped).toHaveLength(1);
    expect(untyped[0]?.text).toContain('kubevirt.io/v1');
    expect(untyped[0]).not.toHaveProperty('target');
    expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'unlisted')).toBeDefined();
    expect(documents(h)).toEqual([]);
    h.sim.clearLog();
    const error = instance(
      await rejection(
        ocp.create('worker-template', { VM_NAME: 'dropped' }, { ...WORKER, api, fieldValidation: 'Warn' }),
      ),
      ocp.ValidationError,
    );
    expect(error.code).toBe('OTC_SCHEMA_UNAVAILABLE');
    expect(objectMutations(h)).toEqual([]);
    // Refused for another object: nothing is applied, so nothing is said to be applied untyped,
    // and the Connection's one warning for the group-version is still to come.
    const { seen: later, handler: onLater } = collect();
    await using third = await h.connect({ onWarning: onLater });
    const vm = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'mixed-vm' } };
    const mixed = (configMap: JsonObject): ocp.TemplateObject => ({
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'mixed' },
      objects: [configMap, vm],
    });
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mixed-config' } };
    const refusal = instance(
      await rejection(ocp.create(mixed({ ...config, id: 'x' }), {}, { namespace: 'workers', api: third })),
      ocp.ValidationError,
    );
    expect(refusal.issues).toEqual([
      'ConfigMap "mixed-config" in namespace "workers": .id: field not declared in schema',
    ]);
    expect(later).toEqual([]);
    expect(objectMutations(h)).toEqual([]);
    await ocp.create(mixed(config), {}, { namespace: 'workers', api: third });
    expect(later.map((w) => w.text)).toEqual([expect.stringContaining('applied without being typed first')]);
  });
});

describe('a schema request that fails', () => {
  test.each([
    ['the root', /^\/openapi\/v3$/, 'Schema /openapi/v3: 500'],
    ['a document', /^\/openapi\/v3\/apis\/kubevirt\.io\/v1$/, 'Schema kubevirt.io/v1: 500'],
  ])('%s: the create fails before any mutation, naming the step and the target', async (_, path, start) => {
    const h = await fresh();
    h.sim.addFault({ method: 'GET', path, action: { type: 'status', code: 500, message: 'etcd down' } });
    await using api = await h.connect();
    const error = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'failed' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    expect(error.message.startsWith(start), error.message).toBe(true);
    expect(error.message).toContain('etcd down');
    expect(objectMutations(h)).toEqual([]);
  });

  test('a document that is not JSON fails the create; an empty one (an unknown group-version) is missing', async () => {
    const h = await fresh();
    const path = /^\/openapi\/v3\/apis\/kubevirt\.io\/v1$/;
    const raw = (body: string) =>
      ({ type: 'raw', code: 200, contentType: 'application/json', body }) as const;
    h.sim.addFault({ method: 'GET', path, times: 1, action: raw('<html>gateway</html>') });
    await using api = await h.connect();
    const error = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'garbled' }, { ...WORKER, api })),
      ocp.RequestError,
    );
    expect(error.message).toMatch(/^Schema kubevirt\.io\/v1: 200: the response is not a JSON object/);
    expect(error.code).toBe('OTC_BAD_RESPONSE');
    expect(objectMutations(h)).toEqual([]);
    h.sim.addFault({ method: 'GET', path, action: raw('') });
    const { seen, handler } = collect();
    await ocp.create('worker-template', { VM_NAME: 'empty' }, { ...WORKER, api, onWarning: handler });
    expect(seen.map((w) => w.text)).toContain(
      "kubevirt.io/v1 objects are applied without being typed first: the server's OpenAPI v3 document for kubevirt.io/v1 answered an empty 200",
    );
    expect(h.sim.getObject('kubevirt.io/v1', 'VirtualMachine', 'workers', 'empty')).toBeDefined();
  });
});

test('process(), get() and both deletes fetch no schema; create() on the same Connection does', async () => {
  const h = await fresh();
  const params = { VM_NAME: 'read-only' };
  const refs = await (async () => {
    await using creator = await h.connect();
    return await ocp.create('worker-template', params, { ...WORKER, api: creator });
  })();
  h.sim.clearLog();
  await using api = await h.connect();
  await ocp.process('worker-template', params, { ...WORKER, api });
  await ocp.get('worker-template', params, { ...WORKER, api });
  await ocp.get({ namespace: 'workers', resources: refs, api });
  await ocp.delete({ namespace: 'workers', resources: refs, api, dryRun: true });
  await ocp.delete({ namespace: 'workers', resources: refs, api });
  await ocp.delete('worker-template', params, { ...WORKER, api });
  // The replay reads its objects first: the reference-mode delete removed them, so it sends no DELETE.
  expect(h.sim.log.filter((e) => e.method === 'DELETE')).toHaveLength(6);
  expect(schemaGets(h)).toEqual([]);
  await ocp.create('worker-template', params, { ...WORKER, api });
  expect(roots(h)).toHaveLength(1);
});

test('a Secret-bound parameter value never reaches an issue, a warning or a debug line', async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['test/fixtures/field-validation-secrets.ts'],
    { env: { ...process.env, NODE_DEBUG: 'openshift-templates' }, maxBuffer: 32 * 1024 * 1024 },
  );
  const output = stdout + stderr;
  for (const sentinel of ['918273645501', 'SENTINEL-FV-7d1e']) {
    expect(output).not.toContain(sentinel);
    expect(output).not.toContain(Buffer.from(sentinel).toString('base64'));
  }
  // The scenarios really ran into typing, and said so.
  const seen = JSON.parse(stdout) as string[];
  const text = seen.join('\n');
  // The quoted sentinel, as given and as a typing path quotes it.
  for (const form of ['qv"7a', 'qv\\"7a', '2931'])
    for (const where of [text, stderr]) expect(where).not.toContain(form);
  expect(text).toContain(
    'Deployment "keyed" in namespace "workers": .spec.template.spec.containers[name="[redacted]"].capabilities: field not declared in schema',
  );
  expect(text).toContain('Secret "carrier" in namespace "workers": .extra: field not declared in schema');
  expect(text).toContain(
    'Secret "mistyped" in namespace "workers": .immutable: expected boolean, got number',
  );
  expect(text).toContain('unknown field ".extra" removed from Secret "carrier" in namespace "workers"');
  expect(seen.filter((s) => s === 'ok')).toHaveLength(3);
  expect(stderr).toMatch(
    /OPENSHIFT-TEMPLATES \d+: PATCH \/api\/v1\/namespaces\/workers\/secrets\/carrier 20\d/,
  );
  // Ignore's removal is a debug line that names the path only.
  expect(stderr).toMatch(/OPENSHIFT-TEMPLATES \d+: .*\.extra/);
});
