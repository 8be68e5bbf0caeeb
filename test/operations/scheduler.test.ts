// What a scheduler acts on without reading messages: created or taken over, a partly present job,
// codes and outcomes before anything is sent, labels, and Templates held as objects (`oc process -f`).
import { tracingChannel } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { workerTemplate } from '../../simulator/seed.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const KINDS = [
  ['v1', 'ConfigMap', 'configmaps', '-config'],
  ['v1', 'Secret', 'secrets', '-credentials'],
  ['kubevirt.io/v1', 'VirtualMachine', 'virtualmachines', ''],
] as const;

/** What the server holds of one worker's three objects. */
function stored(vm: string, namespace = 'workers'): (Record<string, unknown> | undefined)[] {
  return KINDS.map(([apiVersion, kind, , suffix]) =>
    h.sim.getObject(apiVersion, kind, namespace, `${vm}${suffix}`),
  );
}

/** The statuses the server sent for one method, in order. */
function statuses(method: string): number[] {
  return h.sim.log.filter((e) => e.method === method).map((e) => e.status);
}

/**
 * One worker's applies: the pre-flight's dry runs, each object's in rendered order (they are sent
 * at once, so they may arrive in any order), then the writes as they came.
 */
function applies(vm: string): { dryRuns: (number | undefined)[]; writes: number[] } {
  const patches = h.sim.log.filter((e) => e.method === 'PATCH');
  const dryRuns = KINDS.map(
    ([, , plural, suffix]) =>
      patches.find((e) => e.query.dryRun === 'All' && e.path.endsWith(`/${plural}/${vm}${suffix}`))?.status,
  );
  expect(patches.filter((e) => e.query.dryRun === 'All')).toHaveLength(KINDS.length);
  return { dryRuns, writes: patches.filter((e) => e.query.dryRun === undefined).map((e) => e.status) };
}

describe('created: whether create() made the object or took it over', () => {
  test('an object someone else made is taken over (200) with adopt: true, the others are created (201)', async () => {
    h.sim.seed(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'tk-config', namespace: 'workers' },
        data: { note: 'theirs' },
      },
      'someone-else',
    );
    h.sim.clearLog();
    const refs = await ocp.create(
      'worker-template',
      { VM_NAME: 'tk' },
      { ...WORKER, api, adopt: true, onWarning: () => undefined },
    );
    expect(applies('tk')).toEqual({ dryRuns: [200, 201, 201], writes: [200, 201, 201] });
    expect(refs.map((r) => r.created)).toEqual([false, true, true]);
    // Replayed: everything existed already.
    h.sim.clearLog();
    const again = await ocp.create('worker-template', { VM_NAME: 'tk' }, { ...WORKER, api });
    expect(applies('tk')).toEqual({ dryRuns: [200, 200, 200], writes: [200, 200, 200] });
    expect(again.map((r) => r.created)).toEqual([false, false, false]);
    await ocp.delete({ namespace: 'workers', resources: refs, api });
  });

  test('under dryRun it says whether the apply would have created the object', async () => {
    h.sim.clearLog();
    const refs = await ocp.create('worker-template', { VM_NAME: 'dry-c' }, { ...WORKER, api, dryRun: true });
    // The pre-flight's wave is the whole call: no write.
    expect(applies('dry-c')).toEqual({ dryRuns: [201, 201, 201], writes: [] });
    expect(refs.map((r) => r.created)).toEqual([true, true, true]);
    expect(stored('dry-c')).toEqual([undefined, undefined, undefined]);
  });

  test("an Apply OperationError's resources carry created too", async () => {
    // The Secret's write (its second PATCH), after the pre-flight passed.
    h.sim.addFault({
      method: 'PATCH',
      path: /\/secrets\/half-credentials$/,
      nth: 2,
      action: { type: 'status', code: 403, reason: 'Forbidden', message: 'no' },
    });
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.create('worker-template', { VM_NAME: 'half' }, { ...WORKER, api })),
      ocp.OperationError,
    );
    h.sim.clearFaults();
    expect(applies('half')).toEqual({ dryRuns: [201, 201, 201], writes: [201, 403] });
    expect(error.code).toBe('OTC_APPLY_FAILED');
    expect(error.resources.map((r) => r.created)).toEqual([true]);
    const failure = instance(error.failures[0]?.error, ocp.RequestError);
    expect([failure.statusCode, failure.code, failure.outcome]).toEqual([403, 'OTC_FORBIDDEN', 'refused']);
    await ocp.delete('worker-template', { VM_NAME: 'half' }, { ...WORKER, api });
  });
});

