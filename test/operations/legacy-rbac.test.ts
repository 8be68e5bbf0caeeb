// authorization.openshift.io Roles and RoleBindings, which openshift-apiserver cannot create by
// server-side apply (its proxy's Update answers 404 for an object that does not exist yet):
// create() creates them with a POST of the same rendered body, says so, and the life cycle works.
// test/fixtures/jenkins-persistent.json is openshift/library's official/jenkins/templates/
// jenkins-persistent-template.json at 4eeddd3d (Apache-2.0), reformatted only.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

const JENKINS = JSON.parse(
  readFileSync(new URL('../fixtures/jenkins-persistent.json', import.meta.url), 'utf8'),
) as JsonObject;

let h: Harness;
const all = ['create', 'get', 'patch', 'update', 'delete'];
// Everything the legacy Template needs, except the RBAC group the proxy writes as the caller.
const LEGACY_ONLY = {
  user: 'deployer',
  rules: [
    { verbs: ['get'], apiGroups: ['template.openshift.io'], resources: ['templates'], namespaces: ['infra'] },
    { verbs: ['create'], apiGroups: ['template.openshift.io'], resources: ['processedtemplates'] },
    { verbs: all, apiGroups: [''], resources: ['serviceaccounts'] },
    { verbs: all, apiGroups: ['authorization.openshift.io'], resources: ['roles', 'rolebindings'] },
  ],
};
beforeAll(async () => {
  h = await harness({ tokens: { 'deployer-token': LEGACY_ONLY } });
  h.sim.seed({ ...JENKINS, metadata: { name: 'jenkins-persistent', namespace: 'infra' } });
  h.sim.seedTemplate(
    'legacy-rbac',
    [{ name: 'APP', required: true }],
    [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: '${APP}' } },
      {
        apiVersion: 'authorization.openshift.io/v1',
        kind: 'Role',
        metadata: { name: '${APP}_reader' },
        rules: [{ verbs: ['get', 'list'], resources: ['configmaps'] }],
      },
      {
        apiVersion: 'authorization.openshift.io/v1',
        kind: 'RoleBinding',
        metadata: { name: '${APP}_read' },
        roleRef: { name: '${APP}_reader', namespace: 'workers' },
        subjects: [{ kind: 'ServiceAccount', name: '${APP}' }],
      },
      // OpenShift 3.x spellings, which the server's processing puts into authorization.openshift.io.
      { apiVersion: 'v1', kind: 'Role', metadata: { name: '${APP}_old' }, rules: [] },
      {
        apiVersion: 'v1',
        kind: 'RoleBinding',
        metadata: { name: '${APP}_view' },
        groupNames: ['${APP}-viewers'],
        roleRef: { name: 'view' },
      },
    ],
  );
});
afterAll(async () => {
  await h.close();
});

const LEGACY = 'authorization.openshift.io/v1';
const warned = (): { texts: string[]; codes: string[]; onWarning: ocp.WarningHandler } => {
  const texts: string[] = [];
  const codes: string[] = [];
  const onWarning: ocp.WarningHandler = (w) => {
    texts.push(`${w.operation} ${w.target?.name ?? ''}: ${w.text}`);
    codes.push(w.code);
  };
  return { texts, codes, onWarning };
};
const posted = (kind: string, name: string, done = 'was created'): string =>
  `create ${name}: ${kind} "${name}" in namespace "workers" ${done} with a POST: openshift-apiserver cannot create ${LEGACY} ${kind} objects by server-side apply, which answered 404`;

/** create, then a replayed create, get and delete by replay, each on a new Connection of its own. */
async function roundTrip(template: string, params: ocp.TemplateParameters, options: ocp.CreateOptions) {
  const first = warned();
  const refs = await ocp.create(template, params, { ...options, onWarning: first.onWarning });
  const second = warned();
  const replayed = await ocp.create(template, params, { ...options, onWarning: second.onWarning });
  const { fieldValidation: _typing, ...common } = options;
  const live = await ocp.get(template, params, common);
  const deleted = await ocp.delete(template, params, common);
  return {
    ...{ refs, replayed, live, deleted, firstCodes: first.codes },
    ...{ firstWarnings: first.texts, replayWarnings: second.texts },
  };
}

