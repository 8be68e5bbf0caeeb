// kube-apiserver's HTTP/1.1 keep-alive, held against the simulator's: neither announces a limit in
// a `Keep-Alive` header, and both keep a connection idle for longer than a Node.js server's 5 s
// (kube-apiserver closes it after 90 s: kubernetes/apiserver pkg/server/secure_serving.go,
// `IdleTimeout`). The library's HTTP/1.1 pool relies on both (src/wire/h1.ts, IDLE_SOCKET_MS): over
// HTTP/1.1 a create 6 s after another finds its pre-flight wave's sockets still open on the tier.
import diagnostics from 'node:diagnostics_channel';
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { type CurrentContext, currentContext } from '../../scripts/cluster/kube.ts';
import * as ocp from '../../src/index.ts';
import { startSimulator } from '../../simulator/index.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;
const PAUSE_MS = 6_000;

/** Where a test's own requests go, and as whom. */
type Server = Pick<CurrentContext, 'server' | 'ca' | 'token'>;

function tierServer(kubeconfig: string): Server {
  const { client, server, ca, token } = currentContext(kubeconfig);
  client.close();
  return { server, ca, token };
}

interface Seen {
  status: number | undefined;
  keepAliveHeader: string | undefined;
  reused: boolean;
}

/** GET /version over HTTP/1.1 on the agent's one keep-alive socket. */
function version(server: Server, agent: Agent): Promise<Seen> {
  const url = new URL(server.server);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/version',
        ca: server.ca,
        agent,
        headers: { authorization: `Bearer ${server.token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve({
            status: res.statusCode,
            keepAliveHeader: res.headers['keep-alive']?.toString(),
            reused: req.reusedSocket,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function twoRequestsApart(server: Server): Promise<Seen[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ALPNProtocols: ['http/1.1'] });
  try {
    const first = await version(server, agent);
    await sleep(PAUSE_MS);
    return [first, await version(server, agent)];
  } finally {
    agent.destroy();
  }
}

describe.skipIf(!clusterKubeconfig)('HTTP/1.1 keep-alive, kube-apiserver and the simulator', () => {
  test(
    `neither announces a limit, and both keep an idle connection past ${String(PAUSE_MS / 1000)} s`,
    async () => {
      const sim = await startSimulator({ protocol: 'http1' });
      try {
        const simServer: Server = {
          server: sim.kubeconfig.clusters[0]?.cluster.server ?? '',
          ca: sim.caCert,
          token: sim.kubeconfig.users.find((u) => u.name === 'admin')?.user.token ?? '',
        };
        const [tier, simulated] = await Promise.all([
          twoRequestsApart(tierServer(clusterKubeconfig ?? '')),
          twoRequestsApart(simServer),
        ]);
        const expected = [
          { status: 200, keepAliveHeader: undefined, reused: false },
          { status: 200, keepAliveHeader: undefined, reused: true },
        ];
        expect(tier).toEqual(expected);
        expect(simulated).toEqual(expected);
      } finally {
        await sim.close();
      }
    },
    PAUSE_MS + 30_000,
  );
});

const template: ocp.TemplateObject = {
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'keep-alive' },
  objects: [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ka-config' }, data: { a: 'b' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ka-more' }, data: { c: 'd' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ka-secret' }, stringData: { e: 'f' } },
  ],
};

describe.skipIf(!clusterKubeconfig)('the library over HTTP/1.1 against kube-apiserver', () => {
  test(
    `a create ${String(PAUSE_MS / 1000)} s after another opens no socket`,
    async () => {
      let connects = 0;
      const count = (): void => {
        connects += 1;
      };
      // undici announces every socket its pools connect, whoever's connector made it.
      diagnostics.subscribe('undici:client:connected', count);
      const api = await ocp.connect({
        kubeconfig: clusterKubeconfig ?? '',
        context: 'namespace-admin',
        http2: false,
      });
      const options = { namespace: 'workers', api };
      try {
        await ocp.create(template, {}, options);
        const opened = connects;
        // The wave's three dry runs and the quota list went out at once, each on a socket.
        expect(opened).toBeGreaterThanOrEqual(4);
        await sleep(PAUSE_MS);
        await ocp.create(template, {}, options);
        expect(connects).toBe(opened);
      } finally {
        await ocp.delete(template, {}, options).catch(() => undefined);
        diagnostics.unsubscribe('undici:client:connected', count);
        await api.close();
      }
    },
    PAUSE_MS + 30_000,
  );
});
