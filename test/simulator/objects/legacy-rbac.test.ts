// authorization.openshift.io/v1 Role and RoleBinding as openshift-apiserver serves them: a proxy to
// the rbac.authorization.k8s.io/v1 object it stores (openshift/openshift-apiserver
// pkg/authorization/apiserver/registry/rolebinding/proxy.go, role/proxy.go, registry/wrapper.go).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apply, call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
const LEGACY_ONLY = 'legacy-only-token';
const BOTH = 'both-groups-token';
const rule = (apiGroups: string[]) => ({ verbs: ['*'], apiGroups, resources: ['rolebindings'] });
beforeAll(async () => {
  sim = await startSimulator({
    tokens: {
      [LEGACY_ONLY]: { user: 'dev', rules: [rule(['authorization.openshift.io'])] },
      [BOTH]: { user: 'ops', rules: [rule(['authorization.openshift.io', 'rbac.authorization.k8s.io'])] },
    },
  });
});
afterAll(async () => {
  await sim.close();
});

const LEGACY = '/apis/authorization.openshift.io/v1/namespaces/workers';
const RBAC = '/apis/rbac.authorization.k8s.io/v1/namespaces/workers';
const APPLY = 'application/apply-patch+yaml';

const binding = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'authorization.openshift.io/v1',
  kind: 'RoleBinding',
  metadata: { name },
  groupNames: null,
  roleRef: { name: 'edit' },
  subjects: [{ kind: 'ServiceAccount', name: 'jenkins' }],
  ...extra,
});

const post = (path: string, body: unknown, query = '?fieldManager=tester'): ReturnType<typeof call> =>
  call(sim, 'POST', `${path}${query}`, { body });

describe('an apply that would create answers 404, in the legacy resource’s words', () => {
  for (const dryRun of ['', '&dryRun=All']) {
    test(`server-side apply of a new RoleBinding${dryRun ? ', dry run' : ''}`, async () => {
      const res = await apply(sim, `${LEGACY}/rolebindings/new_edit`, binding('new_edit'), 'tester', dryRun);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'rolebindings.authorization.openshift.io "new_edit" not found',
        reason: 'NotFound',
        details: { name: 'new_edit', group: 'authorization.openshift.io', kind: 'rolebindings' },
        code: 404,
      });
      expect(
        sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'new_edit'),
      ).toBeUndefined();
    });
  }

  test('a Role too', async () => {
    const role = {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [],
    };
    const res = await apply(sim, `${LEGACY}/roles/r`, role);
    expect(res.status).toBe(404);
    expect(res.json.message).toBe('roles.authorization.openshift.io "r" not found');
  });
});

