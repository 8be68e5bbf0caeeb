// Server-side apply, create, read and delete against docs/wire-reference.md §3, §4 and §6.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apply, call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const CM = '/api/v1/namespaces/workers/configmaps';
const VM = '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines';
const cm = (
  name: string,
  data: Record<string, string>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

describe('server-side apply', () => {
  test('creates with 201, then answers 200; server fields and leaf-level FieldsV1 ownership', async () => {
    const first = await apply(sim, `${CM}/ssa1`, cm('ssa1', { a: '1' }, { labels: { app: 'x' } }));
    expect(first.status).toBe(201);
    const metadata = first.json.metadata as Record<string, unknown>;
    expect(metadata).toMatchObject({ name: 'ssa1', namespace: 'workers', generation: 1 });
    expect(metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata.resourceVersion).toMatch(/^\d+$/);
    expect(metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(metadata.managedFields).toEqual([
      {
        manager: 'tester',
        operation: 'Apply',
        apiVersion: 'v1',
        time: expect.any(String) as unknown,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ]);
    const second = await apply(sim, `${CM}/ssa1`, cm('ssa1', { a: '1' }, { labels: { app: 'x' } }));
    expect(second.status).toBe(200);
    expect((second.json.metadata as Record<string, unknown>).resourceVersion).toBe(metadata.resourceVersion);
  });

  test('fields a manager stops applying are removed, unless another manager owns them', async () => {
    await apply(sim, `${CM}/ssa2`, cm('ssa2', { keep: '1', drop: '2', shared: '3' }));
    await apply(sim, `${CM}/ssa2`, cm('ssa2', { shared: '3' }), 'other');
    const res = await apply(sim, `${CM}/ssa2`, cm('ssa2', { keep: '1' }));
    expect(res.json.data).toEqual({ keep: '1', shared: '3' });
  });

  test('a conflict with an apply manager: 409 with the exact message and causes; force takes over', async () => {
    await apply(sim, `${CM}/ssa3`, cm('ssa3', { data: 'zarf' }), 'zarf');
    const res = await apply(sim, `${CM}/ssa3`, cm('ssa3', { data: 'mine' }));
    expect(res.status).toBe(409);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "zarf": .data.data',
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "zarf"', field: '.data.data' }],
      },
      code: 409,
    });
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'ssa3')?.data).toEqual({ data: 'zarf' });
    const forced = await apply(sim, `${CM}/ssa3`, cm('ssa3', { data: 'mine' }), 'tester', '&force=true');
    expect(forced.status).toBe(200);
    const managers = (forced.json.metadata as { managedFields: { manager: string }[] }).managedFields.map(
      (m) => m.manager,
    );
    expect(managers).toEqual(['tester']);
  });

  test('several conflicts, with an update manager printed "using v1", grouped and sorted', async () => {
    await call(sim, 'POST', `${CM}?fieldManager=foo`, {
      body: cm('ssa4', { a: '1', b: '2' }, { labels: { app: 'x' } }),
    });
    await apply(
      sim,
      `${CM}/ssa4`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa4', labels: { app: 'x' } } },
      'bar',
      '&force=true',
    );
    await call(sim, 'PATCH', `${CM}/ssa4?fieldManager=bar-update`, {
      body: { metadata: { labels: { app: 'y' } } },
      contentType: 'application/merge-patch+json',
    });
    const res = await apply(sim, `${CM}/ssa4`, cm('ssa4', { a: 'X', b: 'Y' }, { labels: { app: 'z' } }));
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "bar-update" using v1:\n- .metadata.labels.app\nconflicts with "foo" using v1:\n- .data.a\n- .data.b',
    );
  });

  test('same value as another manager: shared ownership, no conflict', async () => {
    await apply(sim, `${CM}/ssa5`, cm('ssa5', { a: '1' }), 'one');
    const res = await apply(sim, `${CM}/ssa5`, cm('ssa5', { a: '1' }), 'two');
    expect(res.status).toBe(200);
  });

  test('wire errors: fieldManager, dryRun, content type, name, namespace, apiVersion, managedFields', async () => {
    const body = cm('ssa6', { a: '1' });
    const noManager = await call(sim, 'PATCH', `${CM}/ssa6`, {
      body,
      contentType: 'application/apply-patch+yaml',
    });
    expect(noManager.status).toBe(422);
    expect(noManager.json.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    const badDryRun = await apply(sim, `${CM}/ssa6`, body, 'tester', '&dryRun=Yes');
    expect(badDryRun.status).toBe(422);
    expect(badDryRun.json.message).toContain('dryRun: Unsupported value');
    const json = await call(sim, 'PATCH', `${CM}/ssa6?fieldManager=x`, {
      body,
      contentType: 'application/json',
    });
    expect(json.status).toBe(415);
    const wrongName = await apply(sim, `${CM}/other`, body);
    expect(wrongName.status).toBe(400);
    expect(wrongName.json.message).toBe(
      'the name of the object (ssa6) does not match the name on the URL (other)',
    );
    const wrongNamespace = await apply(sim, `${CM}/ssa6`, cm('ssa6', {}, { namespace: 'infra' }));
    expect(wrongNamespace.json.message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    const wrongVersion = await apply(sim, `${CM}/ssa6`, { ...body, apiVersion: 'apps/v1' });
    expect(wrongVersion.json.message).toBe(
      'the API version in the data (apps/v1) does not match the expected API version (v1)',
    );
    const withManagedFields = await apply(sim, `${CM}/ssa6`, cm('ssa6', {}, { managedFields: [] }));
    expect(withManagedFields.status).toBe(400);
    expect(withManagedFields.json.message).toBe('metadata.managedFields must be nil');
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'ssa6')).toBeUndefined();
  });

  test('dryRun=All answers with a UID and no resourceVersion, and persists nothing', async () => {
    const res = await apply(sim, `${CM}/dry`, cm('dry', { a: '1' }), 'tester', '&dryRun=All');
    expect(res.status).toBe(201);
    expect((res.json.metadata as Record<string, unknown>).uid).toBeTypeOf('string');
    expect((res.json.metadata as Record<string, unknown>).resourceVersion).toBeUndefined();
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'dry')).toBeUndefined();
  });

  test('an unknown namespace is 404', async () => {
    const res = await apply(sim, '/api/v1/namespaces/missing/configmaps/x', {
      ...cm('x', {}),
      metadata: { name: 'x' },
    });
    expect(res.status).toBe(404);
    expect(res.json.message).toBe('namespaces "missing" not found');
  });
});

