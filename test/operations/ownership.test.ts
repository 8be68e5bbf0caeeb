// What is the job's own (issue #42 items 0-5, 9): the owner label every applied object carries
// decides it, managedFields name the other declarers. create() refuses to take over another's
// object unless told to; a replay deletes what is the job's own pinned to what it read, relinquishes
// what another declares too, and refuses a replay under another manager's mark. Asserted on what
// the simulator holds and its request log.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { call } from '../simulator/client.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearFaults();
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const CONFIGMAPS = '/api/v1/namespaces/workers/configmaps';

function configMap(name: string): JsonObject | undefined {
  return h.sim.getObject('v1', 'ConfigMap', 'workers', name);
}
const labelsOf = (object: JsonObject | undefined): unknown =>
  (object?.metadata as { labels?: unknown }).labels;

/** Another manager's server-side apply of a ConfigMap, over its own HTTPS request. */
async function applyAs(manager: string, name: string, data: Record<string, string>, force = false) {
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'workers' }, data };
  const query = `fieldManager=${manager}${force ? '&force=true' : ''}`;
  const answer = await call(h.sim, 'PATCH', `${CONFIGMAPS}/${name}?${query}`, {
    body,
    contentType: 'application/apply-patch+yaml',
  });
  expect(answer.status).toBeLessThan(300);
}

const writes = (): string[] =>
  h.sim.log
    .filter((e) => (e.method === 'PATCH' || e.method === 'DELETE') && e.query.dryRun === undefined)
    .map((e) => `${e.method} ${e.path.split('/').at(-1) ?? ''} ${e.status}`);

describe('create() does not take over another manager object', () => {
  test('refused with nothing written, in either pre-flight and under dryRun; adopt: true takes it over', async () => {
    h.sim.seed(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'own-1-config', namespace: 'workers' },
        data: { note: 'theirs' },
      },
      'kubectl-create',
    );
    const params = { VM_NAME: 'own-1' };
    for (const extra of [{}, { preflight: 'schema' as const }, { dryRun: true }]) {
      const error = instance(
        await rejection(ocp.create('worker-template', params, { ...WORKER, api, ...extra })),
        ocp.OperationError,
      );
      expect([error.operation, error.code, error.outcome, error.resources]).toEqual([
        'Preflight',
        'OTC_PREFLIGHT_REFUSED',
        'refused',
        [],
      ]);
      expect(error.failures.map((f) => [f.resource.name, f.error.code, f.error.outcome])).toEqual([
        ['own-1-config', 'OTC_NOT_ADOPTED', 'refused'],
      ]);
      expect(error.failures[0]?.error.message).toContain('"kubectl-create" (Update)');
    }
    expect(writes()).toEqual([]);
    expect(configMap('own-1-config')?.data).toEqual({ note: 'theirs' });

    const warnings: ocp.ServerWarning[] = [];
    const refs = await ocp.create('worker-template', params, {
      ...WORKER,
      api,
      adopt: true,
      onWarning: (w) => warnings.push(w),
    });
    expect(refs.map((r) => [r.kind, r.created])).toEqual([
      ['ConfigMap', false],
      ['Secret', true],
      ['VirtualMachine', true],
    ]);
    expect(warnings.map((w) => [w.code, w.target?.name])).toEqual([['OTC_ADOPTED', 'own-1-config']]);
    // A retry of the same job manages its objects already: never refused.
    await ocp.create('worker-template', params, { ...WORKER, api });

    // The replay gives the adopted object back to its first manager instead of deleting it.
    const results = await ocp.delete('worker-template', params, WORKER);
    expect(results.map((r) => [r.kind, r.deletion, r.declarers])).toEqual([
      ['VirtualMachine', 'deleted', undefined],
      ['Secret', 'deleted', undefined],
      ['ConfigMap', 'relinquished', ['kubectl-create']],
    ]);
    const kept = configMap('own-1-config');
    expect(kept?.data).toEqual({ note: 'theirs' });
    expect(labelsOf(kept)).toBeUndefined();
  });
  test('a refusal comes before any warning that the objects will be applied unverified', async () => {
    h.sim.seed(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'own-7-config', namespace: 'workers' },
        data: {},
      },
      'kubectl-create',
    );
    const template: ocp.TemplateObject = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'own-7' },
      objects: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own-7-config' }, data: { a: 'b' } },
        {
          apiVersion: 'image.openshift.io/v1',
          kind: 'ImageStreamTag',
          metadata: { name: 'own-7:latest' },
          tag: { from: { kind: 'DockerImage', name: 'quay.io/example/app:1' } },
        },
      ],
    };
    const warnings: ocp.ServerWarning[] = [];
    const onWarning = (w: ocp.ServerWarning): number => warnings.push(w);
    const error = instance(
      await rejection(ocp.create(template, {}, { namespace: 'workers', api, onWarning })),
      ocp.OperationError,
    );
    expect(error.failures.map((f) => [f.resource.name, f.error.code])).toEqual([
      ['own-7-config', 'OTC_NOT_ADOPTED'],
    ]);
    expect(warnings).toEqual([]);
    expect(writes()).toEqual([]);
  });
});

