// The replay delete on the real tier: what kube-apiserver records in managedFields decides what a
// replay may delete. An object applied with its name only gets no entry, so replay leaves it alone.
import { describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

describe.skipIf(!clusterKubeconfig)('the replay delete on the real tier', () => {
  test('an object applied with its name only is left alone by replay, and deleted by its ref', async () => {
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
    const refs = await ocp.create(template, {}, options);
    const [account] = await ocp.get(template, {}, options);
    expect(account?.metadata?.managedFields).toBeUndefined();
    const replay = await ocp.delete(template, {}, options);
    expect(replay.map((r) => [r.kind, r.deletion, r.reason])).toEqual([
      ['ConfigMap', 'deleted', undefined],
      ['ServiceAccount', 'left-alone', 'not-owned'],
    ]);
    const byRef = await ocp.delete({
      ...options,
      resources: refs.filter((r) => r.kind === 'ServiceAccount'),
    });
    expect(byRef.map((r) => r.deletion)).toEqual(['deleted']);
  });
});