describe("get(..., { missing: 'null' })", () => {
  test('a partly present job: null where the server answers 404, in both modes', async () => {
    const refs = await ocp.create('worker-template', { VM_NAME: 'part' }, { ...WORKER, api });
    await ocp.delete({ namespace: 'workers', resources: refs.slice(1, 2), api });
    h.sim.clearLog();
    const live = await ocp.get('worker-template', { VM_NAME: 'part' }, { ...WORKER, api, missing: 'null' });
    expect(live.map((o) => o?.metadata?.name ?? null)).toEqual(['part-config', null, 'part']);
    const byRef = await ocp.get({ namespace: 'workers', resources: refs, api, missing: 'null' });
    expect(byRef.map((o) => o?.metadata?.uid ?? null)).toEqual([refs[0]?.uid, null, refs[2]?.uid]);
    expect(statuses('GET').filter((s) => s === 404)).toHaveLength(2);
    // The default is unchanged: the first 404 rejects.
    const missing = instance(
      await rejection(ocp.get({ namespace: 'workers', resources: refs, api })),
      ocp.RequestError,
    );
    expect([missing.statusCode, missing.code, missing.outcome]).toEqual([404, 'OTC_NOT_FOUND', 'refused']);
    await ocp.delete({ namespace: 'workers', resources: refs, api });
  });

  test('a namespace that is gone: one null per object, from the processing 404', async () => {
    h.sim.clearLog();
    const options = { namespace: 'gone', templateNamespace: 'infra', api } as const;
    const live = await ocp.get('worker-template', { VM_NAME: 'w' }, { ...options, missing: 'null' });
    expect(live).toEqual([null, null, null]);
    expect(h.sim.log.map((e) => `${e.method} ${e.status}`)).toEqual(['GET 200', 'POST 404']);
    const refs = KINDS.map(([apiVersion, kind, , suffix]) => ({
      apiVersion,
      kind,
      namespace: 'gone',
      name: `w${suffix}`,
    }));
    expect(await ocp.get({ namespace: 'gone', resources: refs, api, missing: 'null' })).toEqual([
      null,
      null,
      null,
    ]);
    const error = instance(
      await rejection(ocp.get('worker-template', { VM_NAME: 'w' }, options)),
      ocp.RequestError,
    );
    expect([error.step, error.statusCode]).toEqual(['Process', 404]);
  });

  test('reference mode: a live object with another UID is null (the saved one is gone)', async () => {
    const refs = await ocp.create('worker-template', { VM_NAME: 'uid' }, { ...WORKER, api });
    await ocp.delete({ namespace: 'workers', resources: refs.slice(0, 1), api });
    await ocp.create('worker-template', { VM_NAME: 'uid' }, { ...WORKER, api });
    h.sim.clearLog();
    const live = await ocp.get({ namespace: 'workers', resources: refs, api, missing: 'null' });
    expect(live.map((o) => (o === null ? null : o.kind))).toEqual([null, 'Secret', 'VirtualMachine']);
    expect(statuses('GET')).toEqual([200, 200, 200]);
    const replaced = instance(
      await rejection(ocp.get({ namespace: 'workers', resources: refs, api })),
      ocp.RequestError,
    );
    expect([replaced.statusCode, replaced.code, replaced.outcome]).toEqual([
      undefined,
      'OTC_REPLACED',
      'refused',
    ]);
    await ocp.delete('worker-template', { VM_NAME: 'uid' }, { ...WORKER, api });
  });
});

