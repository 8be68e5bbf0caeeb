// The simulator behind the aggregator trusts identity headers only over the front proxy's
// certificate: a client that dials its port directly and names a user in X-Remote-User is not
// that user. Through kube-apiserver the same request is answered for the real caller.
import { request } from 'node:https';
import { describe, expect, test } from 'vitest';
import { currentContext } from '../../scripts/cluster/kube.ts';
import { simulatorBacked } from './backend.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;

/** A GET straight to the simulator's port, TLS unverified (the test forges, it does not trust). */
function direct(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

// Simulator-backed: the real openshift-apiserver answers such a request 403 as system:anonymous.
describe.skipIf(!clusterKubeconfig || !simulatorBacked())(
  'the aggregated simulator and its front proxy',
  () => {
    test('identity headers without the front-proxy certificate are refused; through kube-apiserver they are not needed', async () => {
      const admin = currentContext(clusterKubeconfig ?? '').client;
      try {
        const apiService = await admin.send(
          'GET',
          '/apis/apiregistration.k8s.io/v1/apiservices/v1.template.openshift.io',
        );
        const port = (apiService.body as { spec: { service: { port: number } } }).spec.service.port;
        const path = '/apis/template.openshift.io/v1/namespaces/infra/templates';
        expect(
          await direct(port, path, { 'x-remote-user': 'admin', 'x-remote-group': 'system:masters' }),
        ).toBe(401);
        expect((await admin.send('GET', path)).status).toBe(200);
      } finally {
        admin.close();
      }
    });
  },
);
