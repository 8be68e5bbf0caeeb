// Where kube-apiserver's API Priority and Fairness puts the simulator's own requests. On OpenShift,
// openshift-apiserver's SubjectAccessReviews and TokenReviews are exempt and the rest of its
// requests run at workload-high (cluster-openshift-apiserver-operator manifests/09_flowschema.yaml):
// its delegated checks never queue behind the user requests that wait on them. Without those
// FlowSchemas the simulator's reviews fell into global-default beside the callers' own requests,
// and a burst of Process calls held every seat there while their reviews waited for one.
import { request } from 'node:https';
import { describe, expect, test } from 'vitest';
import { type CurrentContext, currentContext } from '../../scripts/cluster/kube.ts';
import { SIMULATOR_USER } from '../../scripts/cluster/material.ts';
import { backendOf } from './backend.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

type Tier = Pick<CurrentContext, 'server' | 'ca' | 'token'>;

function adminOf(kubeconfig: string): Tier {
  const { client, server, ca, token } = currentContext(kubeconfig);
  client.close();
  return { server, ca, token };
}

/** The priority level's UID that APF names in its answer header, and the body. */
function send(
  tier: Tier,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; priorityLevel: string | undefined; body: unknown }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, tier.server),
      {
        method,
        ca: tier.ca,
        headers: {
          authorization: `Bearer ${tier.token}`,
          accept: 'application/json',
          ...headers,
          ...(text === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const header = res.headers['x-kubernetes-pf-prioritylevel-uid'];
          resolve({
            status: res.statusCode ?? 0,
            priorityLevel: typeof header === 'string' ? header : undefined,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function priorityLevelUid(tier: Tier, name: string): Promise<string> {
  const answer = await send(
    tier,
    'GET',
    `/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/${name}`,
    {},
  );
  expect(answer.status).toBe(200);
  return (answer.body as { metadata: { uid: string } }).metadata.uid;
}

describe.skipIf(!clusterKubeconfig)(
  'API Priority and Fairness for openshift-apiserver, real or the simulator',
  () => {
    const tier = adminOf(clusterKubeconfig ?? '');
    // As whoever serves the OpenShift groups on this tier: the real server's ServiceAccount or the simulator's user.
    const asSimulator = { 'impersonate-user': backendOf(clusterKubeconfig)?.user ?? SIMULATOR_USER };

    test("its SubjectAccessReviews are exempt, as openshift-apiserver's are on OpenShift", async () => {
      const review = {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'namespace-admin',
          resourceAttributes: {
            verb: 'create',
            group: 'template.openshift.io',
            resource: 'processedtemplates',
          },
        },
      };
      const answer = await send(
        tier,
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        asSimulator,
        review,
      );
      expect(answer.status).toBe(201);
      expect(answer.priorityLevel).toBe(await priorityLevelUid(tier, 'exempt'));
    });

    test('its other requests run at workload-high, apart from the callers it answers', async () => {
      const answer = await send(tier, 'GET', '/api/v1/namespaces/workers', asSimulator);
      expect(answer.status).toBe(200);
      expect(answer.priorityLevel).toBe(await priorityLevelUid(tier, 'workload-high'));
    });

    test("a user's own requests stay in global-default, as on OpenShift", async () => {
      const answer = await send(tier, 'GET', '/api/v1/namespaces/workers/configmaps', {
        'impersonate-user': 'namespace-admin',
      });
      expect(answer.status).toBe(200);
      expect(answer.priorityLevel).toBe(await priorityLevelUid(tier, 'global-default'));
    });
  },
);
