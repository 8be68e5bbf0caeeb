// openshift-apiserver asks kube-apiserver about each request with a SubjectAccessReview through
// k8s.io/apiserver's delegating authorizer, which keeps every allowed and every denied decision
// for 10 s, keyed by the whole review (pkg/server/options/authorization.go's AllowCacheTTL and
// DenyCacheTTL; plugin/pkg/authorizer/webhook/webhook.go). A caller repeating a request within
// that time costs no further review; the tier's audit log counts the simulator's reviews.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { SIMULATOR_USER } from '../../scripts/cluster/material.ts';
import { auditLogPath, auditMark, clientFor, clusterKubeconfig } from './audit.ts';
import { simulatorBacked } from './backend.ts';

function reviewsSince(log: string, mark: number): number {
  return readFileSync(log)
    .subarray(mark)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { requestURI: string; user?: { username?: string } })
    .filter((e) => e.user?.username === SIMULATOR_USER && e.requestURI.includes('/subjectaccessreviews'))
    .length;
}

// kube-apiserver authorizes every request before its aggregator forwards it, so what reaches the
// simulator was allowed there: its own reviews answer yes unless RBAC changed in between.
// Simulator-backed: it counts the simulator's own reviews (the real server sends none for
// system:masters and runs as another identity).
describe.skipIf(clusterKubeconfig === '' || !simulatorBacked())(
  'the simulator keeps its delegated decisions 10 s',
  () => {
    // limited may get Templates in every namespace.
    const client = clientFor('limited');
    const unique = (): string =>
      `/apis/template.openshift.io/v1/namespaces/other/templates/authz-cache-${randomUUID()}`;
    afterAll(() => {
      client.close();
    });

    test('a request repeated within 10 s sends one review', async () => {
      const log = auditLogPath();
      // A name no other test asks about, so no earlier decision is kept for it.
      const path = unique();
      const mark = auditMark(log);
      for (let i = 0; i < 5; i++) expect((await client.send('GET', path)).status).toBe(404);
      expect(reviewsSince(log, mark)).toBe(1);
    });

    test('requests that differ in any attribute (here the name) send a review each', async () => {
      const log = auditLogPath();
      const mark = auditMark(log);
      for (const path of [unique(), unique()]) expect((await client.send('GET', path)).status).toBe(404);
      expect(reviewsSince(log, mark)).toBe(2);
    });
  },
);
