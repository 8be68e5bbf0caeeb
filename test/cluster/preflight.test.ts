// #36's pre-flight held to the real server: what a dry run refuses is sent raw to both servers (the
// simulator must answer as kube-apiserver 1.34 does), then create() with its default pre-flight runs
// on the real tier as a non-admin identity, and the audit log, the real write log, shows nothing
// written where nothing should be (a dry run's requestURI carries dryRun=All).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Identity, startSimulator, type Simulator } from '../../simulator/index.ts';
import { KubeClient } from '../../scripts/cluster/kube.ts';
import { IDENTITIES } from '../../scripts/cluster/identities.ts';
import { auditLogPath, auditMark, clientFor, clusterKubeconfig, writesSince } from './audit.ts';

const template = (name: string, objects: unknown[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects,
});
const configMap = (name: string, data: Record<string, string> = { a: name }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
const NINE_NAMES = ['pf-1', 'pf-2', 'pf-3', 'pf-4', 'pf-5', 'pf-6', 'pf-7', 'pf-8', 'pf-9'];
const NINE = NINE_NAMES.map((name, i) =>
  i === 2 ? { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { a: 'YQ==' } } : configMap(name),
);
const ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'pf-runner' } };
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'pf-job' },
  spec: { serviceAccountName: 'pf-runner', containers: [{ name: 'c', image: 'busybox' }] },
};
const ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'pf-reader' },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
};
const BINDING = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'pf-read' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pf-reader' },
  subjects: [{ kind: 'ServiceAccount', name: 'pf-runner' }],
};

/** A dry-run apply each server is asked alike, as `user`. */
const PROBES = [
  { name: 'a Pod whose ServiceAccount does not exist', user: 'namespace-admin', resource: 'pods', body: POD },
  {
    name: 'a RoleBinding whose Role does not exist',
    user: 'namespace-admin',
    resource: 'rolebindings',
    body: BINDING,
  },
  {
    name: 'an apply that would create a Secret',
    user: 'no-secret-create',
    resource: 'secrets',
    body: NINE[2],
  },
];
const pathOf = (resource: string, name: string): string =>
  resource === 'rolebindings'
    ? `/apis/rbac.authorization.k8s.io/v1/namespaces/workers/rolebindings/${name}`
    : `/api/v1/namespaces/workers/${resource}/${name}`;

