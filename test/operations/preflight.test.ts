// create()'s pre-flight (issue #36): every object dry-run as it will be applied, at once, and
// nothing written unless all pass; objects refused only for an earlier object of the batch are
// dry-run again right before their own write; the cluster changing in between stays part-way.
// `preflight: 'server'` is the default; these tests name it all the same, so that each says what it is about.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject, LogEntry } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { objectMutations } from './typing-helpers.ts';

let h: Harness;
let api: ocp.Connection;
let limited: ocp.Connection;
let admin: ocp.Connection;
let revocable: ocp.Connection;
const all = ['get', 'list', 'create', 'update', 'patch', 'delete'];
const CONFIG_ONLY = {
  user: 'no-secret-create',
  rules: [
    { verbs: ['get'], apiGroups: ['template.openshift.io'], resources: ['templates'] },
    { verbs: ['create'], apiGroups: ['template.openshift.io'], resources: ['processedtemplates'] },
    { verbs: all, apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['get', 'patch'], apiGroups: [''], resources: ['secrets'] },
  ],
};
// Everything in workers but RBAC's bind and escalate: a RoleBinding passes only by holding its Role's rules.
const NAMESPACE_ADMIN = {
  user: 'namespace-admin',
  rules: [
    { verbs: ['get'], apiGroups: ['template.openshift.io'], resources: ['templates'], namespaces: ['infra'] },
    { verbs: all, apiGroups: ['*'], resources: ['*'], namespaces: ['workers'] },
  ],
};
const configMap = (name: string, data: Record<string, string> = { a: name }): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
const NINE_NAMES = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const NINE = [
  configMap('one'),
  configMap('two'),
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'three' }, stringData: { password: 'hunter2!' } },
  ...['four', 'five', 'six', 'seven', 'eight', 'nine'].map((name) => configMap(name)),
];
const ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } };
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'job' },
  spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'busybox' }] },
};
const role = (apiVersion: string): JsonObject => ({
  apiVersion,
  kind: 'Role',
  metadata: { name: 'reader' },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
});
const RBAC_BINDING = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'read' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
  subjects: [{ kind: 'ServiceAccount', name: 'runner' }],
};
const LEGACY_BINDING = {
  apiVersion: 'authorization.openshift.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'read' },
  roleRef: { name: 'reader', namespace: 'workers' },
  subjects: [{ kind: 'ServiceAccount', name: 'runner' }],
};

// May apply ConfigMaps and Secrets in workers until a test takes the Secrets away.
const CONFIG_AND_SECRETS = [
  ...CONFIG_ONLY.rules.slice(0, 3),
  { verbs: all, apiGroups: [''], resources: ['secrets'] },
];
const REVOCABLE = { user: 'revocable', rules: CONFIG_AND_SECRETS };

beforeAll(async () => {
  h = await harness({
    tokens: {
      'config-token': CONFIG_ONLY,
      'namespace-admin-token': NAMESPACE_ADMIN,
      'revocable-token': REVOCABLE,
    },
  });
  api = await h.connect();
  limited = await h.connect({ context: 'no-secret-create' });
  admin = await h.connect({ context: 'namespace-admin' });
  revocable = await h.connect({ context: 'revocable' });
  h.sim.seedTemplate('nine', [], NINE);
  h.sim.seedTemplate('conflict', [], [configMap('c-one'), configMap('c-two', { owned: 'mine' })]);
  h.sim.seedTemplate('pod-after-account', [], [ACCOUNT, POD]);
  h.sim.seedTemplate('pod-before-account', [], [POD, ACCOUNT]);
  h.sim.seedTemplate('rbac', [], [ACCOUNT, role('rbac.authorization.k8s.io/v1'), RBAC_BINDING]);
  h.sim.seedTemplate('legacy', [], [ACCOUNT, role('authorization.openshift.io/v1'), LEGACY_BINDING]);
  h.sim.seedTemplate('binding-first', [], [RBAC_BINDING, role('rbac.authorization.k8s.io/v1')]);
  h.sim.seedTemplate('changed', [], [configMap('x-one'), configMap('x-two', { owned: 'mine' })]);
  h.sim.seedTemplate('revoked', [], [configMap('r-one'), NINE[2], configMap('r-three')]);
});
beforeEach(() => {
  h.sim.clearLog();
  h.sim.clearFaults();
});
afterAll(async () => {
  await Promise.all([api.close(), limited.close(), admin.close(), revocable.close()]);
  await h.close();
});

