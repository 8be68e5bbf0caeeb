// A job's legacy Roles and RoleBindings against the replay delete on the real tier. openshift-
// apiserver's proxy writes them as updates carrying managedFields in authorization.openshift.io/v1,
// which kube-apiserver drops (structured-merge-diff merge/update.go, IsMissingVersionError), so
// after a second create() nothing in managedFields says whose they are: the owner label decides,
// and it survives the proxy's create and update. One another manager declares too is relinquished
// by a merge patch that removes the label (an apply through the proxy would give up nothing).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';
const NAMESPACE = 'workers';
const RBAC = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}`;
const LABEL = 'openshift-template-client/field-manager';

/** A jenkins-like job: its ServiceAccount, a legacy Role, a binding in each legacy spelling. */
const jenkins = (name: string): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects: [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
    {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'Role',
      metadata: { name: `${name}-reader` },
      rules: [{ verbs: ['get', 'list'], resources: ['configmaps'] }],
    },
    {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-read` },
      roleRef: { name: `${name}-reader`, namespace: NAMESPACE },
      subjects: [{ kind: 'ServiceAccount', name }],
    },
    // jenkins-ephemeral's own spelling, which processing puts into authorization.openshift.io.
    {
      apiVersion: 'v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}_edit` },
      groupNames: null,
      subjects: [{ kind: 'ServiceAccount', name }],
      roleRef: { name: 'edit' },
    },
  ],
});

const rbacPaths = (name: string): string[] => [
  `${RBAC}/roles/${name}-reader`,
  `${RBAC}/rolebindings/${name}-read`,
  `${RBAC}/rolebindings/${name}_edit`,
];

interface Live {
  metadata?: { labels?: Record<string, string>; managedFields?: { manager: string; apiVersion: string }[] };
}

