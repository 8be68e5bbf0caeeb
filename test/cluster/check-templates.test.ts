// #42 item 6 held to the real server: `check-templates --kubeconfig` pointed at the tier, with a
// file whose Template has the name of a stored one, leaves every stored Template as it was (its
// resourceVersion) and writes nothing: the audit log, the real write log, shows only dry runs
// and the processing, which stores nothing.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { currentContext } from '../../scripts/cluster/kube.ts';
import { auditLogPath, auditMark, clientFor, clusterKubeconfig } from './audit.ts';

const run = promisify(execFile);

const SAME_NAME_TEMPLATE = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: worker-template
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: check-file-settings }
    data: { mode: fast }
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: check-file-web }
    spec:
      selector: { matchLabels: { app: check-file-web } }
      template:
        metadata: { labels: { app: check-file-web } }
        spec: { containers: [{ name: web, image: registry.example/web:1 }] }
`;

interface Event {
  verb: string;
  requestURI: string;
  stage?: string;
  user?: { username?: string };
}

/** Computed creates that store nothing: a processed Template, access reviews. */
const COMPUTED =
  /\/(processedtemplates|selfsubjectaccessreviews|selfsubjectrulesreviews|subjectaccessreviews)(\?|$)/;

describe.skipIf(clusterKubeconfig === '')('#42 item 6: check-templates --kubeconfig on the real tier', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ots-check-tier-'));
    await writeFile(join(dir, 'same-name.yaml'), SAME_NAME_TEMPLATE);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Every stored Template of the template namespace: name, resourceVersion and object kinds. */
  async function storedTemplates(): Promise<string[]> {
    const admin = clientFor('admin');
    try {
      const answer = await admin.send('GET', '/apis/template.openshift.io/v1/namespaces/infra/templates');
      const items =
        (
          answer.body as {
            items?: { metadata: { name: string; resourceVersion: string }; objects?: { kind: string }[] }[];
          }
        ).items ?? [];
      return items.map(
        (t) =>
          `${t.metadata.name} ${t.metadata.resourceVersion} ${(t.objects ?? []).map((o) => o.kind).join(',')}`,
      );
    } finally {
      admin.close();
    }
  }

  /**
   * A stored Template named as the file's, for the check to leave alone: the simulator as
   * openshift-apiserver seeds one, the real server holds only what a client stored (a 409: there).
   */
  async function storeSameName(): Promise<void> {
    const admin = clientFor('admin');
    try {
      const stored = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'worker-template', namespace: 'infra' },
        objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stored-settings' } }],
      };
      const answer = await admin.send(
        'POST',
        '/apis/template.openshift.io/v1/namespaces/infra/templates',
        stored,
      );
      expect([201, 409]).toContain(answer.status);
    } finally {
      admin.close();
    }
  }

  test('the default is dry runs only: stored Templates keep their resourceVersion, nothing is written', async () => {
    await storeSameName();
    const before = await storedTemplates();
    expect(before.some((t) => t.startsWith('worker-template '))).toBe(true);
    const log = auditLogPath();
    const mark = auditMark(log);
    const { code, stdout } = await run(process.execPath, [
      'scripts/check-templates.ts',
      dir,
      '--kubeconfig',
      clusterKubeconfig,
    ]).then(
      (done) => ({ code: 0, stdout: done.stdout }),
      (error: unknown) => ({
        code: (error as { code?: number }).code ?? -1,
        stdout: String((error as { stdout?: string }).stdout),
      }),
    );
    // What the server holds first: whatever the run said, it must not have touched them.
    expect(await storedTemplates()).toEqual(before);
    expect(stdout).toContain('  result   ok: process, create as a dry run\n');
    expect(code).toBe(0);
    const user = currentContext(clusterKubeconfig).user;
    const events = readFileSync(log)
      .subarray(mark)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Event)
      .filter((e) => e.user?.username === user && e.stage !== 'RequestReceived')
      .filter((e) => !['get', 'list', 'watch'].includes(e.verb));
    const line = (e: Event): string => `${e.verb} ${e.requestURI.split('?')[0] ?? ''}`;
    const dryRuns = events.filter((e) => /[?&]dryRun=All(&|$)/.test(e.requestURI));
    // The check ran: each object of the file was dry-run applied (all at once, in any order).
    expect(dryRuns.map(line).sort()).toEqual([
      'patch /api/v1/namespaces/workers/configmaps/check-file-settings',
      'patch /apis/apps/v1/namespaces/workers/deployments/check-file-web',
    ]);
    const writes = events.filter((e) => !dryRuns.includes(e) && !COMPUTED.test(e.requestURI));
    expect(writes.map(line)).toEqual([]);
  });
});