const dryRuns = (log: LogEntry[]): LogEntry[] => log.filter((e) => e.query.dryRun === 'All');
const writes = (log: LogEntry[]): LogEntry[] => log.filter((e) => e.query.dryRun === undefined);
const names = (log: LogEntry[]): string[] => log.map((e) => e.path.split('/').at(-1) ?? '');
const stored = (kind: string, name: string, apiVersion = 'v1'): JsonObject | undefined =>
  h.sim.getObject(apiVersion, kind, 'workers', name);

/** The one pre-flight refusal, checked for its shape: nothing written, one failure per refused object. */
function refusal(error: Error): ocp.RequestError[] {
  const refused = instance(error, ocp.OperationError);
  expect(refused.operation).toBe('Preflight');
  expect(refused.code).toBe('OTC_PREFLIGHT_REFUSED');
  expect(refused.resources).toEqual([]);
  expect(writes(objectMutations(h))).toEqual([]);
  return refused.failures.map((f) => {
    const failure = instance(f.error, ocp.RequestError);
    expect(failure.outcome).toBe('refused');
    return failure;
  });
}

describe('a refusal anywhere writes nothing', () => {
  test('a 403 on the 3rd of 9 objects: an apply that would create a Secret is authorized as a create', async () => {
    const [failure, ...more] = refusal(
      await rejection(ocp.create('nine', {}, { ...WORKER, api: limited, preflight: 'server' })),
    );
    expect(more).toEqual([]);
    expect([failure?.statusCode, failure?.code, failure?.reason]).toEqual([
      403,
      'OTC_FORBIDDEN',
      'Forbidden',
    ]);
    expect(failure?.message).toContain('cannot create resource "secrets"');
    expect(failure?.message).not.toContain('hunter2');
    expect(names(dryRuns(objectMutations(h))).sort()).toEqual([...NINE_NAMES].sort());
    expect(stored('ConfigMap', 'one')).toBeUndefined();
  });

  test('a field-manager conflict on the 2nd object', async () => {
    h.sim.seed(
      { ...configMap('c-two', { owned: 'theirs' }), metadata: { name: 'c-two', namespace: 'workers' } },
      'other',
    );
    const [failure] = refusal(
      await rejection(ocp.create('conflict', {}, { ...WORKER, api, preflight: 'server' })),
    );
    expect([failure?.statusCode, failure?.code]).toEqual([409, 'OTC_CONFLICT']);
    expect(failure?.status?.details?.causes?.[0]?.field).toBe('.data.owned');
    expect(stored('ConfigMap', 'c-one')).toBeUndefined();
  });

  test('a Pod whose ServiceAccount comes later in rendered order is refused, as the writes would be', async () => {
    const [failure] = refusal(
      await rejection(ocp.create('pod-before-account', {}, { ...WORKER, api: admin, preflight: 'server' })),
    );
    expect(failure?.statusCode).toBe(403);
    expect(failure?.message).toContain(
      'pods "job" is forbidden: error looking up service account workers/runner: serviceaccount "runner" not found',
    );
  });

  test('a RoleBinding whose Role comes later is refused with the Role named', async () => {
    const [failure] = refusal(
      await rejection(ocp.create('binding-first', {}, { ...WORKER, api: admin, preflight: 'server' })),
    );
    expect([failure?.statusCode, failure?.status?.message]).toEqual([
      404,
      'rolebindings.rbac.authorization.k8s.io "reader" not found',
    ]);
  });
});

test('an immutable field changed on a re-apply (a 422): the objects before it are not written either', async () => {
  const service = (ip: string): JsonObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc' },
    spec: { clusterIP: ip, ports: [{ port: 80 }] },
  });
  h.sim.seedTemplate('service', [{ name: 'IP', required: true }], [configMap('s-first'), service('${IP}')]);
  await ocp.create('service', { IP: '10.0.0.50' }, { ...WORKER, api, preflight: 'server' });
  h.sim.clearLog();
  const [failure] = refusal(
    await rejection(ocp.create('service', { IP: '10.0.0.51' }, { ...WORKER, api, preflight: 'server' })),
  );
  expect([failure?.statusCode, failure?.status?.message]).toEqual([
    422,
    'Service "svc" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.51"]: may not change once set',
  ]);
  await ocp.delete('service', { IP: '10.0.0.50' }, { ...WORKER, api });
});

