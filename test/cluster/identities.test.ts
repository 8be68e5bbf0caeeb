// Who the real tier knows: the identities of simulator/identities.json with their RBAC, and an
// identity a test makes at runtime with a client certificate of the tier's client CA.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { issueClientCertificate, type TlsMaterial } from '../../simulator/certs.ts';
import { currentContext } from '../../scripts/cluster/kube.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;
const written: string[] = [];
afterAll(() => {
  for (const path of written) rmSync(path, { force: true });
});

const configMap = (namespace: string): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'identity-check' },
  objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `identity-${namespace}` } }],
});

describe.skipIf(!clusterKubeconfig)('the real tier: identities', () => {
  const kubeconfig = clusterKubeconfig ?? '';

  test('a client certificate issued at runtime from the tier client CA authenticates as its common name', async () => {
    const ca = currentContext(kubeconfig).extension('openshift-template-client.test/client-ca');
    expect(ca?.cert).toBeDefined();
    const material = {
      clientCaCert: readFileSync(ca?.cert ?? '', 'utf8'),
      clientCaKey: readFileSync(ca?.key ?? '', 'utf8'),
    } as TlsMaterial;
    const certificate = issueClientCertificate(material, 'runtime-user', 3_600_000);
    const config = JSON.parse(readFileSync(kubeconfig, 'utf8')) as {
      clusters: { name: string; cluster: Record<string, unknown> }[];
    };
    const path = join(tmpdir(), `runtime-user-${process.pid}.json`);
    written.push(path);
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: config.clusters,
        users: [
          {
            name: 'runtime-user',
            user: {
              'client-certificate-data': Buffer.from(certificate.cert).toString('base64'),
              'client-key-data': Buffer.from(certificate.key).toString('base64'),
            },
          },
        ],
        contexts: [{ name: 'runtime', context: { cluster: config.clusters[0]?.name, user: 'runtime-user' } }],
        'current-context': 'runtime',
      }),
    );
    await using api = await ocp.connect({ kubeconfig: path });
    const refused = await ocp
      .create(configMap('workers'), {}, { namespace: 'workers', api })
      .catch((e: unknown) => e);
    // It may not even render the Template in workers: the server names the certificate's user.
    expect(refused).toBeInstanceOf(ocp.RequestError);
    expect((refused as ocp.RequestError).statusCode).toBe(403);
    expect((refused as ocp.RequestError).message).toContain('User "runtime-user" cannot');
  });

  test('namespace-admin may write in workers only', async () => {
    await using api = await ocp.connect({ kubeconfig, context: 'namespace-admin' });
    const refs = await ocp.create(configMap('workers'), {}, { namespace: 'workers', api });
    expect(refs.map((r) => r.name)).toEqual(['identity-workers']);
    await ocp.delete(configMap('workers'), {}, { namespace: 'workers', api });
    const refused = await ocp
      .create(configMap('other'), {}, { namespace: 'other', api })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ocp.RequestError);
    const failure = refused as ocp.RequestError;
    expect([failure.step, failure.statusCode, failure.code]).toEqual(['Process', 403, 'OTC_FORBIDDEN']);
    expect(failure.message).toContain('User "namespace-admin" cannot create resource "processedtemplates"');
  });
});