describe('POST creates one RBAC object, seen under both groups', () => {
  test('create, read under both groups, replay by apply, delete', async () => {
    const created = await post(`${LEGACY}/rolebindings`, binding('jenkins_edit'));
    expect(created.status).toBe(201);
    const uid = (created.json.metadata as { uid: string }).uid;
    expect(created.json).toMatchObject({
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'RoleBinding',
      userNames: ['system:serviceaccount:workers:jenkins'],
      groupNames: null,
      subjects: [{ kind: 'ServiceAccount', name: 'jenkins' }],
      roleRef: { name: 'edit' },
    });
    const stored = sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'jenkins_edit');
    expect(stored).toMatchObject({
      metadata: { uid, namespace: 'workers' },
      subjects: [{ kind: 'ServiceAccount', name: 'jenkins' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    });
    // kube-apiserver records the create, by the fieldManager the POST named.
    const entries = (stored?.metadata as { managedFields: { manager: string }[] }).managedFields;
    expect(entries).toEqual([
      expect.objectContaining({
        manager: 'tester',
        operation: 'Update',
        apiVersion: 'rbac.authorization.k8s.io/v1',
      }),
    ]);
    const viaRbac = await call(sim, 'GET', `${RBAC}/rolebindings/jenkins_edit`);
    expect((viaRbac.json.metadata as { uid: string }).uid).toBe(uid);
    const again = await post(`${LEGACY}/rolebindings`, binding('jenkins_edit'));
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('rolebindings.authorization.openshift.io "jenkins_edit" already exists');

    // Later applies take the update path: 200, the same object. The view the patch is applied to
    // carries userNames, which the conversion back prefers to subjects (Convert_v1_RoleBinding_To_
    // authorization_RoleBinding): the first replay gives the service account its namespace, and a
    // changed subject list is lost to them. A second replay changes nothing but managedFields:
    // kube-apiserver drops the entries the proxy sent (authorization.openshift.io/v1) and records
    // none of its own, so it stores none; a third, forced, writes nothing.
    const path = `${LEGACY}/rolebindings/jenkins_edit`;
    const replay = await apply(sim, path, binding('jenkins_edit'));
    expect(replay.status).toBe(200);
    expect(replay.json.metadata).toMatchObject({ uid });
    const subjects = (): unknown =>
      sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'jenkins_edit')?.subjects;
    expect(subjects()).toEqual([{ kind: 'ServiceAccount', name: 'jenkins', namespace: 'workers' }]);
    const second = await apply(sim, path, binding('jenkins_edit'));
    expect(second.json.metadata).toMatchObject({ uid });
    expect((second.json.metadata as { managedFields?: unknown }).managedFields).toBeUndefined();
    const version = (second.json.metadata as { resourceVersion: string }).resourceVersion;
    // Forced, as create() forces these: with no managedFields left, openshift-apiserver's field
    // manager first gives every field to before-first-apply, which an apply may conflict with.
    const third = await apply(sim, path, binding('jenkins_edit'), 'tester', '&force=true');
    expect(third.json.metadata).toMatchObject({ uid, resourceVersion: version });
    const changed = binding('jenkins_edit', { subjects: [{ kind: 'Group', name: 'devs' }] });
    expect((await apply(sim, path, changed, 'tester', '&force=true')).status).toBe(200);
    expect(subjects()).toEqual([{ kind: 'ServiceAccount', name: 'jenkins', namespace: 'workers' }]);
    const byNames = binding('jenkins_edit', { userNames: [], groupNames: ['devs'] });
    const update = await apply(sim, path, byNames, 'tester', '&force=true');
    expect(update.json).toMatchObject({ userNames: null, groupNames: ['devs'] });
    expect(subjects()).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }]);

    const deleted = await call(sim, 'DELETE', `${LEGACY}/rolebindings/jenkins_edit`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
    expect((await call(sim, 'GET', `${RBAC}/rolebindings/jenkins_edit`)).status).toBe(404);
    const gone = await call(sim, 'GET', `${LEGACY}/rolebindings/jenkins_edit`);
    expect(gone.json.message).toBe('rolebindings.authorization.openshift.io "jenkins_edit" not found');
  });

  test('a dry-run POST answers 201 and stores nothing', async () => {
    const res = await post(`${LEGACY}/rolebindings`, binding('dry_edit'), '?fieldManager=tester&dryRun=All');
    expect(res.status).toBe(201);
    expect(res.json.metadata).toMatchObject({ name: 'dry_edit', uid: expect.any(String) as unknown });
    expect(
      sim.getObject('authorization.openshift.io/v1', 'RoleBinding', 'workers', 'dry_edit'),
    ).toBeUndefined();
  });

  test('a name RBAC refuses: kube-apiserver’s 422, renamed to the legacy resource', async () => {
    const res = await post(`${LEGACY}/rolebindings`, binding('a%b'));
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      `rolebindings.authorization.openshift.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`,
    );
    expect(res.json.details).toMatchObject({ group: 'authorization.openshift.io', kind: 'rolebindings' });
  });

  test('a subject kind the conversion does not know is a 500 without a reason', async () => {
    const res = await post(
      `${LEGACY}/rolebindings`,
      binding('odd', { subjects: [{ kind: 'Robot', name: 'r' }] }),
    );
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ message: 'invalid kind for origin subject: "Robot"' });
    expect(res.json.reason).toBeUndefined();
  });
});