describe('objects that need an earlier object of the batch', () => {
  test.each([
    ['pod-after-account', 'Pod', 'job', 'v1'],
    ['rbac', 'RoleBinding', 'read', 'rbac.authorization.k8s.io/v1'],
    ['legacy', 'RoleBinding', 'read', 'rbac.authorization.k8s.io/v1'],
  ])(
    '%s: no false refusal; dry-run again right before its write',
    async (template, kind, name, apiVersion) => {
      const refs = await ocp.create(template, {}, { ...WORKER, api: admin, preflight: 'server' });
      expect(refs.every((r) => r.created)).toBe(true);
      expect(stored(kind, name, apiVersion)).toBeDefined();
      // The wave, then in order: the prerequisites written, the dependant dry-run again, then written.
      // A legacy RoleBinding's apply answers 404 before RBAC is reached, so the POST that will
      // create it is dry-run in its place: RBAC's 404 naming the Role there defers it as an apply's.
      const own = objectMutations(h).filter(
        (e) => e.path.endsWith(`/${name}`) || (e.method === 'POST' && e.body.includes(`"name":"${name}"`)),
      );
      expect(own.map((e) => `${e.method} ${String(e.query.dryRun ?? 'write')}`)).toEqual(
        template === 'legacy'
          ? ['PATCH All', 'POST All', 'PATCH All', 'POST All', 'PATCH write', 'POST write']
          : ['PATCH All', 'PATCH All', 'PATCH write'],
      );
      // By name: the bare ServiceAccount owns no field, so a replay by manager would leave it.
      await ocp.delete(template, {}, { ...WORKER, api, ownership: 'any' });
    },
  );
});

describe('the cluster changing between the pre-flight and the writes', () => {
  test("another manager takes a field: part-way, with today's OperationError", async () => {
    const path = '/api/v1/namespaces/workers/configmaps/x-two';
    const other = {
      ...configMap('x-two', { owned: 'theirs' }),
      metadata: { name: 'x-two', namespace: 'workers' },
    };
    h.sim.addFault({
      method: 'PATCH',
      path,
      nth: 2,
      action: { type: 'change-first', change: () => h.sim.seed(other, 'other') },
    });
    const error = instance(
      await rejection(ocp.create('changed', {}, { ...WORKER, api, preflight: 'server' })),
      ocp.OperationError,
    );
    expect([error.operation, error.code]).toEqual(['Apply', 'OTC_APPLY_FAILED']);
    expect(error.resources.map((r) => r.name)).toEqual(['x-one']);
    expect(instance(error.failures[0]?.error, ocp.RequestError).statusCode).toBe(409);
  });

  test("the caller's role is narrowed after the pre-flight: part-way at the Secret, a 403 'refused'", async () => {
    h.sim.setRules('revocable', CONFIG_AND_SECRETS);
    // The Secret's second PATCH is its write: just before it, Secrets are taken from the caller.
    h.sim.addFault({
      method: 'PATCH',
      path: '/api/v1/namespaces/workers/secrets/three',
      nth: 2,
      action: {
        type: 'change-first',
        change: () => {
          h.sim.setRules('revocable', CONFIG_ONLY.rules);
        },
      },
    });
    const error = instance(
      await rejection(ocp.create('revoked', {}, { ...WORKER, api: revocable, preflight: 'server' })),
      ocp.OperationError,
    );
    expect([error.operation, error.code, error.outcome]).toEqual(['Apply', 'OTC_APPLY_FAILED', 'refused']);
    expect(error.resources.map((r) => [r.name, r.created])).toEqual([['r-one', true]]);
    const failure = instance(error.failures[0]?.error, ocp.RequestError);
    expect([error.failures[0]?.resource.name, failure.statusCode, failure.code, failure.outcome]).toEqual([
      'three',
      403,
      'OTC_FORBIDDEN',
      'refused',
    ]);
    expect(failure.message).toContain('cannot create resource "secrets"');
    expect(failure.message).not.toContain('hunter2');
    // The wave dry-ran all three; the writes stopped at the Secret: only r-one was written.
    const sent = objectMutations(h);
    expect(names(dryRuns(sent)).sort()).toEqual(['r-one', 'r-three', 'three']);
    expect(writes(sent).map((e) => [names([e])[0], e.status])).toEqual([
      ['r-one', 201],
      ['three', 403],
    ]);
    expect([stored('Secret', 'three'), stored('ConfigMap', 'r-three')]).toEqual([undefined, undefined]);
    h.sim.setRules('revocable', CONFIG_AND_SECRETS);
    await ocp.delete('revoked', {}, { ...WORKER, api });
  });
});