describe('a replay delete', () => {
  test('relinquishes an object another manager also declares, naming it', async () => {
    const params = { VM_NAME: 'own-2' };
    await ocp.create('worker-template', params, { ...WORKER, api });
    await applyAs('other-team', 'own-2-config', { theirs: 'yes' });
    h.sim.clearLog();
    const results = await ocp.delete('worker-template', params, WORKER);
    expect(results.map((r) => [r.kind, r.deletion, r.declarers])).toEqual([
      ['VirtualMachine', 'deleted', undefined],
      ['Secret', 'deleted', undefined],
      ['ConfigMap', 'relinquished', ['other-team']],
    ]);
    // The identity alone, applied by this manager: its fields go, the other's stay.
    const relinquish = h.sim.log.find((e) => e.method === 'PATCH');
    expect([relinquish?.query, JSON.parse(relinquish?.body ?? '{}')]).toEqual([
      { fieldManager: 'mini-scheduler' },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own-2-config', namespace: 'workers' } },
    ]);
    expect(configMap('own-2-config')?.data).toEqual({ theirs: 'yes' });
    expect(labelsOf(configMap('own-2-config'))).toBeUndefined();
    // The last declarer's own replay (here its delete by name) then removes it: nothing leaks.
    const again = await ocp.delete('worker-template', params, WORKER);
    expect(again.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['VirtualMachine', 'already-gone', undefined],
      ['Secret', 'already-gone', undefined],
      ['ConfigMap', 'left-alone', 'not-owned'],
    ]);
    await ocp.delete({ namespace: 'workers', resources: [results[2] as ocp.ResourceRef], api });
  });

  test('an object another manager force-applies between the read and the DELETE survives', async () => {
    const params = { VM_NAME: 'own-3' };
    await ocp.create('worker-template', params, { ...WORKER, api });
    h.sim.clearLog();
    // The DELETE is held until the other manager's apply is stored: the race, made deterministic.
    h.sim.addFault({
      method: 'DELETE',
      path: `${CONFIGMAPS}/own-3-config`,
      nth: 1,
      action: { type: 'change-first', change: () => applyAs('other-team', 'own-3-config', { x: '1' }, true) },
    });
    const results = await ocp.delete('worker-template', params, { ...WORKER, api });
    expect(results.map((r) => [r.kind, r.deletion, r.declarers])).toEqual([
      ['VirtualMachine', 'deleted', undefined],
      ['Secret', 'deleted', undefined],
      ['ConfigMap', 'relinquished', ['other-team']],
    ]);
    expect(configMap('own-3-config')?.data).toMatchObject({ x: '1' });
    // The DELETE pinned to the read resourceVersion was refused; read again, decided again.
    const forIt = h.sim.log.filter((e) => e.path === `${CONFIGMAPS}/own-3-config`);
    expect(forIt.map((e) => `${e.method} ${e.status}`)).toEqual([
      'GET 200',
      'DELETE 409', // logged as it arrived, then held
      'PATCH 200', // the other manager's force-apply, while the DELETE is held
      'GET 200',
      'PATCH 200', // the relinquishing apply
    ]);
    await ocp.delete({ namespace: 'workers', resources: [results[2] as ocp.ResourceRef], api });
  });

  test('an object whose resourceVersion changes before every DELETE fails as still changing, kept', async () => {
    const params = { VM_NAME: 'own-4' };
    await ocp.create('worker-template', params, { ...WORKER, api });
    let writesByController = 0;
    h.sim.addFault({
      method: 'DELETE',
      path: `${CONFIGMAPS}/own-4-config`,
      action: {
        type: 'change-first',
        // A controller's Update: no reason to keep the object, but it moves the resourceVersion.
        change: async () => {
          writesByController += 1;
          const answer = await call(
            h.sim,
            'PATCH',
            `${CONFIGMAPS}/own-4-config?fieldManager=some-controller`,
            {
              body: { metadata: { annotations: { seen: String(writesByController) } } },
              contentType: 'application/merge-patch+json',
            },
          );
          expect(answer.status).toBe(200);
        },
      },
    });
    const error = instance(
      await rejection(ocp.delete('worker-template', params, { ...WORKER, api })),
      ocp.OperationError,
    );
    expect([error.code, error.outcome]).toEqual(['OTC_DELETE_FAILED', 'refused']);
    expect(error.failures.map((f) => [f.resource.name, f.error.code, f.error.outcome])).toEqual([
      ['own-4-config', 'OTC_STILL_CHANGING', 'refused'],
    ]);
    expect(error.operation === 'Delete' && error.resources.map((r) => r.deletion)).toEqual([
      'deleted',
      'deleted',
    ]);
    expect(writesByController).toBe(4);
    expect(configMap('own-4-config')).toBeDefined();
    h.sim.clearFaults();
    expect((await ocp.delete('worker-template', params, { ...WORKER, api })).map((r) => r.deletion)).toEqual([
      'already-gone',
      'already-gone',
      'deleted',
    ]);
  });

  test('after a crash part-way through create, a replay from a new process deletes every object of the job', async () => {
    // A bare ServiceAccount (its identity alone) among them: only the owner label marks it.
    const template: ocp.TemplateObject = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'crash' },
      objects: [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'own-5-account' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own-5-config' }, data: { a: 'b' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'own-5-credentials' }, data: { k: 'dg==' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own-5-never' }, data: { c: 'd' } },
      ],
    };
    // The Secret's write is stored, then the connection dies: the scheduler never learns of it.
    h.sim.addFault({
      method: 'PATCH',
      path: '/api/v1/namespaces/workers/secrets/own-5-credentials',
      nth: 2,
      action: { type: 'reset', execute: true },
    });
    const failed = instance(
      await rejection(ocp.create(template, {}, { namespace: 'workers', api })),
      ocp.OperationError,
    );
    expect([failed.operation, failed.outcome, failed.resources.length]).toEqual(['Apply', 'unknown', 2]);
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'own-5-credentials')).toBeDefined();
    // A new process: a new Connection, no refs.
    const results = await ocp.delete(template, {}, { namespace: 'workers' });
    expect(results.map((r) => [r.name, r.deletion])).toEqual([
      ['own-5-never', 'already-gone'],
      ['own-5-credentials', 'deleted'],
      ['own-5-config', 'deleted'],
      ['own-5-account', 'deleted'],
    ]);
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'own-5-credentials')).toBeUndefined();
    expect(h.sim.getObject('v1', 'ServiceAccount', 'workers', 'own-5-account')).toBeUndefined();
    expect(configMap('own-5-config')).toBeUndefined();
  });
});

