// The replay delete on the real tier: kube-apiserver records no managedFields entry for an object
// applied with its name only, so the owner label create() stamps is what marks it as the job's own.
import { describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

describe.skipIf(!clusterKubeconfig)('the replay delete on the real tier', () => {
  test('an object applied with its name only carries the owner label alone, and replay deletes it', async () => {
    const template: ocp.TemplateObject = {
      apiVersion: 'template.openshift.io/v1',
      kind: 'Template',
      metadata: { name: 'bare' },
      objects: [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tier-bare-account' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tier-bare-config' }, data: { a: 'b' } },
      ],
    };
    await using api = await ocp.connect({ kubeconfig: clusterKubeconfig ?? '' });
    const options = { namespace: 'workers', api } as const;
    await ocp.create(template, {}, options);
    const [account] = await ocp.get(template, {}, options);
    // The label is the only field its manager owns: the entry that owns it is all there is.
    expect(account?.metadata?.labels).toEqual({
      'openshift-template-client/field-manager': 'mini-scheduler',
    });
    const entries = (account?.metadata?.managedFields ?? []) as { manager?: string; operation?: string }[];
    expect(entries.map((m) => [m.manager, m.operation])).toEqual([['mini-scheduler', 'Apply']]);
    const replay = await ocp.delete(template, {}, options);
    expect(replay.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['ConfigMap', 'deleted', undefined],
      ['ServiceAccount', 'deleted', undefined],
    ]);
  });
});