describe.skipIf(clusterKubeconfig === '')('#36: the pre-flight on the real tier', () => {
  let sim: Simulator;
  let auditLog: string;
  let mark: number;
  const api: Record<string, ocp.Connection> = {};

  beforeAll(async () => {
    const tokens: Record<string, Identity> = {};
    for (const identity of IDENTITIES.slice(1))
      tokens[`${identity.user}-token`] = {
        user: identity.user,
        ...(identity.rules ? { rules: identity.rules } : {}),
      };
    sim = await startSimulator({ tokens });
    auditLog = auditLogPath();
    for (const context of ['cluster', 'namespace-admin', 'no-secret-create'])
      api[context] = await ocp.connect({ kubeconfig: clusterKubeconfig, context });
  });
  beforeEach(() => {
    mark = auditMark(auditLog);
  });
  afterAll(async () => {
    await Promise.all(Object.values(api).map((c) => c.close()));
    await sim.close();
  });

  const create = (name: string, objects: unknown[], context: string) =>
    ocp.create(template(name, objects), {}, { namespace: 'workers', api: api[context] });
  const cleanUp = (name: string, objects: unknown[]) =>
    // By name: a bare ServiceAccount owns no field, so a replay by manager would leave it.
    ocp.delete(template(name, objects), {}, { namespace: 'workers', api: api.cluster, ownership: 'any' });

  test.each(PROBES)('$name: the simulator answers the dry run as kube-apiserver', async (probe) => {
    const name = (probe.body as { metadata: { name: string } }).metadata.name;
    const path = `${pathOf(probe.resource, name)}?fieldManager=probe&dryRun=All`;
    const real = clientFor(probe.user);
    const simulated = new KubeClient(sim.url, sim.caCert, `${probe.user}-token`);
    try {
      const [fromReal, fromSim] = await Promise.all(
        [real, simulated].map((c) => c.send('PATCH', path, probe.body, 'application/apply-patch+yaml')),
      );
      const message = (a: typeof fromReal): unknown =>
        (a?.body as { message?: unknown } | undefined)?.message;
      expect(fromReal?.status).toBeGreaterThanOrEqual(400);
      expect([fromSim?.status, message(fromSim)]).toEqual([fromReal?.status, message(fromReal)]);
    } finally {
      real.close();
      simulated.close();
    }
  });

  test("an immutable field changed on a re-apply: both servers answer the dry run's 422 alike, create() writes nothing", async () => {
    const service = (ip: string) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'pf-svc' },
      spec: { clusterIP: ip, ports: [{ port: 80 }] },
    });
    const objects = (ip: string) => [configMap('pf-s1'), service(ip)];
    await create('pf-service', objects('10.0.0.50'), 'cluster');
    // As create()'s own field manager, which owns clusterIP: another would meet a conflict first.
    const path = `${pathOf('services', 'pf-svc')}?fieldManager=mini-scheduler&dryRun=All`;
    const real = clientFor('admin');
    const simulated = new KubeClient(sim.url, sim.caCert, sim.token);
    try {
      await simulated.send(
        'PATCH',
        path.replace('&dryRun=All', ''),
        service('10.0.0.50'),
        'application/apply-patch+yaml',
      );
      const answers = await Promise.all(
        [real, simulated].map((c) =>
          c.send('PATCH', path, service('10.0.0.51'), 'application/apply-patch+yaml'),
        ),
      );
      const [fromReal, fromSim] = answers.map((a) => [a.status, (a.body as { message?: unknown }).message]);
      expect(fromReal?.[0]).toBe(422);
      expect(fromSim).toEqual(fromReal);
    } finally {
      real.close();
      simulated.close();
    }
    mark = auditMark(auditLog);
    const error = await create('pf-service', objects('10.0.0.51'), 'cluster').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as ocp.OperationError).operation).toBe('Preflight');
    expect(writesSince(auditLog, mark, ['pf-s1', 'pf-svc'])).toEqual([]);
    await cleanUp('pf-service', objects('10.0.0.50'));
  });

  test('a 403 on the 3rd of 9 objects: one Preflight error, and the audit log shows no write', async () => {
    const error = await create('pf-nine', NINE, 'no-secret-create').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ocp.OperationError);
    const refused = error as ocp.OperationError;
    expect([refused.operation, refused.code, refused.resources]).toEqual([
      'Preflight',
      'OTC_PREFLIGHT_REFUSED',
      [],
    ]);
    expect(
      refused.failures.map((f) => [
        f.resource.name,
        f.error instanceof ocp.RequestError ? f.error.statusCode : f.error,
      ]),
    ).toEqual([['pf-3', 403]]);
    expect(writesSince(auditLog, mark, NINE_NAMES)).toEqual([]);
  });

  // kube-apiserver's per-kind validation (pkg/apis/apps/validation), which the simulator does not
  // model (fidelity-known.json, kind-validation): the tier alone judges it. The simulator's own 422
  // in the pre-flight is the immutable clusterIP (test/operations/preflight.test.ts).
  test('a 422 (an apps/v1 StatefulSet without spec.selector) on the 2nd object: one Preflight error, no write', async () => {
    const statefulSet = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'pf-sts' },
      spec: {
        serviceName: 'pf-sts',
        template: {
          metadata: { labels: { app: 'pf-sts' } },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    };
    const objects = [configMap('pf-sts-config'), statefulSet];
    const error = await create('pf-sts', objects, 'namespace-admin').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ocp.OperationError);
    const refused = error as ocp.OperationError;
    expect([refused.operation, refused.code, refused.resources]).toEqual([
      'Preflight',
      'OTC_PREFLIGHT_REFUSED',
      [],
    ]);
    const [failure, ...more] = refused.failures;
    expect(more).toEqual([]);
    expect(failure?.resource.name).toBe('pf-sts');
    const cause = failure?.error;
    expect(cause instanceof ocp.RequestError ? [cause.statusCode, cause.code, cause.outcome] : cause).toEqual(
      [422, 'OTC_INVALID', 'refused'],
    );
    expect(cause?.message).toContain('spec.selector: Required value');
    expect(writesSince(auditLog, mark, ['pf-sts-config', 'pf-sts'])).toEqual([]);
  });

  test('a conflict on the 2nd object: nothing written', async () => {
    const owner = clientFor('admin');
    try {
      const path = `${pathOf('configmaps', 'pf-c2')}?fieldManager=other`;
      const seeded = await owner.send(
        'PATCH',
        path,
        configMap('pf-c2', { owned: 'theirs' }),
        'application/apply-patch+yaml',
      );
      expect(seeded.status).toBe(201);
    } finally {
      owner.close();
    }
    mark = auditMark(auditLog);
    const objects = [configMap('pf-c1'), configMap('pf-c2', { owned: 'mine' })];
    const error = await create('pf-conflict', objects, 'cluster').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as ocp.OperationError).operation).toBe('Preflight');
    const failure = (error as ocp.OperationError).failures[0]?.error;
    expect(failure instanceof ocp.RequestError ? failure.statusCode : failure).toBe(409);
    expect(writesSince(auditLog, mark, ['pf-c1', 'pf-c2'])).toEqual([]);
    await cleanUp('pf-conflict', objects);
  });

  test.each([
    ['a Pod with its ServiceAccount', [ACCOUNT, POD], 'pf-job'],
    ['a RoleBinding with its Role', [ACCOUNT, ROLE, BINDING], 'pf-read'],
  ])('%s in the same Template, as namespace-admin: no false refusal', async (_, objects, dependant) => {
    const refs = await create('pf-batch', objects, 'namespace-admin');
    expect(refs.every((r) => r.created)).toBe(true);
    const names = objects.map((o) => o.metadata.name);
    // Every object written once, in rendered order: the dependant after its prerequisites.
    expect(writesSince(auditLog, mark, names).map((e) => e.objectRef?.name)).toEqual(names);
    expect(names.at(-1)).toBe(dependant);
    await cleanUp('pf-batch', objects);
  });

  test('legacy authorization.openshift.io Role and RoleBinding in one Template, as namespace-admin: created', async () => {
    const objects = [
      ACCOUNT,
      { ...ROLE, apiVersion: 'authorization.openshift.io/v1' },
      {
        apiVersion: 'authorization.openshift.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'pf-read' },
        roleRef: { name: 'pf-reader', namespace: 'workers' },
        subjects: [{ kind: 'ServiceAccount', name: 'pf-runner' }],
      },
    ];
    const refs = await create('pf-legacy', objects, 'namespace-admin');
    expect(refs.map((r) => [r.kind, r.created])).toEqual([
      ['ServiceAccount', true],
      ['Role', true],
      ['RoleBinding', true],
    ]);
    await cleanUp('pf-legacy', objects);
  });

  test('a Pod whose ServiceAccount comes later in rendered order is refused, and nothing written', async () => {
    const error = await create('pf-late', [POD, ACCOUNT], 'namespace-admin').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as ocp.OperationError).operation).toBe('Preflight');
    expect(writesSince(auditLog, mark, ['pf-job', 'pf-runner'])).toEqual([]);
  });
});