describe('Secrets', () => {
  const SECRETS = '/api/v1/namespaces/workers/secrets';
  const secret = (stringData: Record<string, string>): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's1' },
    stringData,
  });

  test('stringData is merged into data, never stored, and a dropped key stays (kubernetes#108008)', async () => {
    const first = await apply(sim, `${SECRETS}/s1`, secret({ a: 'x', b: 'y' }));
    expect(first.json.stringData).toBeUndefined();
    expect(first.json.data).toEqual({ a: 'eA==', b: 'eQ==' });
    expect(first.json.type).toBe('Opaque');
    const owned = (first.json.metadata as { managedFields: { fieldsV1: unknown }[] }).managedFields[0]
      ?.fieldsV1;
    expect(owned).toEqual({ 'f:stringData': { 'f:a': {}, 'f:b': {} } });
    const second = await apply(sim, `${SECRETS}/s1`, secret({ a: 'x' }));
    expect(second.json.data).toEqual({ a: 'eA==', b: 'eQ==' });
    expect((second.json.metadata as { resourceVersion: string }).resourceVersion).not.toBe(
      (first.json.metadata as { resourceVersion: string }).resourceVersion,
    );
  });

  test('applying data instead removes a dropped key', async () => {
    await apply(sim, `${SECRETS}/s2`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's2' },
      data: { a: 'eA==', b: 'eQ==' },
    });
    const res = await apply(sim, `${SECRETS}/s2`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's2' },
      data: { a: 'eA==' },
    });
    expect(res.json.data).toEqual({ a: 'eA==' });
  });
});