describe('the options', () => {
  test("dryRun: true is the wave alone, with each ref's created", async () => {
    // An object of this job from an earlier run: it carries the owner label (#42 item 3).
    const mine = { 'openshift-template-client/field-manager': 'mini-scheduler' };
    h.sim.seed({ ...configMap('d-two'), metadata: { name: 'd-two', namespace: 'workers', labels: mine } });
    h.sim.seedTemplate('dry', [], [configMap('d-one'), configMap('d-two')]);
    const refs = await ocp.create('dry', {}, { ...WORKER, api, dryRun: true, preflight: 'server' });
    expect(refs.map((r) => [r.name, r.created])).toEqual([
      ['d-one', true],
      ['d-two', false],
    ]);
    expect(writes(objectMutations(h))).toEqual([]);
    expect(dryRuns(objectMutations(h))).toHaveLength(2);
  });

  test("the default is 'server': a refusal in the wave writes nothing", async () => {
    const [failure] = refusal(await rejection(ocp.create('nine', {}, { ...WORKER, api: limited })));
    expect(failure?.statusCode).toBe(403);
    expect(names(dryRuns(objectMutations(h))).sort()).toEqual([...NINE_NAMES].sort());
  });

  test("preflight: 'schema' is typing only: the writes in order, no dry run", async () => {
    const error = instance(
      await rejection(ocp.create('nine', {}, { ...WORKER, api: limited, preflight: 'schema' })),
      ocp.OperationError,
    );
    expect([error.operation, error.resources.length]).toEqual(['Apply', 2]);
    expect(dryRuns(objectMutations(h))).toEqual([]);
    await ocp.delete('nine', {}, { ...WORKER, api });
  });

  test('any other preflight value is refused by name', async () => {
    const options = { ...WORKER, api, preflight: 'client' } as unknown as ocp.CreateOptions;
    const error = instance(await rejection(ocp.create('nine', {}, options)), ocp.ValidationError);
    expect(error.issues).toEqual(['preflight must be "server" or "schema"']);
  });

  test('a dry run whose connection was lost is sent once more', async () => {
    h.sim.seedTemplate('lost', [], [configMap('l-one'), configMap('l-two')]);
    const path = '/api/v1/namespaces/workers/configmaps/l-two';
    h.sim.addFault({ method: 'PATCH', path, nth: 1, action: { type: 'reset' } });
    const refs = await ocp.create('lost', {}, { ...WORKER, api, preflight: 'server' });
    expect(refs.map((r) => r.name)).toEqual(['l-one', 'l-two']);
    expect(
      objectMutations(h)
        .filter((e) => e.path === path)
        .map((e) => e.query.dryRun ?? 'write'),
    ).toEqual(['All', 'All', 'write']);
  });
});

describe("the wave within the server's stream limit", () => {
  test('a server taking 2 streams at a time: all 9 dry runs answered, then the 9 writes', async () => {
    const narrow = await harness({ maxConcurrentStreams: 2 });
    const connection = await narrow.connect();
    try {
      narrow.sim.seedTemplate(
        'narrow',
        [],
        NINE_NAMES.map((name) => configMap(name)),
      );
      const refs = await ocp.create('narrow', {}, { ...WORKER, preflight: 'server', api: connection });
      expect(refs.map((r) => r.name)).toEqual(NINE_NAMES);
      const sent = objectMutations(narrow);
      expect([dryRuns(sent).length, names(writes(sent))]).toEqual([9, NINE_NAMES]);
    } finally {
      await connection.close();
      await narrow.close();
    }
  });
});