describe('Templates with legacy RBAC kinds round-trip', () => {
  test('jenkins-persistent: its RoleBinding created by POST, replay keeps every UID, delete', async () => {
    h.sim.clearLog();
    const run = await roundTrip('jenkins-persistent', {}, { ...WORKER, fieldValidation: 'Warn' });
    const binding = run.refs.find((r) => r.kind === 'RoleBinding');
    expect(binding).toMatchObject({ apiVersion: LEGACY, name: 'jenkins_edit', created: true });
    expect(run.refs.every((r) => r.created)).toBe(true);
    expect(run.firstWarnings).toContain(posted('RoleBinding', 'jenkins_edit'));
    // The replay applies: the proxy's update path, the same objects.
    expect(run.replayed.map((r) => r.uid)).toEqual(run.refs.map((r) => r.uid));
    expect(run.replayed.some((r) => r.created)).toBe(false);
    expect(run.replayWarnings.some((t) => t.includes('POST'))).toBe(false);
    expect(run.live.map((o) => o.metadata?.uid)).toEqual(run.refs.map((r) => r.uid));
    expect(run.deleted.map((r) => r.name)).toContain('jenkins_edit');
    expect(
      h.sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'jenkins_edit'),
    ).toBeUndefined();
    // The pre-flight's dry run (its 404 is followed by the dry run of the POST in its place), the
    // apply that found nothing, then the POST, with the field manager kube-apiserver records; the
    // replay's dry run and apply; the delete.
    const writes = h.sim.log.filter((e) => e.path.includes('/rolebindings') && e.method !== 'GET');
    expect(writes.map((e) => `${e.method} ${String(e.status)}${e.query.dryRun ? ' dry run' : ''}`)).toEqual([
      'PATCH 404 dry run',
      'POST 201 dry run',
      'PATCH 404',
      'POST 201',
      'PATCH 200 dry run',
      'PATCH 200',
      'DELETE 200',
    ]);
    expect(writes[3]?.query).toEqual({ fieldManager: 'mini-scheduler' });
  });

  test('a Template of its own: legacy Role and RoleBinding, also as group-less v1 kinds', async () => {
    const run = await roundTrip('legacy-rbac', { APP: 'tool' }, WORKER);
    expect(run.refs.map((r) => `${r.apiVersion} ${r.kind} ${String(r.created)}`)).toEqual([
      'v1 ServiceAccount true',
      `${LEGACY} Role true`,
      `${LEGACY} RoleBinding true`,
      `${LEGACY} Role true`,
      `${LEGACY} RoleBinding true`,
    ]);
    expect(run.firstCodes).toEqual(Array(4).fill('OTC_CREATED_BY_POST'));
    expect(run.firstWarnings).toEqual([
      posted('Role', 'tool_reader'),
      posted('RoleBinding', 'tool_read'),
      posted('Role', 'tool_old'),
      posted('RoleBinding', 'tool_view'),
    ]);
    expect(run.replayed.map((r) => r.uid)).toEqual(run.refs.map((r) => r.uid));
    expect(run.live[2]).toMatchObject({ roleRef: { name: 'tool_reader', namespace: 'workers' } });
    expect(run.live[4]).toMatchObject({
      groupNames: ['tool-viewers'],
      subjects: [{ kind: 'Group', name: 'tool-viewers' }],
    });
    expect(run.deleted).toHaveLength(5);
    for (const name of ['tool_reader', 'tool_old']) {
      expect(h.sim.getObject('rbac.authorization.k8s.io/v1', 'Role', 'workers', name)).toBeUndefined();
    }
  });

  test('reference-mode get and delete of the saved refs, from a new Connection', async () => {
    const refs = await ocp.create('legacy-rbac', { APP: 'saved' }, WORKER);
    // kube-apiserver recorded the POST's create under create()'s field manager.
    const stored = h.sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'saved_read');
    expect(stored?.metadata).toMatchObject({
      managedFields: [
        { manager: 'mini-scheduler', operation: 'Update', apiVersion: 'rbac.authorization.k8s.io/v1' },
      ],
    });
    await using api = await h.connect();
    const live = await ocp.get({ namespace: 'workers', resources: refs, api });
    expect(live.map((o) => o.metadata?.uid)).toEqual(refs.map((r) => r.uid));
    const deleted = await ocp.delete({ namespace: 'workers', resources: refs, api });
    expect(deleted.map((r) => r.uid)).toEqual([...refs].reverse().map((r) => r.uid));
    expect(
      h.sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'saved_read'),
    ).toBeUndefined();
  });
});