describe.skipIf(clusterKubeconfig === '')('a job’s legacy RBAC objects and the replay delete', () => {
  let admin: KubeClient;
  const options = (api: ocp.Connection, fieldManager: string) => ({
    namespace: NAMESPACE,
    api,
    fieldManager,
  });
  const read = async (path: string): Promise<Live | undefined> => {
    const answer = await admin.send('GET', path);
    return answer.status === 200 ? (answer.body as Live) : undefined;
  };
  const names = ['lr-once', 'lr-twice', 'lr-thrice', 'lr-theirs', 'lr-shared'];

  const cleanup = async (): Promise<void> => {
    for (const name of names) {
      for (const path of rbacPaths(name)) await admin.send('DELETE', path);
      await admin.send('DELETE', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${name}`);
    }
    await admin.send('DELETE', `/api/v1/namespaces/${NAMESPACE}/configmaps/lr-mine`);
  };
  beforeAll(async () => {
    admin = currentContext(clusterKubeconfig).client;
    await cleanup();
  });
  afterAll(async () => {
    await cleanup();
    admin.close();
  });

  test.each([
    ['lr-once', 1],
    ['lr-twice', 2],
    ['lr-thrice', 3],
  ])('%s: created %i times, then deleted by a replay from a new process', async (name, creates) => {
    const job = jenkins(name);
    {
      await using api = await ocp.connect({ kubeconfig: clusterKubeconfig });
      for (let i = 0; i < creates; i += 1) await ocp.create(job, {}, options(api, 'jenkins-job'));
    }
    // The label survives the proxy's create and its merge patches, and no manager but the job's
    // appears (an apply through the proxy would have handed the fields to "before-first-apply").
    for (const path of rbacPaths(name)) {
      const live = await read(path);
      expect(live?.metadata?.labels?.[LABEL]).toBe('jenkins-job');
      for (const entry of live?.metadata?.managedFields ?? []) expect(entry.manager).toBe('jenkins-job');
    }
    await using fresh = await ocp.connect({ kubeconfig: clusterKubeconfig });
    const results = await ocp.delete(job, {}, options(fresh, 'jenkins-job'));
    expect(results.map((r) => [r.kind, r.deletion])).toEqual([
      ['RoleBinding', 'deleted'],
      ['RoleBinding', 'deleted'],
      ['Role', 'deleted'],
      ['ServiceAccount', 'deleted'],
    ]);
    for (const path of rbacPaths(name)) expect(await read(path)).toBeUndefined();
  });

  test('another job’s are left alone: every object its mark, nothing deleted', async () => {
    const job = jenkins('lr-theirs');
    await using api = await ocp.connect({ kubeconfig: clusterKubeconfig });
    await ocp.create(job, {}, options(api, 'their-job'));
    await ocp.create(job, {}, options(api, 'their-job'));
    const error = await ocp.delete(job, {}, options(api, 'jenkins-job')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    const codes = (error as ocp.OperationError).failures.map((f) => f.error.code);
    expect(codes).toEqual(Array(4).fill('OTC_WRONG_FIELD_MANAGER'));
    for (const path of rbacPaths('lr-theirs')) {
      expect((await read(path))?.metadata?.labels?.[LABEL]).toBe('their-job');
    }
    // Beside an object of its own, the others are each left alone, said.
    const mine = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lr-mine' } };
    const mixed = { ...job, objects: [...(job.objects ?? []), mine] };
    await ocp.create({ ...job, objects: [mine] }, {}, options(api, 'jenkins-job'));
    const results = await ocp.delete(mixed, {}, options(api, 'jenkins-job'));
    expect(results.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['ConfigMap', 'deleted', undefined],
      ['RoleBinding', 'left-alone', 'not-owned'],
      ['RoleBinding', 'left-alone', 'not-owned'],
      ['Role', 'left-alone', 'not-owned'],
      ['ServiceAccount', 'left-alone', 'not-owned'],
    ]);
    for (const path of rbacPaths('lr-theirs')) expect(await read(path)).toBeDefined();
  });

  test('one another manager declares too is relinquished: the label goes, the object and their entry stay', async () => {
    const job = jenkins('lr-shared');
    await using api = await ocp.connect({ kubeconfig: clusterKubeconfig });
    await ocp.create(job, {}, options(api, 'jenkins-job'));
    await ocp.create(job, {}, options(api, 'jenkins-job'));
    // Another tool declares the binding in its own API group, as kubectl apply of an rbac object does.
    const path = `${RBAC}/rolebindings/lr-shared_edit`;
    const declared = await admin.send(
      'PATCH',
      // Forced: after two creates kube-apiserver keeps no managedFields, so this apply meets
      // before-first-apply, which owns every field.
      `${path}?fieldManager=team-rbac&force=true`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'lr-shared_edit', namespace: NAMESPACE },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'ServiceAccount', name: 'lr-shared', namespace: NAMESPACE }],
      },
      'application/apply-patch+yaml',
    );
    expect(declared.status).toBe(200);
    await using fresh = await ocp.connect({ kubeconfig: clusterKubeconfig });
    const results = await ocp.delete(job, {}, options(fresh, 'jenkins-job'));
    expect(results.map((r) => [r.name, r.deletion, r.declarers])).toEqual([
      ['lr-shared_edit', 'relinquished', ['team-rbac']],
      ['lr-shared-read', 'deleted', undefined],
      ['lr-shared-reader', 'deleted', undefined],
      ['lr-shared', 'deleted', undefined],
    ]);
    const kept = await read(path);
    expect(kept?.metadata?.labels?.[LABEL]).toBeUndefined();
    expect(kept?.metadata?.managedFields?.map((m) => [m.manager, m.apiVersion])).toContainEqual([
      'team-rbac',
      'rbac.authorization.k8s.io/v1',
    ]);
    // A second replay deletes nothing: it gives up the label again or leaves the object alone.
    const again = await ocp.delete(job, {}, options(fresh, 'jenkins-job'));
    expect(again[0]?.deletion).not.toBe('deleted');
    expect(await read(path)).toBeDefined();
  });
});
