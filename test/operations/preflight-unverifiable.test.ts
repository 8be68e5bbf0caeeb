// What create()'s dry-run wave cannot verify (issue #36 item 4) is said through onWarning, never
// passed silently and never refused: a webhook without dry-run support, kinds whose dry run may
// write. Quota that each object fits but the batch exceeds (quota is checked per request and
// charged only on writes) is refused before any write where the library's sum is exact (#42 item
// 10), a warning where it counts an object no dry run settled. A quota one object exceeds, and a
// webhook that denies, are refusals of the wave, with nothing written. `preflight: 'server'` is asked for explicitly.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { Json, JsonObject, LogEntry, WebhookCall } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection } from '../helpers.ts';
import { collect, objectMutations } from './typing-helpers.ts';

let h: Harness;
let api: ocp.Connection;
let noQuotaList: ocp.Connection;
// Everything in the namespace but reading its ResourceQuotas.
const NO_QUOTA_LIST = {
  user: 'no-quota-list',
  rules: [
    { verbs: ['create'], apiGroups: ['template.openshift.io'], resources: ['processedtemplates'] },
    { verbs: ['get', 'create', 'patch'], apiGroups: [''], resources: ['configmaps'] },
  ],
};
const NAMESPACE = 'pfu';
const configMap = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data: { a: name },
});
const template = (name: string, objects: unknown[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects,
});
const THREE = ['pfu-1', 'pfu-2', 'pfu-3'];
const PVC = (name: string, storage: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
});

const IMAGE_TAG = {
  apiVersion: 'image.openshift.io/v1',
  kind: 'ImageStreamTag',
  metadata: { name: 'pfu-app:latest' },
  tag: { from: { kind: 'DockerImage', name: 'quay.io/example/app:1' } },
};

beforeAll(async () => {
  h = await harness({ namespaces: [NAMESPACE], tokens: { 'no-quota-list-token': NO_QUOTA_LIST } });
  api = await h.connect();
  noQuotaList = await h.connect({ context: 'no-quota-list' });
});
beforeEach(() => {
  h.sim.clearLog();
  h.sim.clearFaults();
  h.sim.clearWebhooks();
});
// Whatever a test made, even one that failed half-way, is gone before the next.
afterEach(async () => {
  const quotas = ['pfu-full', 'pfu-batch', 'pfu-dry', 'pfu-storage', 'pfu-scoped'].map((name) => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name },
  }));
  const claims = ['pfu-old', 'pfu-a', 'pfu-b'].map((name) => PVC(name, '1'));
  await cleanUp([...THREE.map((n) => configMap(n)), ...claims, IMAGE_TAG, ...quotas]);
});
afterAll(async () => {
  await Promise.all([api.close(), noQuotaList.close()]);
  await h.close();
});

const writes = (log: LogEntry[]): string[] =>
  log
    .filter((e) => e.query.dryRun === undefined && e.status < 400)
    .map((e) => decodeURIComponent(e.path.split('/').at(-1) ?? ''));
const dryRunNames = (log: LogEntry[]): string[] =>
  log.filter((e) => e.query.dryRun === 'All').map((e) => decodeURIComponent(e.path.split('/').at(-1) ?? ''));
const stored = (kind: string, name: string, apiVersion = 'v1'): JsonObject | undefined =>
  h.sim.getObject(apiVersion, kind, NAMESPACE, name);

function create(
  name: string,
  objects: unknown[],
  more: { api?: ocp.Connection; dryRun?: boolean; onWarning?: ocp.WarningHandler } = {},
): Promise<ocp.CreatedRef[]> {
  return ocp.create(template(name, objects), {}, { namespace: NAMESPACE, api, preflight: 'server', ...more });
}

async function cleanUp(objects: JsonObject[]): Promise<void> {
  await ocp.delete(template('cleanup', objects), {}, { namespace: NAMESPACE, api, ownership: 'any' });
}

/** A ResourceQuota whose status a quota controller would have written. */
function quota(
  name: string,
  hard: Record<string, string>,
  used: Record<string, string>,
  spec: Json = {},
): void {
  h.sim.seed({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: NAMESPACE }, spec });
  h.sim.setStatus('v1', 'ResourceQuota', NAMESPACE, name, { hard, used });
}
const usedOf = (name: string): Json | undefined =>
  (stored('ResourceQuota', name)?.status as { used?: Json } | undefined)?.used;

