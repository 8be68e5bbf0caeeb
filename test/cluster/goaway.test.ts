// #34 item 8 against the real tier's streams: a GOAWAY with an error code (RFC 9113 section 6.8)
// says which streams were not processed, whatever the code. Its frame comes from a relay in front
// of the tier (h2-relay.ts: kube-apiserver sends one only to a misbehaving client); every request
// is the tier's to handle, and its audit log, the real write log, says what was written.
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';
import { AUDIT_LOG_EXTENSION } from '../../scripts/check-target.ts';
import { type H2Relay, startH2Relay } from './h2-relay.ts';
import { instance } from '../helpers.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';
const NAMESPACE = 'workers';
const ENHANCE_YOUR_CALM = 0xb;
const PROTOCOL_ERROR = 0x1;

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
}

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: name },
});
const template = (name: string, names: string[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects: names.map(configMap),
});
const pathOf = (name: string): string => `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`;

/** Writes of `name` in the audit log from `mark` on (answered below 400, not dry runs). */
function writesOf(log: string, mark: number, name: string): number {
  return readFileSync(log)
    .subarray(mark)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(
      (line) =>
        JSON.parse(line) as {
          verb: string;
          requestURI: string;
          objectRef?: { name?: string };
          responseStatus?: { code?: number };
        },
    )
    .filter((e) => ['create', 'patch', 'update'].includes(e.verb) && e.objectRef?.name === name)
    .filter((e) => !e.requestURI.includes('dryRun=All') && (e.responseStatus?.code ?? 0) < 400).length;
}

describe.skipIf(clusterKubeconfig === '')(
  '#34 item 8: a GOAWAY with an error code, in front of the real tier',
  () => {
    let relay: H2Relay;
    let client: KubeClient;
    let api: ocp.Connection;
    let dir: string;
    let auditLog: string;
    const names = ['gw-calm-1', 'gw-calm-2', 'gw-proto-1', 'gw-proto-2'];

    beforeAll(async () => {
      const context = currentContext(clusterKubeconfig);
      client = context.client;
      auditLog = context.extension(AUDIT_LOG_EXTENSION)?.path ?? '';
      const config = JSON.parse(readFileSync(clusterKubeconfig, 'utf8')) as Kubeconfig;
      const cluster = config.clusters[0]?.cluster;
      if (!cluster) throw new Error(`${clusterKubeconfig}: no cluster`);
      const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
      relay = await startH2Relay(cluster.server, ca);
      cluster.server = relay.url;
      cluster['certificate-authority-data'] = Buffer.from(relay.caCert).toString('base64');
      dir = await mkdtemp(join(tmpdir(), 'otc-goaway-'));
      const kubeconfig = join(dir, 'kubeconfig.json');
      await writeFile(kubeconfig, JSON.stringify(config), { mode: 0o600 });
      api = await ocp.connect({ kubeconfig });
      for (const name of names) await client.send('DELETE', pathOf(name));
    });
    afterAll(async () => {
      await api.close();
      for (const name of names) await client.send('DELETE', pathOf(name));
      client.close();
      await relay.close();
      await rm(dir, { recursive: true, force: true });
    });

    test('a stream above the last-stream-id of an ENHANCE_YOUR_CALM GOAWAY is sent again on a new connection: written once', async () => {
      // Rendered once first, so the create's requests are its applies.
      await ocp.process(template('gw-calm', names.slice(0, 2)), {}, { namespace: NAMESPACE, api });
      const sessions = relay.sessions;
      const mark = statSync(auditLog).size;
      relay.goAwayOn({
        method: 'PATCH',
        path: pathOf('gw-calm-2'),
        errorCode: ENHANCE_YOUR_CALM,
        processed: false,
      });
      const refs = await ocp.create(
        template('gw-calm', names.slice(0, 2)),
        {},
        { namespace: NAMESPACE, api },
      );
      expect(refs.map((r) => [r.name, r.created])).toEqual([
        ['gw-calm-1', true],
        ['gw-calm-2', true],
      ]);
      expect(relay.sessions).toBe(sessions + 1);
      expect([writesOf(auditLog, mark, 'gw-calm-1'), writesOf(auditLog, mark, 'gw-calm-2')]).toEqual([1, 1]);
    });

    test('the stream at the last-stream-id of a PROTOCOL_ERROR GOAWAY is not sent again: unknown, and the tier did write it', async () => {
      const mark = statSync(auditLog).size;
      relay.goAwayOn({
        method: 'PATCH',
        path: pathOf('gw-proto-2'),
        errorCode: PROTOCOL_ERROR,
        processed: true,
      });
      const error = await ocp
        // About a write's own stream: with the pre-flight, the GOAWAY would hit the object's dry
        // run, which is sent once more (test/wire/goaway.test.ts has that case).
        .create(template('gw-proto', names.slice(2)), {}, { namespace: NAMESPACE, api, preflight: 'schema' })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ocp.OperationError);
      const refused = error as ocp.OperationError;
      expect(refused.resources.map((r) => r.name)).toEqual(['gw-proto-1']);
      const failure = instance(refused.failures[0]?.error, ocp.RequestError);
      expect([failure.outcome, failure.code]).toEqual(['unknown', 'OTC_CONNECTION_LOST']);
      // 'unknown' was right: the tier wrote it, once.
      expect(writesOf(auditLog, mark, 'gw-proto-2')).toBe(1);
      expect((await client.send('GET', pathOf('gw-proto-2'))).status).toBe(200);
    });
  },
);