describe('POST, GET and DELETE', () => {
  test('generateName on POST; neither name nor generateName is 422; duplicates are 409', async () => {
    const generated = await call(sim, 'POST', CM, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
    });
    expect(generated.status).toBe(201);
    expect((generated.json.metadata as { name: string }).name).toMatch(/^gen-[a-z0-9]{5}$/);
    const unnamed = await call(sim, 'POST', CM, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
    });
    expect(unnamed.status).toBe(422);
    expect(unnamed.json.message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
    await call(sim, 'POST', CM, { body: cm('dup', {}) });
    const again = await call(sim, 'POST', CM, { body: cm('dup', {}) });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "dup" already exists' });
  });

  test('DELETE of a ConfigMap and of a custom resource answers a Status', async () => {
    const created = await apply(sim, `${CM}/del1`, cm('del1', {}));
    const uid = (created.json.metadata as { uid: string }).uid;
    const res = await call(sim, 'DELETE', `${CM}/del1`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'del1', kind: 'configmaps', uid },
    });
    const vm = await apply(sim, `${VM}/vm1`, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'vm1' },
      spec: {},
    });
    const vmDeleted = await call(sim, 'DELETE', `${VM}/vm1`);
    expect(vmDeleted.json.details).toEqual({
      name: 'vm1',
      group: 'kubevirt.io',
      kind: 'virtualmachines',
      uid: (vm.json.metadata as { uid: string }).uid,
    });
  });

  test('DELETE of a pod or a Template answers the object', async () => {
    await call(sim, 'POST', '/api/v1/namespaces/workers/pods', {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: {} },
    });
    const res = await call(sim, 'DELETE', '/api/v1/namespaces/workers/pods/p1');
    expect(res.json).toMatchObject({ kind: 'Pod', metadata: { name: 'p1' } });
  });

  test('404 Status texts, plain and grouped', async () => {
    expect((await call(sim, 'DELETE', `${CM}/gone`)).json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "gone" not found',
      reason: 'NotFound',
      details: { name: 'gone', kind: 'configmaps' },
      code: 404,
    });
    const grouped = await call(sim, 'GET', `${VM}/gone`);
    expect(grouped.json.message).toBe('virtualmachines.kubevirt.io "gone" not found');
    expect(grouped.json.details).toEqual({ name: 'gone', group: 'kubevirt.io', kind: 'virtualmachines' });
  });

  test('a UID precondition mismatch is 409 with the storage text; a match deletes', async () => {
    const created = await apply(sim, `${CM}/pre`, cm('pre', {}));
    const uid = (created.json.metadata as { uid: string }).uid;
    const wrong = await call(sim, 'DELETE', `${CM}/pre`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'X' } },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.json.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (X) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
    expect(wrong.json.reason).toBe('Conflict');
    const right = await call(sim, 'DELETE', `${CM}/pre`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid } },
    });
    expect(right.status).toBe(200);
  });

  test('propagationPolicy is validated; dryRun=All deletes nothing; options come from the body when there is one', async () => {
    await apply(sim, `${CM}/pp`, cm('pp', {}));
    const bad = await call(sim, 'DELETE', `${CM}/pp?propagationPolicy=Sideways`);
    expect(bad.status).toBe(422);
    expect(bad.json.message).toContain('propagationPolicy: Unsupported value: "Sideways"');
    const dry = await call(sim, 'DELETE', `${CM}/pp`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] },
    });
    expect(dry.status).toBe(200);
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'pp')).toBeDefined();
    const bodyWins = await call(sim, 'DELETE', `${CM}/pp?propagationPolicy=Sideways`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1' },
    });
    expect(bodyWins.status).toBe(200);
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'pp')).toBeUndefined();
  });

  test('finalizers and Foreground answer the object with a deletionTimestamp', async () => {
    await apply(sim, `${CM}/fin`, cm('fin', {}, { finalizers: ['example.com/hold'] }));
    const res = await call(sim, 'DELETE', `${CM}/fin`);
    expect(res.json).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'fin', deletionTimestamp: expect.any(String) as unknown },
    });
    expect(sim.getObject('v1', 'ConfigMap', 'workers', 'fin')).toBeDefined();
  });
});