describe('quota', () => {
  test('one object exceeds it: the wave refuses with the server words, nothing written, nothing charged', async () => {
    quota('pfu-full', { configmaps: '2' }, { configmaps: '2' });
    const seen = collect();
    const error = instance(
      await rejection(
        create(
          'full',
          THREE.map((n) => configMap(n)),
          { onWarning: seen.handler },
        ),
      ),
      ocp.OperationError,
    );
    expect([error.operation, error.resources]).toEqual(['Preflight', []]);
    const failures = error.failures.map((f) => instance(f.error, ocp.RequestError));
    expect(failures.map((f) => [f.statusCode, f.status?.message])).toEqual(
      THREE.map((n) => [
        403,
        `configmaps "${n}" is forbidden: exceeded quota: pfu-full, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`,
      ]),
    );
    expect(writes(objectMutations(h))).toEqual([]);
    expect(usedOf('pfu-full')).toEqual({ configmaps: '2' });
    // A refusal tells nothing of a batch sum: nothing will be applied.
    expect(seen.seen).toEqual([]);
  });

  test('only the batch exceeds it: refused in the pre-flight on the first object past the limit, nothing written or charged', async () => {
    quota('pfu-batch', { 'count/configmaps': '2', secrets: '5' }, { 'count/configmaps': '0', secrets: '0' });
    const seen = collect();
    const error = instance(
      await rejection(
        create(
          'batch',
          THREE.map((n) => configMap(n)),
          { onWarning: seen.handler },
        ),
      ),
      ocp.OperationError,
    );
    expect([error.operation, error.code, error.outcome, error.resources]).toEqual([
      'Preflight',
      'OTC_PREFLIGHT_REFUSED',
      'refused',
      [],
    ]);
    expect(error.failures.map((f) => f.resource.name)).toEqual(['pfu-3']);
    const failure = instance(error.failures[0]?.error, ocp.RequestError);
    expect([failure.code, failure.outcome, failure.step, failure.statusCode]).toEqual([
      'OTC_QUOTA_EXCEEDED',
      'refused',
      'Apply',
      undefined,
    ]);
    expect(failure.message).toBe(
      'Apply ConfigMap "pfu-3" in namespace "pfu": ResourceQuota "pfu-batch" in namespace "pfu" is exceeded by the batch: ' +
        'count/configmaps needs 3 where 0 of 2 are used. This object is the first past the limit; nothing was written ' +
        '(each object passed its dry run: quota is checked per request and charged only on writes)',
    );
    // Each dry run passed (quota is checked per request); nothing was written or charged.
    expect(dryRunNames(objectMutations(h))).toEqual(expect.arrayContaining(THREE));
    expect(writes(objectMutations(h))).toEqual([]);
    expect(usedOf('pfu-batch')).toEqual({ 'count/configmaps': '0', secrets: '0' });
    expect(seen.seen).toEqual([]);
  });

  test('under dryRun the wave is the whole call: the same refusal, nothing written or charged', async () => {
    quota('pfu-dry', { configmaps: '3' }, { configmaps: '1' });
    const error = instance(
      await rejection(
        create(
          'dry',
          THREE.map((n) => configMap(n)),
          { dryRun: true },
        ),
      ),
      ocp.OperationError,
    );
    expect(error.failures.map((f) => [f.resource.name, instance(f.error, ocp.RequestError).code])).toEqual([
      ['pfu-3', 'OTC_QUOTA_EXCEEDED'],
    ]);
    expect(error.failures[0]?.error.message).toContain('configmaps needs 3 where 1 of 3 are used');
    expect(writes(objectMutations(h))).toEqual([]);
    expect(usedOf('pfu-dry')).toEqual({ configmaps: '1' });
  });

  test('one failure per quota exceeded, each on its own first object past the limit', async () => {
    quota('pfu-batch', { configmaps: '1' }, { configmaps: '0' });
    quota('pfu-dry', { 'count/configmaps': '2' }, { 'count/configmaps': '0' });
    const error = instance(
      await rejection(
        create(
          'two',
          THREE.map((n) => configMap(n)),
          { dryRun: true },
        ),
      ),
      ocp.OperationError,
    );
    const failures = error.failures.map((f) => [f.resource.name, f.error.message.split(': ')[1]]);
    expect(failures.sort()).toEqual([
      ['pfu-2', 'ResourceQuota "pfu-batch" in namespace "pfu" is exceeded by the batch'],
      ['pfu-3', 'ResourceQuota "pfu-dry" in namespace "pfu" is exceeded by the batch'],
    ]);
  });

  test('a sum that counts an object no dry run settled is an estimate: a warning, and the writes go ahead', async () => {
    // pfu-2's dry run cannot be made (a webhook without dry-run support): it may exist already.
    h.sim.addWebhook({
      name: 'legacy.pfu.example.com',
      sideEffects: 'Unknown',
      matches: (call) => (call.object.metadata as { name?: string } | undefined)?.name === 'pfu-2',
    });
    quota('pfu-batch', { configmaps: '2' }, { configmaps: '0' });
    const seen = collect();
    const error = instance(
      await rejection(
        create(
          'estimate',
          THREE.map((n) => configMap(n)),
          { onWarning: seen.handler },
        ),
      ),
      ocp.OperationError,
    );
    expect(seen.seen.map((w) => [w.code, w.text.split('. ')[0]])).toEqual([
      ['OTC_DRY_RUN_UNVERIFIED', expect.stringContaining('ConfigMap "pfu-2"')],
      [
        'OTC_QUOTA_EXCEEDED_BY_BATCH',
        'ResourceQuota "pfu-batch" in namespace "pfu" is exceeded by the batch: configmaps needs 3 where 0 of 2 are used, ' +
          'counting objects whose dry run could not say whether they would be created',
      ],
    ]);
    // The write past the quota is refused part-way by the server.
    expect([error.operation, error.resources.map((r) => r.name)]).toEqual(['Apply', ['pfu-1', 'pfu-2']]);
    expect(error.failures[0]?.error.message).toContain('exceeded quota: pfu-batch');
  });

  test('storage requests of PVCs are summed; objects that exist already are not counted', async () => {
    h.sim.seed(
      // This job's own from an earlier run: it carries the owner label (#42 item 3).
      {
        ...PVC('pfu-old', '1Gi'),
        metadata: {
          name: 'pfu-old',
          namespace: NAMESPACE,
          labels: { 'openshift-template-client/field-manager': 'mini-scheduler' },
        },
      },
      'mini-scheduler',
    );
    quota(
      'pfu-storage',
      { 'requests.storage': '1Gi', persistentvolumeclaims: '3' },
      {
        'requests.storage': '1Gi',
        persistentvolumeclaims: '1',
      },
    );
    const seen = collect();
    // The existing claim is re-applied unchanged: it needs nothing more, so the two new ones matter.
    const objects = [PVC('pfu-old', '1Gi'), PVC('pfu-a', '600Mi'), PVC('pfu-b', '600Mi')];
    const error = instance(
      await rejection(create('storage', objects, { dryRun: true, onWarning: seen.handler })),
      ocp.OperationError,
    );
    // The server refuses each new claim alone (1Gi is used up): a refusal, no batch warning.
    expect(error.failures.map((f) => f.resource.name)).toEqual(['pfu-a', 'pfu-b']);
    expect(seen.seen).toEqual([]);
    h.sim.setStatus('v1', 'ResourceQuota', NAMESPACE, 'pfu-storage', {
      hard: { 'requests.storage': '1Gi', persistentvolumeclaims: '3' },
      used: { 'requests.storage': '0', persistentvolumeclaims: '1' },
    });
    const summed = instance(
      await rejection(create('storage', objects, { dryRun: true, onWarning: seen.handler })),
      ocp.OperationError,
    );
    expect(summed.failures.map((f) => [f.resource.name, instance(f.error, ocp.RequestError).code])).toEqual([
      ['pfu-b', 'OTC_QUOTA_EXCEEDED'],
    ]);
    expect(summed.failures[0]?.error.message).toContain(
      'is exceeded by the batch: requests.storage needs 1200Mi where 0 of 1Gi are used.',
    );
    expect(seen.seen).toEqual([]);
  });

  test('a quota with scopes is not summed: it constrains Pods by their class', async () => {
    quota('pfu-scoped', { configmaps: '1' }, { configmaps: '0' }, { scopes: ['BestEffort'] });
    const seen = collect();
    await create(
      'scoped',
      THREE.map((n) => configMap(n)),
      { dryRun: true, onWarning: seen.handler },
    );
    expect(seen.seen).toEqual([]);
  });

  test('a caller who may not list ResourceQuotas: one warning that the sum was not checked, and created', async () => {
    const seen = collect();
    const refs = await create(
      'unlisted',
      THREE.map((n) => configMap(n)),
      {
        api: noQuotaList,
        onWarning: seen.handler,
      },
    );
    expect(refs.map((r) => r.created)).toEqual([true, true, true]);
    expect(seen.seen).toEqual([
      {
        code: 'OTC_QUOTA_UNCHECKED',
        operation: 'create',
        text:
          'the batch\'s sum against the ResourceQuotas of namespace "pfu" was not checked: listing them answered 403 ' +
          '(list resourcequotas is optional; each object was still checked against quota by its own dry run)',
      },
    ]);
    const lists = h.sim.log.filter((e) => e.method === 'GET' && e.path.endsWith('/resourcequotas'));
    expect(lists.map((e) => [e.path, e.status])).toEqual([
      [`/api/v1/namespaces/${NAMESPACE}/resourcequotas`, 403],
    ]);
    expect(writes(objectMutations(h))).toEqual(THREE);
  });
});

