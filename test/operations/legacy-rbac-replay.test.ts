// A job's legacy Roles and RoleBindings against the replay delete, on the simulator's model of
// openshift-apiserver's RBAC proxy (simulator/objects/legacy-rbac.ts): after a second create()
// kube-apiserver keeps no managedFields of the job (each side drops the other's version), so the
// owner label decides; one another manager declares too is relinquished by a merge patch that
// removes the label. test/cluster/legacy-rbac-replay.test.ts holds the same on the real tier.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { call } from '../simulator/client.ts';
import { type Harness, harness } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

const LABEL = 'openshift-template-client/field-manager';
const RBAC = 'rbac.authorization.k8s.io/v1';

const job = (name: string): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects: [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
    {
      apiVersion: 'authorization.openshift.io/v1',
      kind: 'Role',
      metadata: { name: `${name}-reader` },
      rules: [{ verbs: ['get'], resources: ['configmaps'] }],
    },
    {
      apiVersion: 'v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}_edit` },
      subjects: [{ kind: 'ServiceAccount', name }],
      roleRef: { name: 'edit' },
    },
  ],
});

interface Meta {
  labels?: Record<string, string>;
  managedFields?: { manager: string; operation: string; apiVersion: string }[];
}
const stored = (kind: string, name: string): Meta | undefined =>
  h.sim.getObject(RBAC, kind, 'workers', name)?.metadata as Meta | undefined;

describe('a job’s legacy RBAC objects and the replay delete', () => {
  test.each([1, 2, 3])('created %i times, then deleted by a replay', async (creates) => {
    const name = `lr-${creates}`;
    const options = { namespace: 'workers', fieldManager: 'jenkins-job' };
    for (let i = 0; i < creates; i += 1) await ocp.create(job(name), {}, options);
    const binding = stored('RoleBinding', `${name}_edit`);
    expect(binding?.labels?.[LABEL]).toBe('jenkins-job');
    const results = await ocp.delete(job(name), {}, options);
    expect(results.map((r) => r.deletion)).toEqual(['deleted', 'deleted', 'deleted']);
    expect(stored('RoleBinding', `${name}_edit`)).toBeUndefined();
    expect(stored('Role', `${name}-reader`)).toBeUndefined();
  });

  test('another job’s are left alone, nothing deleted', async () => {
    await ocp.create(job('lr-theirs'), {}, { namespace: 'workers', fieldManager: 'their-job' });
    await ocp.create(job('lr-theirs'), {}, { namespace: 'workers', fieldManager: 'their-job' });
    const error = await ocp
      .delete(job('lr-theirs'), {}, { namespace: 'workers', fieldManager: 'jenkins-job' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    const codes = (error as ocp.OperationError).failures.map((f) => f.error.code);
    expect(codes).toEqual(['OTC_WRONG_FIELD_MANAGER', 'OTC_WRONG_FIELD_MANAGER', 'OTC_WRONG_FIELD_MANAGER']);
    expect(stored('RoleBinding', 'lr-theirs_edit')?.labels?.[LABEL]).toBe('their-job');
  });

  test('one another manager declares too is relinquished by a merge patch of the label', async () => {
    const options = { namespace: 'workers', fieldManager: 'jenkins-job' };
    await ocp.create(job('lr-shared'), {}, options);
    await ocp.create(job('lr-shared'), {}, options);
    const declared = await call(
      h.sim,
      'PATCH',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/workers/rolebindings/lr-shared_edit?fieldManager=team-rbac',
      {
        contentType: 'application/apply-patch+yaml',
        body: {
          apiVersion: RBAC,
          kind: 'RoleBinding',
          metadata: { name: 'lr-shared_edit' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
          subjects: [{ kind: 'ServiceAccount', name: 'lr-shared', namespace: 'workers' }],
        },
      },
    );
    expect(declared.status).toBe(200);
    h.sim.clearLog();
    const results = await ocp.delete(job('lr-shared'), {}, options);
    expect(results.map((r) => [r.name, r.deletion, r.declarers])).toEqual([
      ['lr-shared_edit', 'relinquished', ['team-rbac']],
      ['lr-shared-reader', 'deleted', undefined],
      ['lr-shared', 'deleted', undefined],
    ]);
    const patch = h.sim.log.find((e) => e.method === 'PATCH');
    expect(patch?.path).toContain('/apis/authorization.openshift.io/v1/namespaces/workers/rolebindings/');
    const kept = stored('RoleBinding', 'lr-shared_edit');
    expect(kept?.labels?.[LABEL]).toBeUndefined();
    expect(kept?.managedFields?.map((m) => m.manager)).toContain('team-rbac');
    // A second replay deletes nothing: it gives up the label again or leaves the object alone.
    const again = await ocp.delete(job('lr-shared'), {}, options);
    expect(again[0]?.deletion).not.toBe('deleted');
    expect(stored('RoleBinding', 'lr-shared_edit')).toBeDefined();
  });
});