describe('object names, per kind (docs/wire-reference.md §7)', () => {
  const RB = '/apis/authorization.openshift.io/v1/namespaces/workers/rolebindings';
  const roleBinding = (name: string): Record<string, unknown> => ({
    apiVersion: 'authorization.openshift.io/v1',
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { name: 'edit' },
    subjects: [{ kind: 'ServiceAccount', name: 'jenkins' }],
  });

  test('RBAC names are path segments: the jenkins RoleBinding "jenkins_edit" is accepted', async () => {
    // Created by POST: openshift-apiserver's proxy cannot create one by apply (test/cluster/legacy-rbac.test.ts).
    const created = await call(sim, 'POST', `${RB}?fieldManager=tester`, {
      body: roleBinding('jenkins_edit'),
    });
    expect(created.status).toBe(201);
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/workers/roles/Mixed_Case.role';
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'Mixed_Case.role' },
    };
    expect((await apply(sim, rbac, role)).status).toBe(201);
  });

  test('a path segment may not contain "%": kube-apiserver says so, in the proxy’s words', async () => {
    const res = await call(sim, 'POST', `${RB}?fieldManager=tester`, { body: roleBinding('a%b') });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `rolebindings.authorization.openshift.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`,
      reason: 'Invalid',
      details: {
        name: 'a%b',
        group: 'authorization.openshift.io',
        kind: 'rolebindings',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "a%b": may not contain '%'`,
            field: 'metadata.name',
          },
        ],
      },
      code: 422,
    });
  });

  test('most kinds are DNS-1123 subdomains, with the apimachinery text', async () => {
    const res = await apply(sim, `${CM}/Bad_Name`, cm('Bad_Name', {}));
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    const vm = await apply(sim, `${VM}/VM1`, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'VM1' },
    });
    expect(vm.json.message).toMatch(
      /^VirtualMachine\.kubevirt\.io "VM1" is invalid: metadata\.name: Invalid value: "VM1": a lowercase RFC 1123 subdomain/,
    );
  });

  test('Services are DNS-1035 labels: no leading digit, no dot', async () => {
    const svc = (name: string): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
    });
    const res = await apply(sim, '/api/v1/namespaces/workers/services/1web', svc('1web'));
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      `Service "1web" is invalid: metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    );
    expect((await apply(sim, '/api/v1/namespaces/workers/services/web', svc('web'))).status).toBe(201);
  });

  test('ImageStream names follow the repository-name rule', async () => {
    const is = (name: string): Record<string, unknown> => ({
      apiVersion: 'image.openshift.io/v1',
      kind: 'ImageStream',
      metadata: { name },
    });
    const res = await apply(
      sim,
      '/apis/image.openshift.io/v1/namespaces/workers/imagestreams/a--b',
      is('a--b'),
    );
    expect(res.json.message).toBe(
      'ImageStream.image.openshift.io "a--b" is invalid: metadata.name: Invalid value: "a--b": must match "[a-z0-9]+(?:[._-][a-z0-9]+)*"',
    );
    expect(
      (await apply(sim, '/apis/image.openshift.io/v1/namespaces/workers/imagestreams/a.b_c', is('a.b_c')))
        .status,
    ).toBe(201);
  });
});

