// The simulator's model of openshift-apiserver's RBAC proxy held to the real one: the same legacy
// RoleBinding created by POST, applied through the proxy twice, declared by another manager in
// rbac.authorization.k8s.io/v1, merge-patched through the proxy (dry run, then for real) and read
// back as kube-apiserver stores it after each step (labels, managedFields, subjects), on the
// simulator alone and on the tier; then create()'s own path for a ServiceAccount subject without a
// namespace, as published Templates write it: POST, merge patches of the same body (a merge patch
// fills the namespace in). Any difference fails unless fidelity-known.json lists it
// (docs/fidelity.md).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';
import { differences, type Json, normalise, unexplained } from './fidelity.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';
const NAME = 'lr-fidelity';
const LEGACY = `/apis/authorization.openshift.io/v1/namespaces/workers/rolebindings`;
const RBAC = `/apis/rbac.authorization.k8s.io/v1/namespaces/workers/rolebindings`;

const legacyBinding = {
  apiVersion: 'authorization.openshift.io/v1',
  kind: 'RoleBinding',
  metadata: { name: NAME, labels: { owner: 'job' } },
  roleRef: { name: 'edit' },
  subjects: [{ kind: 'ServiceAccount', name: 'jenkins', namespace: 'workers' }],
};
const declared = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: NAME, namespace: 'workers' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
};
const identity = {
  apiVersion: 'authorization.openshift.io/v1',
  kind: 'RoleBinding',
  metadata: { name: NAME },
};
const unlabel = { metadata: { labels: { owner: null } } };
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

type Step = [string, string, string, unknown, string?];

const allSteps: Step[] = [
  ['create', 'POST', `${LEGACY}?fieldManager=job`, legacyBinding],
  ['apply', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job&force=true`, legacyBinding, APPLY],
  ['apply again', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job&force=true`, legacyBinding, APPLY],
  ['declared', 'PATCH', `${RBAC}/${NAME}?fieldManager=team-rbac&force=true`, declared, APPLY],
  ['identity apply', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job`, identity, APPLY],
  ['merge, dry run', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job&dryRun=All`, unlabel, MERGE],
  ['merge', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job`, unlabel, MERGE],
];

const namespaceless = {
  ...legacyBinding,
  subjects: [{ kind: 'ServiceAccount', name: 'jenkins' }],
};
/** create()'s requests for an existing legacy RoleBinding: a merge patch of the rendered body. */
const createPath: Step[] = [
  ['create', 'POST', `${LEGACY}?fieldManager=job`, namespaceless],
  ['merge, dry run', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job&dryRun=All`, namespaceless, MERGE],
  ['merge', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job`, namespaceless, MERGE],
  ['merge again', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job`, namespaceless, MERGE],
  ['relinquish', 'PATCH', `${LEGACY}/${NAME}?fieldManager=job`, unlabel, MERGE],
];

/** The steps, each a request and the stored RBAC object's metadata and subjects after it. */
async function run(client: KubeClient, steps: Step[] = allSteps): Promise<Json> {
  await client.send('DELETE', `${RBAC}/${NAME}`);
  const out: Record<string, Json> = {};
  for (const [step, method, path, body, contentType] of steps) {
    const answer = await client.send(method, path, body, contentType);
    const stored = await client.send('GET', `${RBAC}/${NAME}`);
    const { metadata, subjects } = stored.body as {
      metadata?: { labels?: unknown; managedFields?: unknown };
      subjects?: unknown;
    };
    out[step] = normalise({
      status: answer.status,
      labels: metadata?.labels ?? null,
      managedFields: metadata?.managedFields ?? null,
      subjects: subjects ?? null,
    });
  }
  await client.send('DELETE', `${RBAC}/${NAME}`);
  return out;
}

describe.skipIf(clusterKubeconfig === '')(
  'legacy RBAC through the proxy: the simulator against the real tier',
  () => {
    let sim: Simulator;
    const simKubeconfig = join(tmpdir(), `legacy-rbac-fidelity-${process.pid}.json`);
    const clients: KubeClient[] = [];
    beforeAll(async () => {
      sim = await startSimulator();
      await sim.writeKubeconfig(simKubeconfig);
      clients.push(currentContext(simKubeconfig).client, currentContext(clusterKubeconfig).client);
    });
    afterAll(async () => {
      for (const client of clients) client.close();
      await sim.close();
      rmSync(simKubeconfig, { force: true });
    });

    test('create, applies, another manager, merge patch: the answers and the stored managedFields', async () => {
      const [simulator, real] = clients;
      if (!simulator || !real) throw new Error('both servers must be connected first');
      const a = await run(simulator);
      const b = await run(real);
      expect(unexplained(differences('legacy-rbac', a, b))).toEqual([]);
    });

    test("create()'s path for a ServiceAccount subject without a namespace: POST, merge patches", async () => {
      const [simulator, real] = clients;
      if (!simulator || !real) throw new Error('both servers must be connected first');
      const a = await run(simulator, createPath);
      const b = await run(real, createPath);
      expect(unexplained(differences('legacy-rbac', a, b))).toEqual([]);
    });
  },
);