describe('managedFields through the proxy: each side drops the other’s version', () => {
  interface Entry {
    manager: string;
    operation: string;
    apiVersion: string;
  }
  const entries = (name: string): string[] => {
    const stored = sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', name);
    const list = (stored?.metadata as { managedFields?: Entry[] } | undefined)?.managedFields ?? [];
    return list.map((e) => `${e.manager} ${e.operation} ${e.apiVersion}`);
  };
  const labels = (name: string): unknown => {
    const stored = sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', name);
    return (stored?.metadata as { labels?: unknown } | undefined)?.labels ?? {};
  };
  const declare = (name: string): ReturnType<typeof apply> =>
    apply(
      sim,
      `${RBAC}/rolebindings/${name}`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      },
      'team-rbac',
    );
  const labelled = (name: string, namespaced = false) =>
    binding(name, {
      metadata: { name, labels: { owner: 'job' } },
      // The view's userNames give a subject without one its namespace on the way back.
      ...(namespaced
        ? { subjects: [{ kind: 'ServiceAccount', name: 'jenkins', namespace: 'workers' }] }
        : {}),
    });

  test('an apply through the proxy records only what it changed, and takes other managers’ entries', async () => {
    expect((await post(`${LEGACY}/rolebindings`, labelled('fields'))).status).toBe(201);
    expect(entries('fields')).toEqual(['tester Update rbac.authorization.k8s.io/v1']);
    expect((await declare('fields')).status).toBe(200);
    expect(entries('fields')).toEqual([
      'team-rbac Apply rbac.authorization.k8s.io/v1',
      'tester Update rbac.authorization.k8s.io/v1',
    ]);
    // This replay fills in the subject's namespace: an Update of that, nothing else, kept.
    await apply(sim, `${LEGACY}/rolebindings/fields`, labelled('fields'));
    expect(entries('fields')).toEqual(['tester Update rbac.authorization.k8s.io/v1']);
    const identical = await apply(sim, `${LEGACY}/rolebindings/fields`, labelled('fields'));
    expect(identical.status).toBe(200);
    expect(entries('fields')).toEqual([]);
    expect(labels('fields')).toEqual({ owner: 'job' });
  });

  test('with no managedFields left, an apply meets before-first-apply: refused unless forced', async () => {
    const role = (verbs: string[]) => ({
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'Role',
      metadata: { name: 'bare' },
      rules: [{ verbs, resources: ['configmaps'] }],
    });
    const path = `${LEGACY}/roles/bare`;
    expect(
      (await call(sim, 'POST', `${LEGACY}/roles?fieldManager=job`, { body: role(['get']) })).status,
    ).toBe(201);
    // kube-apiserver keeps none after the proxy's second write, which changed nothing.
    await call(sim, 'PATCH', `${path}?fieldManager=job`, { body: role(['get']), contentType: APPLY });
    const changed = await call(sim, 'PATCH', `${path}?fieldManager=job`, {
      body: role(['list']),
      contentType: APPLY,
    });
    expect(changed.status).toBe(409);
    // Renamed as every error of the proxy's Update: the resource lands before the message.
    expect(changed.json.message).toBe(
      'roles.authorization.openshift.ioApply failed with 1 conflict: conflict with "before-first-apply" using authorization.openshift.io/v1: .rules',
    );
    const forced = `${path}?fieldManager=job&force=true`;
    expect((await call(sim, 'PATCH', forced, { body: role(['list']), contentType: APPLY })).status).toBe(200);
  });

  test('a merge patch goes through Update; one that only removes keeps the stored entries', async () => {
    expect((await post(`${LEGACY}/rolebindings`, labelled('merged', true))).status).toBe(201);
    expect((await declare('merged')).status).toBe(200);
    const path = `${LEGACY}/rolebindings/merged?fieldManager=job`;
    const body = { metadata: { labels: { owner: null } } };
    const dry = await call(sim, 'PATCH', `${path}&dryRun=All`, {
      body,
      contentType: 'application/merge-patch+json',
    });
    expect(dry.status).toBe(200);
    expect(labels('merged')).toEqual({ owner: 'job' });
    const res = await call(sim, 'PATCH', path, { body, contentType: 'application/merge-patch+json' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ apiVersion: 'authorization.openshift.io/v1', kind: 'RoleBinding' });
    expect(labels('merged')).not.toHaveProperty('owner');
    expect(entries('merged')).toEqual([
      'team-rbac Apply rbac.authorization.k8s.io/v1',
      'tester Update rbac.authorization.k8s.io/v1',
    ]);
    const gone = await call(sim, 'PATCH', `${LEGACY}/rolebindings/absent?fieldManager=job`, {
      body,
      contentType: 'application/merge-patch+json',
    });
    expect(gone.json.message).toBe('rolebindings.authorization.openshift.io "absent" not found');
  });
});