describe('webhooks', () => {
  const labelled = (call: WebhookCall): boolean =>
    (call.object.metadata as { labels?: Record<string, string> } | undefined)?.labels?.pfu === 'checked';

  test('a webhook that denies one object: the wave refuses with its words, nothing written', async () => {
    h.sim.addWebhook({
      name: 'deny.pfu.example.com',
      matches: labelled,
      deny: () => 'pfu objects are closed',
    });
    const objects = [configMap('pfu-1'), configMap('pfu-2', { pfu: 'checked' }), configMap('pfu-3')];
    const error = instance(await rejection(create('denied', objects)), ocp.OperationError);
    expect(error.operation).toBe('Preflight');
    const failures = error.failures.map((f) => [
      f.resource.name,
      instance(f.error, ocp.RequestError).statusCode,
    ]);
    expect(failures).toEqual([['pfu-2', 400]]);
    expect(instance(error.failures[0]?.error, ocp.RequestError).status?.message).toBe(
      'admission webhook "deny.pfu.example.com" denied the request: pfu objects are closed',
    );
    expect(writes(objectMutations(h))).toEqual([]);
  });

  test('a webhook without dry-run support: a warning naming the object and the webhook, and the write checked by it', async () => {
    const called: boolean[] = [];
    h.sim.addWebhook({
      name: 'legacy.pfu.example.com',
      sideEffects: 'Unknown',
      matches: labelled,
      deny: (call) => {
        called.push(call.dryRun);
        return undefined;
      },
    });
    const objects = [configMap('pfu-1'), configMap('pfu-2', { pfu: 'checked' }), configMap('pfu-3')];
    const seen = collect();
    const refs = await create('legacy', objects, { onWarning: seen.handler });
    expect(refs.map((r) => [r.name, r.created])).toEqual(THREE.map((n) => [n, true]));
    expect(seen.seen).toEqual([
      {
        code: 'OTC_DRY_RUN_UNVERIFIED',
        operation: 'create',
        target: { apiVersion: 'v1', kind: 'ConfigMap', name: 'pfu-2', namespace: NAMESPACE },
        text:
          'ConfigMap "pfu-2" in namespace "pfu" is applied unverified: admission webhook "legacy.pfu.example.com" does not support dry run, ' +
          'so the dry run stopped there and the checks of that webhook and after it come at the write',
      },
    ]);
    // The webhook saw only the real write: its dry run was refused before the call.
    expect(called).toEqual([false]);
    const refused = h.sim.log.filter((e) => e.query.dryRun === 'All' && e.status === 400);
    expect(refused.map((e) => e.path.split('/').at(-1))).toEqual(['pfu-2']);
    expect(writes(objectMutations(h))).toEqual(THREE);
  });

  test('an object unverified by one webhook is still refused by the wave for another object', async () => {
    h.sim.addWebhook({ name: 'legacy.pfu.example.com', sideEffects: 'Some', matches: labelled });
    const theirs = { ...configMap('pfu-3'), data: { a: 'theirs' } };
    h.sim.seed({ ...theirs, metadata: { name: 'pfu-3', namespace: NAMESPACE } }, 'other');
    const objects = [configMap('pfu-1'), configMap('pfu-2', { pfu: 'checked' }), configMap('pfu-3')];
    const seen = collect();
    const error = instance(
      await rejection(create('mixed', objects, { onWarning: seen.handler })),
      ocp.OperationError,
    );
    expect(
      error.failures.map((f) => [f.resource.name, instance(f.error, ocp.RequestError).statusCode]),
    ).toEqual([['pfu-3', 409]]);
    // Nothing is applied, so nothing is said about what would have been applied unverified.
    expect(seen.seen).toEqual([]);
    expect(writes(objectMutations(h))).toEqual([]);
  });
});

test('an ImageStreamTag is not dry-run: its dry run wrote the image stream before openshift-apiserver#511', async () => {
  const tag = IMAGE_TAG;
  const seen = collect();
  const refs = await create('image', [configMap('pfu-1'), tag], { onWarning: seen.handler });
  expect(refs.map((r) => r.kind)).toEqual(['ConfigMap', 'ImageStreamTag']);
  expect(dryRunNames(objectMutations(h))).toEqual(['pfu-1']);
  expect(seen.seen).toEqual([
    {
      code: 'OTC_DRY_RUN_UNVERIFIED',
      operation: 'create',
      target: {
        apiVersion: 'image.openshift.io/v1',
        kind: 'ImageStreamTag',
        name: 'pfu-app:latest',
        namespace: NAMESPACE,
      },
      text:
        'ImageStreamTag "pfu-app:latest" in namespace "pfu" is applied unverified: it is not dry-run, since openshift-apiserver ' +
        'before openshift/openshift-apiserver#511 writes the image stream on a dry run of image.openshift.io/v1 ImageStreamTag',
    },
  ]);
  expect(writes(objectMutations(h))).toEqual(['pfu-1', 'pfu-app:latest']);
});