describe('a dry-run delete of the image kinds', () => {
  const tag = {
    apiVersion: 'image.openshift.io/v1',
    kind: 'ImageStreamTag',
    namespace: 'workers',
    name: 'own-app:latest',
  };
  test.each(['reference', 'any'] as const)(
    'is not sent (%s): dryRun on the result, said so',
    async (mode) => {
      const warnings: ocp.ServerWarning[] = [];
      const onWarning = (w: ocp.ServerWarning): number => warnings.push(w);
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'tags' },
        objects: [{ apiVersion: tag.apiVersion, kind: tag.kind, metadata: { name: tag.name } }],
      };
      const results =
        mode === 'reference'
          ? await ocp.delete({ namespace: 'workers', resources: [tag], api, dryRun: true, onWarning })
          : await ocp.delete(
              template,
              {},
              { namespace: 'workers', api, dryRun: true, ownership: 'any', onWarning },
            );
      expect(results).toEqual([{ ...tag, deletion: 'deleted', dryRun: true }]);
      expect(h.sim.log.filter((e) => e.method === 'DELETE')).toEqual([]);
      expect(warnings.map((w) => [w.code, w.target?.name])).toEqual([['OTC_DRY_RUN_UNVERIFIED', tag.name]]);
    },
  );
});

describe('an abort', () => {
  test('is OTC_ABORTED at the top wherever it strikes; in the pre-flight nothing was written', async () => {
    const during = async (method: string, nth: number, run: (signal: AbortSignal) => Promise<unknown>) => {
      const controller = new AbortController();
      h.sim.addFault({
        method,
        path: `${CONFIGMAPS}/own-6-config`,
        nth,
        action: {
          type: 'change-first',
          change: () => {
            controller.abort();
          },
        },
      });
      const error = await rejection(run(controller.signal));
      h.sim.clearFaults();
      return error;
    };
    const create = (signal: AbortSignal) =>
      ocp.create('worker-template', { VM_NAME: 'own-6' }, { ...WORKER, api, signal });
    const preflight = instance(await during('PATCH', 1, create), ocp.OperationError);
    expect([preflight.operation, preflight.code, preflight.outcome]).toEqual([
      'Preflight',
      'OTC_ABORTED',
      'not-sent',
    ]);
    expect(writes()).toEqual([]);
    const apply = instance(await during('PATCH', 2, create), ocp.OperationError);
    expect([apply.operation, apply.code, apply.outcome]).toEqual(['Apply', 'OTC_ABORTED', 'unknown']);
    await ocp.create('worker-template', { VM_NAME: 'own-6' }, { ...WORKER, api });
    const remove = instance(
      await during('DELETE', 1, (signal) =>
        ocp.delete('worker-template', { VM_NAME: 'own-6' }, { ...WORKER, api, signal }),
      ),
      ocp.OperationError,
    );
    expect([remove.operation, remove.code]).toEqual(['Delete', 'OTC_ABORTED']);
    await ocp.delete('worker-template', { VM_NAME: 'own-6' }, { ...WORKER, api });
  });
});