describe('the conversions of pkg/authorization/apis/authorization (v1 and rbacconversion)', () => {
  test('userNames and groupNames replace subjects; a Role reference keeps the namespace', async () => {
    const body = binding('names', {
      userNames: ['alice', 'system:admin', 'system:serviceaccount:other:robot'],
      groupNames: ['devs', 'system:authenticated'],
      roleRef: { name: 'reader', namespace: 'workers' },
      metadata: { name: 'names', annotations: { 'openshift.io/reconcile-protect': 'true' } },
    });
    const res = await post(`${LEGACY}/rolebindings`, body);
    expect(res.status).toBe(201);
    expect(sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'names')).toMatchObject({
      metadata: { annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:admin' },
        { kind: 'ServiceAccount', namespace: 'other', name: 'robot' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
    expect(res.json).toMatchObject({
      metadata: { annotations: { 'openshift.io/reconcile-protect': 'true' } },
      userNames: ['alice', 'system:admin', 'system:serviceaccount:other:robot'],
      groupNames: ['devs', 'system:authenticated'],
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'SystemUser', name: 'system:admin' },
        { kind: 'ServiceAccount', namespace: 'other', name: 'robot' },
        { kind: 'Group', name: 'devs' },
        { kind: 'SystemGroup', name: 'system:authenticated' },
      ],
      roleRef: { namespace: 'workers', name: 'reader' },
    });
  });

  test('Role rules: defaulted groups, sets sorted, mixed rules split, restricted rules dropped', async () => {
    const role = {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'Role',
      metadata: { name: 'reader' },
      rules: [
        { verbs: ['*'], resources: ['*'] },
        { verbs: ['watch', 'get', 'get'], resources: ['pods', 'configmaps'] },
        { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], nonResourceURLs: ['/healthz'] },
        {
          verbs: ['get'],
          resources: ['secrets'],
          attributeRestrictions: { kind: 'IsPersonalSubjectAccessReview' },
        },
      ],
    };
    const res = await post(`${LEGACY}/roles`, role);
    expect(res.status).toBe(201);
    expect(sim.getObject('rbac.authorization.k8s.io/v1', 'Role', 'workers', 'reader')?.rules).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps', 'pods'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    ]);
    expect(res.json.rules).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps', 'pods'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['get'], resources: [], nonResourceURLs: ['/healthz'] },
    ]);
    const list = await call(sim, 'GET', `${LEGACY}/roles`);
    expect(list.json).toMatchObject({ kind: 'RoleList', apiVersion: 'authorization.openshift.io/v1' });
  });
});

test('the proxy acts as the caller on kube-apiserver: RBAC verbs are needed on both groups', async () => {
  const path = `${LEGACY}/rolebindings?fieldManager=tester`;
  const denied = await call(sim, 'POST', path, { body: binding('dev_edit'), token: LEGACY_ONLY });
  expect(denied.status).toBe(403);
  expect(denied.json.message).toBe(
    'rolebindings.authorization.openshift.io is forbidden: User "dev" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "workers"',
  );
  const applied = await apply(sim, `${LEGACY}/rolebindings/dev_edit`, binding('dev_edit'));
  expect(applied.status).toBe(404);
  const allowed = await call(sim, 'POST', path, { body: binding('ops_edit'), token: BOTH });
  expect(allowed.status).toBe(201);
});