// openshift-apiserver: pkg/image/apis/image/validation (every name a path segment) and the
// imagestreamtag, imagetag and imagestreamimage storages (nameAndTag / parseNameAndID: a 400).
describe('image.openshift.io names, kind by kind', () => {
  const IMAGES = '/apis/image.openshift.io/v1';
  const ISTAG = `${IMAGES}/namespaces/workers/imagestreamtags`;
  const image = (kind: string, name: string): Record<string, unknown> => ({
    apiVersion: 'image.openshift.io/v1',
    kind,
    metadata: { name },
  });

  test('ImageStreamTag and ImageTag names are stream:tag, and a name that does not split is a 400', async () => {
    expect((await apply(sim, `${ISTAG}/ruby:3.3`, image('ImageStreamTag', 'ruby:3.3'))).status).toBe(201);
    expect((await call(sim, 'GET', `${ISTAG}/ruby%3A3.3`)).status).toBe(200);
    const itag = `${IMAGES}/namespaces/workers/imagetags`;
    expect((await apply(sim, `${itag}/ruby:latest`, image('ImageTag', 'ruby:latest'))).status).toBe(201);
    for (const [path, kind] of [
      [`${ISTAG}/ruby`, 'ImageStreamTags'],
      [`${ISTAG}/ruby:a:b`, 'ImageStreamTags'],
      [`${ISTAG}/ruby@sha256:1`, 'ImageStreamTags'],
      [`${itag}/:latest`, 'ImageTags'],
    ] as const) {
      const res = await call(sim, 'GET', path);
      expect([path, res.status, res.json.reason, res.json.message]).toEqual([
        path,
        400,
        'BadRequest',
        `${kind} must be retrieved with <name>:<tag>`,
      ]);
    }
    const patch = await apply(sim, `${ISTAG}/ruby`, image('ImageStreamTag', 'ruby'));
    expect([patch.status, patch.json.message]).toEqual([
      400,
      'ImageStreamTags must be retrieved with <name>:<tag>',
    ]);
  });

  test('ImageStreamImage names are stream@id', async () => {
    const res = await call(sim, 'GET', `${IMAGES}/namespaces/workers/imagestreamimages/ruby`);
    expect([res.status, res.json.message]).toEqual([
      400,
      'ImageStreamImages must be retrieved with <name>@<id>',
    ]);
  });

  test('ImageSignature names are image@signature; Image names are path segments', async () => {
    const res = await call(sim, 'POST', `${IMAGES}/imagesignatures`, {
      body: image('ImageSignature', 'sha256:abc'),
    });
    expect([res.status, res.json.message]).toEqual([
      422,
      'ImageSignature.image.openshift.io "sha256:abc" is invalid: metadata.name: Invalid value: "sha256:abc": name must be of format <imageName>@<signatureName>',
    ]);
    const sha = `sha256:${'a'.repeat(64)}`;
    expect((await apply(sim, `${IMAGES}/images/${sha}`, image('Image', sha))).status).toBe(201);
  });

  test('an ImageStream whose namespace/name passes 255 characters is refused', async () => {
    const name = `r${'x'.repeat(250)}`;
    const res = await apply(
      sim,
      `${IMAGES}/namespaces/workers/imagestreams/${name}`,
      image('ImageStream', name),
    );
    expect([res.status, res.json.message]).toEqual([
      422,
      `ImageStream.image.openshift.io "${name}" is invalid: metadata.name: Invalid value: "${name}": 'namespace/name' cannot be longer than 255 characters`,
    ]);
  });
});

describe('DELETE answers per kind (docs/wire-reference.md §4)', () => {
  test.each([
    ['/api/v1/namespaces/workers/persistentvolumeclaims', 'v1', 'PersistentVolumeClaim', 'object'],
    ['/api/v1/namespaces/workers/serviceaccounts', 'v1', 'ServiceAccount', 'object'],
    ['/api/v1/namespaces/workers/services', 'v1', 'Service', 'object'],
    ['/apis/apps/v1/namespaces/workers/statefulsets', 'apps/v1', 'StatefulSet', 'status'],
    ['/apis/route.openshift.io/v1/namespaces/workers/routes', 'route.openshift.io/v1', 'Route', 'status'],
    [
      '/apis/cdi.kubevirt.io/v1beta1/namespaces/workers/datavolumes',
      'cdi.kubevirt.io/v1beta1',
      'DataVolume',
      'status',
    ],
  ])('%s answers the %s', async (path, apiVersion, kind, shape) => {
    const name = `del-${kind.toLowerCase()}`;
    expect((await apply(sim, `${path}/${name}`, { apiVersion, kind, metadata: { name } })).status).toBe(201);
    const res = await call(sim, 'DELETE', `${path}/${name}`);
    expect(res.status).toBe(200);
    if (shape === 'object') expect(res.json).toMatchObject({ kind, metadata: { name } });
    else expect(res.json).toMatchObject({ kind: 'Status', status: 'Success', details: { name } });
  });
});
