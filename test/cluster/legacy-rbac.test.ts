// Legacy authorization.openshift.io Roles and RoleBindings on the real tier: openshift-apiserver
// stores them in kube-apiserver's RBAC through the caller's identity (pkg/authorization/apiserver/
// registry/role/proxy.go, rolebinding/proxy.go), so kube-apiserver holds the objects and judges
// every call (its escalation check included). On a simulator-backed tier the simulator's proxy
// model stands in for it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

const legacy = (binding: Record<string, unknown>): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'legacy-rbac' },
  objects: [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'legacy-app' } },
    {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'Role',
      metadata: { name: 'legacy-reader' },
      rules: [{ verbs: ['get', 'list'], resources: ['configmaps'] }],
    },
    { apiVersion: 'authorization.openshift.io/v1', kind: 'RoleBinding', ...binding },
    // OpenShift 3's spelling, which the server's processing puts into authorization.openshift.io.
    {
      apiVersion: 'v1',
      kind: 'RoleBinding',
      metadata: { name: 'legacy-old-view' },
      groupNames: ['legacy-viewers'],
      roleRef: { name: 'view' },
    },
  ],
});

const READ_BINDING = {
  metadata: { name: 'legacy-read' },
  roleRef: { name: 'legacy-reader', namespace: 'workers' },
  subjects: [{ kind: 'ServiceAccount', name: 'legacy-app' }],
};

describe.skipIf(!clusterKubeconfig)('legacy RBAC kinds on the real tier', () => {
  let admin: KubeClient;
  beforeAll(() => {
    admin = currentContext(clusterKubeconfig ?? '').client;
  });
  afterAll(() => {
    admin.close();
  });

  const rbacUid = async (resource: string, name: string): Promise<string | undefined> => {
    const answer = await admin.send(
      'GET',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/workers/${resource}/${name}`,
    );
    return answer.status === 200 ? (answer.body as { metadata: { uid: string } }).metadata.uid : undefined;
  };

  test('created by POST into kube-apiserver, replayed with the same UIDs, read and deleted', async () => {
    const warnings: string[] = [];
    const template = legacy(READ_BINDING);
    {
      await using api = await ocp.connect({
        kubeconfig: clusterKubeconfig ?? '',
        onWarning: (w) => warnings.push(w.text),
      });
      const refs = await ocp.create(template, {}, { namespace: 'workers', api });
      expect(refs.map((r) => [r.kind, r.name, r.created])).toEqual([
        ['ServiceAccount', 'legacy-app', true],
        ['Role', 'legacy-reader', true],
        ['RoleBinding', 'legacy-read', true],
        ['RoleBinding', 'legacy-old-view', true],
      ]);
      expect(refs[3]?.apiVersion).toBe('authorization.openshift.io/v1');
      expect(warnings.filter((w) => w.includes('POST'))).toHaveLength(3);
      // kube-apiserver holds them: the UIDs the library reports are kube-apiserver's.
      expect(await rbacUid('roles', 'legacy-reader')).toBe(refs[1]?.uid);
      expect(await rbacUid('rolebindings', 'legacy-read')).toBe(refs[2]?.uid);
      expect(await rbacUid('rolebindings', 'legacy-old-view')).toBe(refs[3]?.uid);
      const again = await ocp.create(template, {}, { namespace: 'workers', api });
      expect(again.map((r) => r.uid)).toEqual(refs.map((r) => r.uid));
      const live = await ocp.get(template, {}, { namespace: 'workers', api });
      expect(live.map((o) => `${o.apiVersion} ${o.kind}`)).toEqual([
        'v1 ServiceAccount',
        'authorization.openshift.io/v1 Role',
        'authorization.openshift.io/v1 RoleBinding',
        'authorization.openshift.io/v1 RoleBinding',
      ]);
    }
    await using fresh = await ocp.connect({ kubeconfig: clusterKubeconfig ?? '' });
    await ocp.delete(template, {}, { namespace: 'workers', api: fresh });
    expect(await rbacUid('roles', 'legacy-reader')).toBeUndefined();
    expect(await rbacUid('rolebindings', 'legacy-read')).toBeUndefined();
    expect(await rbacUid('rolebindings', 'legacy-old-view')).toBeUndefined();
  });

  test("a binding to a role its caller does not hold is refused by kube-apiserver's escalation check", async () => {
    await using api = await ocp.connect({ kubeconfig: clusterKubeconfig ?? '', context: 'namespace-admin' });
    const template = legacy({
      metadata: { name: 'legacy-escalate' },
      roleRef: { name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'legacy-app' }],
    });
    const error = await ocp.create(template, {}, { namespace: 'workers', api }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    const failure = (error as ocp.OperationError).failures[0];
    expect(failure?.resource.name).toBe('legacy-escalate');
    expect(failure?.error.statusCode).toBe(403);
    const message = failure?.error.message ?? '';
    // In RBAC's words, renamed to the legacy resource as openshift-apiserver's proxy renames it.
    expect(message).toContain('rolebindings.authorization.openshift.io "legacy-escalate" is forbidden');
    expect(message).toContain('escalat');
    expect(await rbacUid('rolebindings', 'legacy-escalate')).toBeUndefined();
    await ocp.delete(template, {}, { namespace: 'workers', api });
  });
});