describe('codes and outcomes when nothing is sent', () => {
  test('a signal that has already fired: not-sent, and the server saw nothing', async () => {
    h.sim.clearLog();
    const error = instance(
      await rejection(
        ocp.create('worker-template', { VM_NAME: 'x' }, { ...WORKER, api, signal: AbortSignal.abort() }),
      ),
      ocp.RequestError,
    );
    expect([error.code, error.outcome, error.name]).toEqual(['OTC_ABORTED', 'not-sent', 'AbortError']);
    expect(h.sim.log).toHaveLength(0);
  });

  test('a Connection closed during the call: OTC_CONNECTION_CLOSED', async () => {
    const closing = await h.connect();
    const running = ocp.get({
      namespace: 'workers',
      resources: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'a' }],
      api: closing,
    });
    // Observed before close(): the call may reject while close() is still under way.
    const settled = rejection(running);
    await closing.close();
    const error = await settled;
    h.sim.clearLog();
    // Discovery or the GET may have been in flight when close() came: either way the code says so.
    expect(instance(error, ocp.RequestError).code).toBe('OTC_CONNECTION_CLOSED');
  });

  test('a proxy URL that cannot be used is the environment, not the call: OTC_PROXY_CONFIG', async () => {
    const kubeconfig = await h.kubeconfigWith((config) => {
      const cluster = config.clusters[0]?.cluster as Record<string, unknown>;
      cluster['proxy-url'] = 'ftp://127.0.0.1:21';
    });
    h.sim.clearLog();
    const error = instance(await rejection(ocp.connect({ kubeconfig })), ocp.ValidationError);
    expect(error.code).toBe('OTC_PROXY_CONFIG');
    expect(h.sim.log).toHaveLength(0);
  });

  test('bad input and an environment problem: the environment code wins', async () => {
    h.sim.seedTemplate(
      'mixed',
      [],
      [
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } },
      ],
    );
    const both = instance(await rejection(ocp.create('mixed', {}, { ...WORKER, api })), ocp.ValidationError);
    expect(both.code).toBe('OTC_KIND_NOT_SERVED');
    expect(both.issues.some((i) => i.includes('is not served'))).toBe(true);
    expect(both.issues.some((i) => i.includes('generateName'))).toBe(true);
    h.sim.seedTemplate(
      'unsafe',
      [],
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } }],
    );
    const unsafe = instance(
      await rejection(ocp.create('unsafe', {}, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(unsafe.code).toBe('OTC_UNSAFE_OBJECT');
    const argument = instance(await rejection(ocp.create('', {}, { ...WORKER, api })), ocp.ValidationError);
    expect(argument.code).toBe('OTC_INVALID_ARGUMENT');
    expect(h.sim.mutations().filter((e) => e.method !== 'POST')).toHaveLength(0);
  });
});

describe('labels, as oc process -l adds them', () => {
  test('on every stored object, the caller winning over the Template; a replay without them deletes all', async () => {
    h.sim.clearLog();
    const labels = { team: 'blue', worker: 'override' };
    await ocp.create('worker-template', { VM_NAME: 'lab' }, { ...WORKER, api, labels });
    const sent = JSON.parse(h.sim.log.find((e) => e.method === 'POST')?.body ?? '{}') as { labels?: unknown };
    expect(sent.labels).toEqual({
      'app.kubernetes.io/managed-by': 'mini-scheduler',
      worker: 'override',
      team: 'blue',
    });
    // The library's owner label beside them (rule 23).
    for (const object of stored('lab'))
      expect((object?.metadata as { labels?: unknown }).labels).toEqual({
        'app.kubernetes.io/managed-by': 'mini-scheduler',
        worker: 'override',
        team: 'blue',
        'openshift-template-client/field-manager': 'mini-scheduler',
      });
    expect(await ocp.delete('worker-template', { VM_NAME: 'lab' }, { ...WORKER, api })).toHaveLength(3);
    expect(stored('lab')).toEqual([undefined, undefined, undefined]);
  });

  test('bad label syntax and labels in reference mode are refused before any request', async () => {
    h.sim.clearLog();
    const bad = instance(
      await rejection(
        ocp.create(
          'worker-template',
          { VM_NAME: 'l' },
          { ...WORKER, api, labels: { 'a/b/c': 'x', ok: 'no spaces' } },
        ),
      ),
      ocp.ValidationError,
    );
    expect(bad.issues).toHaveLength(2);
    expect(bad.code).toBe('OTC_INVALID_ARGUMENT');
    const mixed = {
      namespace: 'workers',
      resources: [],
      api,
      labels: { a: 'b' },
    } as unknown as ocp.ReferenceGetOptions;
    expect(instance(await rejection(ocp.get(mixed)), ocp.ValidationError).code).toBe('OTC_INVALID_ARGUMENT');
    expect(h.sim.log).toHaveLength(0);
  });
});