describe('the POST, and only where the proxy answered that 404', () => {
  test("preflight 'schema': a dry run POSTs with dryRun=All, reports created, stores nothing and says it would be", async () => {
    const { texts, onWarning } = warned();
    // The schema-only path, where a dry run is the applies in order: the pre-flight sends no POST.
    const options = { ...WORKER, dryRun: true, onWarning, preflight: 'schema' } as const;
    const refs = await ocp.create('legacy-rbac', { APP: 'dry' }, options);
    expect(refs.every((r) => r.created && r.uid !== undefined)).toBe(true);
    expect(texts).toContain(posted('RoleBinding', 'dry_read', 'would be created (dry run)'));
    const post = h.sim.log.findLast((e) => e.method === 'POST' && e.path.endsWith('/rolebindings'));
    expect(post?.query).toEqual({ fieldManager: 'mini-scheduler', dryRun: 'All' });
    expect(h.sim.getObject(LEGACY, 'RoleBinding', 'workers', 'dry_read')).toBeUndefined();
  });

  test('a POST that fails only at the write is the Apply failure, with exactly the objects written before it', async () => {
    // The wave dry-runs the POSTs of both legacy Roles; the third POST to roles is the first write.
    h.sim.addFault({
      method: 'POST',
      path: /\/roles$/,
      nth: 3,
      action: { type: 'status', code: 403, reason: 'Forbidden' },
    });
    try {
      const error = instance(
        await rejection(ocp.create('legacy-rbac', { APP: 'denied' }, WORKER)),
        ocp.OperationError,
      );
      expect(error.operation).toBe('Apply');
      expect(error.resources.map((r) => r.name)).toEqual(['denied']);
      const [failure] = error.failures;
      expect(failure?.resource.name).toBe('denied_reader');
      expect(instance(failure?.error, ocp.RequestError)).toMatchObject({ step: 'Apply', statusCode: 403 });
    } finally {
      h.sim.clearFaults();
    }
  });

  test('by default a dry run is the pre-flight alone: the POST of each legacy object dry-run in the wave', async () => {
    const { texts, onWarning } = warned();
    h.sim.clearLog();
    const refs = await ocp.create('legacy-rbac', { APP: 'wave' }, { ...WORKER, dryRun: true, onWarning });
    expect(refs.map((r) => `${r.kind} ${String(r.created)}`)).toEqual([
      'ServiceAccount true',
      'Role true',
      'RoleBinding true',
      'Role true',
      'RoleBinding true',
    ]);
    // Each legacy object's 404 is followed by the dry run of its POST, whose answer gives the ref.
    expect(refs.filter((r) => r.apiVersion === LEGACY).every((r) => r.uid !== undefined)).toBe(true);
    expect(texts.filter((t) => t.includes('POST'))).toEqual(
      [
        ['Role', 'wave_reader'],
        ['RoleBinding', 'wave_read'],
        ['Role', 'wave_old'],
        ['RoleBinding', 'wave_view'],
      ].map(([kind = '', name = '']) => posted(kind, name, 'would be created (dry run)')),
    );
    const mutations = h.sim.mutations().filter((e) => !e.path.endsWith('processedtemplates'));
    expect(mutations.map((e) => `${e.method} ${String(e.query.dryRun)}`).sort()).toEqual([
      ...Array<string>(5).fill('PATCH All'),
      ...Array<string>(4).fill('POST All'),
    ]);
    expect(
      h.sim.getObject('rbac.authorization.k8s.io/v1', 'RoleBinding', 'workers', 'wave_read'),
    ).toBeUndefined();
  });

  // At the object's dry run in the pre-flight (its first PATCH) nothing is written; at its write, the
  // objects before it are.
  test.each([
    ['dry run', 1],
    ['write', 2],
  ] as const)(
    'a 404 for another kind, or for another object, at its %s is a failure and sends no POST',
    async (position, nth) => {
      h.sim.addFault({
        method: 'PATCH',
        path: /\/rolebindings\/other_read$/,
        nth,
        action: {
          type: 'status',
          code: 404,
          reason: 'NotFound',
          details: { name: 'someone-else', group: 'authorization.openshift.io', kind: 'rolebindings' },
        },
      });
      h.sim.addFault({
        method: 'PATCH',
        path: /\/serviceaccounts\/nobody$/,
        nth,
        action: { type: 'status', code: 404, reason: 'NotFound' },
      });
      try {
        h.sim.clearLog();
        for (const app of ['other', 'nobody']) {
          const error = instance(
            await rejection(ocp.create('legacy-rbac', { APP: app }, WORKER)),
            ocp.OperationError,
          );
          expect(error.operation).toBe(position === 'dry run' ? 'Preflight' : 'Apply');
          expect(instance(error.failures[0]?.error, ocp.RequestError).statusCode).toBe(404);
        }
        // Only other_reader's real 404 at its write drew a POST; after a refused pre-flight, none.
        const posts = h.sim.log.filter(
          (e) =>
            e.method === 'POST' && !e.path.endsWith('processedtemplates') && e.query.dryRun === undefined,
        );
        expect(
          posts.map((e) => JSON.parse(e.body) as { metadata: { name: string } }).map((b) => b.metadata.name),
        ).toEqual(position === 'dry run' ? [] : ['other_reader']);
      } finally {
        h.sim.clearFaults();
      }
    },
  );
});

test('without the verbs on rbac.authorization.k8s.io the proxy refuses the caller, and nothing is POSTed', async () => {
  await using api = await h.connect({ context: 'deployer' });
  h.sim.clearLog();
  const error = instance(
    await rejection(ocp.create('legacy-rbac', { APP: 'perm' }, { ...WORKER, api })),
    ocp.OperationError,
  );
  // The proxy reads the RBAC object as the caller on the pre-flight's dry run too: refused there,
  // before anything is written.
  expect([error.operation, error.resources]).toEqual(['Preflight', []]);
  expect(error.failures.map((f) => f.resource.name)).toEqual([
    'perm_reader',
    'perm_read',
    'perm_old',
    'perm_view',
  ]);
  for (const { error: failure } of error.failures) {
    expect(failure).toMatchObject({ step: 'Apply', statusCode: 403, code: 'OTC_FORBIDDEN' });
    expect(failure.message).toMatch(
      /cannot get resource "role(binding)?s" in API group "rbac.authorization.k8s.io"/,
    );
  }
  // The processing POST, then the five dry runs: no write, no POST of a legacy object.
  expect(h.sim.mutations().map((e) => `${e.method} ${String(e.query.dryRun)}`)).toEqual([
    'POST undefined',
    ...Array<string>(5).fill('PATCH All'),
  ]);
});