describe('a Template object in place of a name (oc process -f)', () => {
  /** A legacy Template as `oc get -o json` would have saved it, server-set metadata included. */
  function saved(): ocp.TemplateObject {
    const template = workerTemplate('elsewhere') as unknown as ocp.TemplateObject;
    return {
      ...template,
      apiVersion: 'v1',
      metadata: {
        ...template.metadata,
        uid: 'f00',
        resourceVersion: '42',
        creationTimestamp: '2020-01-01T00:00:00Z',
      },
    };
  }

  test('through all four operations and a replayed delete from a new Connection', async () => {
    const template = saved();
    const before = structuredClone(template);
    h.sim.clearLog();
    const objects = await ocp.process(template, { VM_NAME: 'obj' }, { namespace: 'workers', api });
    expect(objects.map((o) => o.metadata?.name)).toEqual(['obj-config', 'obj-credentials', 'obj']);
    const refs = await ocp.create(template, { VM_NAME: 'obj' }, { namespace: 'workers', api });
    expect(refs.map((r) => r.created)).toEqual([true, true, true]);
    const live = await ocp.get(template, { VM_NAME: 'obj' }, { namespace: 'workers', api });
    expect(live.map((o) => o.metadata?.uid)).toEqual(refs.map((r) => r.uid));
    // No stored Template was read; each processing POST carried the object as the server takes it.
    expect(h.sim.log.some((e) => e.path.includes('/templates/'))).toBe(false);
    const posts = h.sim.log.filter((e) => e.method === 'POST');
    expect(posts).toHaveLength(3);
    for (const post of posts) {
      const body = JSON.parse(post.body) as { apiVersion: string; metadata: Record<string, unknown> };
      expect(body.apiVersion).toBe('template.openshift.io/v1');
      expect(body.metadata).toEqual({ name: 'worker-template' });
    }
    expect(template).toEqual(before);
    {
      await using fresh = await h.connect();
      const deleted = await ocp.delete(saved(), { VM_NAME: 'obj' }, { namespace: 'workers', api: fresh });
      expect(deleted.map((r) => r.name)).toEqual(['obj', 'obj-credentials', 'obj-config']);
    }
    expect(stored('obj')).toEqual([undefined, undefined, undefined]);
  });

  test('the operation trace names it by metadata.name, with no templateNamespace', async () => {
    const channel = tracingChannel<unknown, Record<string, unknown>>('openshift-template-client:operation');
    const started: Record<string, unknown>[] = [];
    const ignore = (): void => undefined;
    const handlers = {
      start: (context: Record<string, unknown>): void => {
        started.push({ ...context });
      },
      end: ignore,
      asyncStart: ignore,
      asyncEnd: ignore,
      error: ignore,
    };
    channel.subscribe(handlers);
    try {
      await ocp.process(saved(), { VM_NAME: 'traced' }, { namespace: 'workers', api });
    } finally {
      channel.unsubscribe(handlers);
    }
    expect(started).toEqual([
      {
        operation: 'process',
        mode: 'template',
        namespace: 'workers',
        templateName: 'worker-template',
        dryRun: false,
      },
    ]);
  });

  test('templateNamespace is refused with an object, and errors name it by metadata.name', async () => {
    h.sim.clearLog();
    const withNamespace = instance(
      await rejection(ocp.process(saved(), {}, { namespace: 'workers', templateNamespace: 'infra', api })),
      ocp.ValidationError,
    );
    expect(withNamespace.code).toBe('OTC_INVALID_ARGUMENT');
    expect(h.sim.log).toHaveLength(0);
    const undeclared = instance(
      await rejection(ocp.process(saved(), { NOPE: 'x' }, { namespace: 'workers', api })),
      ocp.ValidationError,
    );
    expect(undeclared.message.startsWith('process worker-template:')).toBe(true);
  });
});
