// Everything that must be refused before the first mutating request, with every problem named.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, templateOperations, WORKER } from '../helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
  h.sim.seedTemplate(
    'two-generators',
    [
      { name: 'NAME', value: 'gen' },
      { name: 'PASSWORD', generate: 'expression', from: '[a-z]{12}' },
      { name: 'SALT', generate: 'expression', from: '[a-z]{4}' },
      { name: 'PINNED', generate: 'expression', from: '[a-z]{4}', value: 'fixed' },
    ],
    [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '${NAME}-cm' },
        data: { p: '${PASSWORD}', s: '${SALT}' },
      },
    ],
  );
  h.sim.seedTemplate(
    'elsewhere',
    [{ name: 'NS', value: 'other' }],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'aimed', namespace: '${NS}' } },
    ],
  );
  h.sim.seedTemplate(
    'cluster-scoped',
    [],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'escalate' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new-ns' } },
    ],
  );
  h.sim.seedTemplate(
    'unsafe',
    [],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'random-' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'both', generateName: 'x-' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'twice' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'twice' } },
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      { apiVersion: 'v1', kind: 'Gadget', metadata: { name: 'g' } },
      { kind: 'ConfigMap', metadata: { name: 'no-version' } },
    ],
  );
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const noMutations = (): void => {
  expect(h.sim.mutations().filter((e) => !e.path.endsWith('/processedtemplates'))).toEqual([]);
};

describe('unresolved generators', () => {
  test.each(['process', 'create', 'get', 'delete'] as const)(
    '%s refuses them, naming every one, before processing',
    async (operation) => {
      const error = await rejection(templateOperations[operation]('two-generators', {}, { ...WORKER, api }));
      expect(error).toBeInstanceOf(ocp.ValidationError);
      const issues = instance(error, ocp.ValidationError).issues;
      expect(issues).toHaveLength(2);
      expect(issues[0]).toContain('parameter PASSWORD');
      expect(issues[1]).toContain('parameter SALT');
      expect(h.sim.log.map((e) => e.method)).toEqual(['GET']);
    },
  );

  test('explicit values make create and delete pass, and the values are used', async () => {
    const params = { PASSWORD: 'chosen-password', SALT: 'salt' };
    const refs = await ocp.create('two-generators', params, { ...WORKER, api });
    expect(refs.map((r) => r.name)).toEqual(['gen-cm']);
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'gen-cm')?.data).toEqual({
      p: 'chosen-password',
      s: 'salt',
    });
    const sent = JSON.parse(h.sim.log.find((e) => e.path.endsWith('/processedtemplates'))?.body ?? '{}') as {
      parameters: Record<string, unknown>[];
      metadata: Record<string, unknown>;
    };
    expect(sent.parameters[1]).toEqual({ name: 'PASSWORD', value: 'chosen-password' });
    expect(sent.parameters[3]).toMatchObject({ name: 'PINNED', value: 'fixed', generate: 'expression' });
    expect(sent.metadata).toEqual({ name: 'two-generators' });
    expect(await ocp.delete('two-generators', params, { ...WORKER, api })).toHaveLength(1);
  });
});

describe('parameters', () => {
  test('undeclared names and bad value types are all reported, never with their values', async () => {
    const badTypes = await rejection(
      ocp.create('worker-template', { VM_NAME: 'x', A: Number.NaN, B: null, C: {}, D: Infinity } as never, {
        ...WORKER,
        api,
      }),
    );
    expect(badTypes).toBeInstanceOf(ocp.ValidationError);
    expect(instance(badTypes, ocp.ValidationError).issues).toHaveLength(4);
    expect(h.sim.log).toHaveLength(0);
    const unknown = await rejection(
      ocp.create('worker-template', { VM_NAME: 'x', TYPO: 'secret-value' }, { ...WORKER, api }),
    );
    expect(instance(unknown, ocp.ValidationError).issues).toEqual([
      'parameter "TYPO" is not declared by the Template; it declares VM_NAME, IMAGE_TAG, MEMORY, API_KEY',
    ]);
    expect(unknown.message).not.toContain('secret-value');
    noMutations();
  });

  test('booleans and numbers become text', async () => {
    h.sim.seedTemplate(
      'typed',
      [{ name: 'FLAG' }, { name: 'COUNT' }],
      [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'typed' },
          data: { flag: '${FLAG}', count: '${COUNT}' },
        },
      ],
    );
    const [object] = await ocp.process('typed', { FLAG: false, COUNT: 2.5 }, { ...WORKER, api });
    expect(object?.data).toEqual({ flag: 'false', count: '2.5' });
  });

  test('very large and very small numbers render as decimal text, never in exponent notation', async () => {
    h.sim.seedTemplate(
      'magnitudes',
      [{ name: 'BIG' }, { name: 'NEGATIVE' }, { name: 'TINY' }, { name: 'PLAIN' }],
      [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'magnitudes' },
          data: { big: '${BIG}', negative: '${NEGATIVE}', tiny: '${TINY}', plain: '${PLAIN}' },
        },
      ],
    );
    const parameters = { BIG: 1e21, NEGATIVE: -1.2345678901234569e23, TINY: 1.5e-7, PLAIN: 2 ** 60 };
    const [object] = await ocp.process('magnitudes', parameters, { ...WORKER, api });
    expect(object?.data).toEqual({
      big: '1000000000000000000000',
      negative: '-123456789012345690000000',
      tiny: '0.00000015',
      plain: '1152921504606847000',
    });
  });
});

describe('namespace boundaries', () => {
  test('the template namespace is separate from the target', async () => {
    await ocp.process('worker-template', { VM_NAME: 'ns-1' }, { ...WORKER, api });
    expect(h.sim.log.map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /apis/template.openshift.io/v1/namespaces/infra/templates/worker-template',
      'POST /apis/template.openshift.io/v1/namespaces/workers/processedtemplates',
    ]);
    // templateNamespace defaults to the target only when omitted; an empty string is an error.
    const empty = await rejection(
      ocp.process('worker-template', { VM_NAME: 'x' }, { namespace: 'workers', templateNamespace: '', api }),
    );
    expect(instance(empty, ocp.ValidationError).issues).toEqual(['templateNamespace must not be empty']);
  });

  test.each(['create', 'delete', 'get'] as const)(
    '%s refuses a rendered object aimed at another namespace, with zero mutations',
    async (operation) => {
      const error = await rejection(templateOperations[operation]('elsewhere', {}, { ...WORKER, api }));
      expect(error).toBeInstanceOf(ocp.ValidationError);
      expect(instance(error, ocp.ValidationError).issues).toEqual([
        'object 2 (ConfigMap "aimed") is aimed at namespace "other", not the target namespace "workers"',
      ]);
      noMutations();
      expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'first')).toBeUndefined();
    },
  );

  test('cluster-scoped kinds are refused, with zero mutations', async () => {
    const error = await rejection(ocp.create('cluster-scoped', {}, { ...WORKER, api }));
    expect(instance(error, ocp.ValidationError).issues).toEqual([
      'object 2 (ClusterRole "escalate"): ClusterRole is cluster-scoped; only namespaced objects are allowed',
      'object 3 (Namespace "new-ns"): Namespace is cluster-scoped; only namespaced objects are allowed',
    ]);
    noMutations();
  });

  test('generateName, duplicates, unknown kinds and missing fields: every problem at once', async () => {
    const error = await rejection(ocp.create('unsafe', {}, { ...WORKER, api }));
    expect(instance(error, ocp.ValidationError).issues).toEqual([
      'object 1 (ConfigMap (no name)) has no metadata.name (a stable name is required)',
      'object 1 (ConfigMap (no name)) uses metadata.generateName, which cannot be replayed',
      'object 2 (ConfigMap "both") uses metadata.generateName, which cannot be replayed',
      'object 4 (ConfigMap "twice") repeats the identity of object 3',
      'object 5 (Widget "w"): kind Widget in example.com/v1 is not served by the cluster',
      'object 6 (Gadget "g"): kind Gadget in v1 is not served by the cluster',
      'object 7 (ConfigMap "no-version") has no apiVersion',
    ]);
    noMutations();
  });
});

describe('arguments', () => {
  test('invalid names, empty strings and mixed modes fail before any request', async () => {
    h.sim.clearLog();
    const cases: [Promise<unknown>, string][] = [
      [
        ocp.create('bad/name', {}, { namespace: 'workers', api }),
        'templateName "bad/name" may not contain "/"',
      ],
      [ocp.create('ok', {}, { namespace: '', api }), 'namespace must not be empty'],
      [
        ocp.create('ok', {}, { namespace: 'UPPER', api }),
        'namespace "UPPER" is not a valid namespace name (DNS-1123 label)',
      ],
      [
        ocp.get('ok', {}, { namespace: 'workers', resources: [], api } as never),
        'resources cannot be combined with a template name',
      ],
      [
        ocp.delete({ namespace: 'workers', resources: [], templateNamespace: 'infra', api } as never),
        'templateNamespace cannot be combined with resources',
      ],
      [
        ocp.delete({ namespace: 'workers', api } as never),
        'resources must be an array of references, or a template name must be given',
      ],
      [
        ocp.delete({
          namespace: 'workers',
          resources: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'other' }],
          api,
        }),
        'resources[0] is in namespace "other", not the target namespace "workers"',
      ],
      [
        ocp.create('ok', {}, { namespace: 'workers', requestTimeout: -1, api }),
        'requestTimeout must be a positive number',
      ],
      // A Node.js timer fires at once (after 1 ms) beyond 2^31 - 1 ms: refused, never clamped.
      [
        ocp.connect({ requestTimeout: 2 ** 31 }),
        'requestTimeout must be at most 2147483647 ms (about 24.8 days)',
      ],
      [
        ocp.create(
          'ok',
          {},
          { namespace: 'workers', requestTimeout: { connect: 1_000, read: 2 ** 32 }, api },
        ),
        'requestTimeout must be at most 2147483647 ms',
      ],
      [
        ocp.create('ok', {}, { namespace: 'workers', fieldManager: '', api }),
        'fieldManager must be a non-empty string',
      ],
      [
        ocp.connect({ inCluster: true, context: 'x' }),
        'inCluster cannot be combined with kubeconfig or context',
      ],
    ];
    for (const [promise, text] of cases) {
      const error = await rejection(promise);
      expect(error).toBeInstanceOf(ocp.ValidationError);
      expect(error.message).toContain(text);
    }
    expect(h.sim.log).toHaveLength(0);
  });

  test('an api that is not a Connection, or a closed one, is refused', async () => {
    const fake = { server: 'x', close: () => Promise.resolve() } as unknown as ocp.Connection;
    expect(
      await rejection(ocp.process('worker-template', {}, { namespace: 'workers', api: fake })),
    ).toBeInstanceOf(ocp.ValidationError);
    const closed = await h.connect();
    await closed.close();
    const error = instance(
      await rejection(ocp.process('worker-template', {}, { namespace: 'workers', api: closed })),
      ocp.ValidationError,
    );
    expect(error.message).toContain('api is a closed Connection');
    // The code a request in flight gets when close() ends it (test/connection/loose-ends.test.ts).
    expect(error.code).toBe('OTC_CONNECTION_CLOSED');
  });
});

describe('object names follow the server rule for their kind', () => {
  beforeAll(() => {
    h.sim.seedTemplate(
      'rbac-names',
      [{ name: 'APP', value: 'jenkins' }],
      [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: '${APP}' } },
        {
          apiVersion: 'authorization.openshift.io/v1',
          kind: 'RoleBinding',
          metadata: { name: '${APP}_edit' },
          roleRef: { name: 'edit' },
          subjects: [{ kind: 'ServiceAccount', name: '${APP}' }],
        },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: '${APP}.Reader' } },
      ],
    );
    h.sim.seedTemplate(
      'bad-names',
      [],
      [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine' } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: '1web' } },
        { apiVersion: 'image.openshift.io/v1', kind: 'ImageStream', metadata: { name: 'a--b' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Upper_Case' } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'a%b' } },
      ],
    );
  });

  test('RBAC names are path segments: "jenkins_edit" is created, and deleted again by replay', async () => {
    const refs = await ocp.create('rbac-names', {}, { ...WORKER, api });
    expect(refs.map((r) => r.name)).toEqual(['jenkins', 'jenkins_edit', 'jenkins.Reader']);
    expect(
      h.sim.getObject('authorization.openshift.io/v1', 'RoleBinding', 'workers', 'jenkins_edit'),
    ).toBeDefined();
    await ocp.delete('rbac-names', {}, { ...WORKER, api });
    expect(
      h.sim.getObject('authorization.openshift.io/v1', 'RoleBinding', 'workers', 'jenkins_edit'),
    ).toBeUndefined();
  });

  test('names each rule refuses are refused client-side, before any mutation, naming the rule', async () => {
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.create('bad-names', {}, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(error.issues).toEqual([
      'object 2 (Service "1web"): metadata.name "1web" is not a valid name for this kind (a DNS-1035 label: starts with a lowercase letter; lowercase letters, digits and "-", at most 63 characters)',
      'object 3 (ImageStream "a--b"): metadata.name "a--b" is not a valid ImageStream name (lowercase letters and digits, separated by single ".", "_" or "-")',
      'object 4 (ConfigMap "Upper_Case"): metadata.name "Upper_Case" is not a valid name for this kind (a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", at most 253 characters)',
      'object 5 (RoleBinding "a%b"): metadata.name "a%b" may not contain "%"',
    ]);
    noMutations();
  });

  test('reference-mode names use the same rules', async () => {
    const ref = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: 'workers' };
    expect(
      await ocp
        .get({ namespace: 'workers', resources: [{ ...ref, name: 'x_y' }], api })
        .catch((e: unknown) => e),
    ).toBeInstanceOf(ocp.RequestError);
    const refused = instance(
      await rejection(
        ocp.get({
          namespace: 'workers',
          resources: [{ ...ref, kind: 'Service', apiVersion: 'v1', name: 'x_y' }],
          api,
        }),
      ),
      ocp.ValidationError,
    );
    expect(refused.issues[0]).toMatch(/^resources\[0\]\.name "x_y" is not a valid name for this kind/);
  });
});

// openshift-apiserver checks every image.openshift.io name as a path segment; the tag kinds' storage
// then splits it as STREAM:TAG (pkg/image/apis/image/validation, library-go ParseImageStreamTagName).
describe('image.openshift.io names follow openshift-apiserver, kind by kind', () => {
  const IMAGE = 'image.openshift.io/v1';
  beforeAll(() => {
    h.sim.seedTemplate(
      'image-tags',
      [{ name: 'STREAM', value: 'ruby' }],
      [
        { apiVersion: IMAGE, kind: 'ImageStream', metadata: { name: '${STREAM}' } },
        {
          apiVersion: IMAGE,
          kind: 'ImageStreamTag',
          metadata: { name: '${STREAM}:3.3' },
          tag: { from: { kind: 'DockerImage', name: 'registry.example/ruby:3.3' } },
        },
        {
          apiVersion: IMAGE,
          kind: 'ImageTag',
          metadata: { name: '${STREAM}:latest' },
          spec: { name: 'latest', from: { kind: 'ImageStreamTag', name: '${STREAM}:3.3' } },
        },
      ],
    );
    h.sim.seedTemplate(
      'bad-image-names',
      [],
      [
        { apiVersion: IMAGE, kind: 'ImageStreamTag', metadata: { name: 'ruby' } },
        { apiVersion: IMAGE, kind: 'ImageStreamTag', metadata: { name: 'ruby:3.3:x' } },
        { apiVersion: IMAGE, kind: 'ImageTag', metadata: { name: 'ruby@sha256:abc' } },
        { apiVersion: IMAGE, kind: 'ImageTag', metadata: { name: ':latest' } },
        { apiVersion: IMAGE, kind: 'ImageStreamImport', metadata: { name: 'Ruby' } },
        { apiVersion: IMAGE, kind: 'ImageStream', metadata: { name: `r${'x'.repeat(250)}` } },
      ],
    );
  });

  test('ImageStreamTag and ImageTag "stream:tag" names are created, read back and deleted by replay', async () => {
    const refs = await ocp.create('image-tags', {}, { ...WORKER, api });
    expect(refs.map((r) => `${r.kind} ${r.name}`)).toEqual([
      'ImageStream ruby',
      'ImageStreamTag ruby:3.3',
      'ImageTag ruby:latest',
    ]);
    const live = await ocp.get({
      namespace: 'workers',
      resources: refs.map(({ apiVersion, kind, namespace, name }) => ({ apiVersion, kind, namespace, name })),
      api,
    });
    expect(live.map((o) => o.metadata?.name)).toEqual(['ruby', 'ruby:3.3', 'ruby:latest']);
    await ocp.delete('image-tags', {}, { ...WORKER, api });
    expect(h.sim.getObject(IMAGE, 'ImageStreamTag', 'workers', 'ruby:3.3')).toBeUndefined();
    expect(h.sim.getObject(IMAGE, 'ImageTag', 'workers', 'ruby:latest')).toBeUndefined();
  });

  test('names the image kinds refuse are refused before any mutation, naming the shape', async () => {
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.create('bad-image-names', {}, { ...WORKER, api })),
      ocp.ValidationError,
    );
    const tagShape =
      'is not a valid name for this kind (STREAM:TAG: one ":" with text on both sides, no "@")';
    expect(error.issues).toEqual([
      `object 1 (ImageStreamTag "ruby"): metadata.name "ruby" ${tagShape}`,
      `object 2 (ImageStreamTag "ruby:3.3:x"): metadata.name "ruby:3.3:x" ${tagShape}`,
      `object 3 (ImageTag "ruby@sha256:abc"): metadata.name "ruby@sha256:abc" ${tagShape}`,
      `object 4 (ImageTag ":latest"): metadata.name ":latest" ${tagShape}`,
      'object 5 (ImageStreamImport "Ruby"): metadata.name "Ruby" is not a valid ImageStream name (lowercase letters and digits, separated by single ".", "_" or "-")',
      `object 6 (ImageStream "r${'x'.repeat(250)}"): metadata.name "r${'x'.repeat(250)}" is too long for an ImageStream in namespace "workers" ("namespace/name" may have at most 255 characters)`,
    ]);
    noMutations();
  });

  test('reference mode reads an ImageStreamTag by its stream:tag name and refuses other shapes', async () => {
    const ref = { apiVersion: IMAGE, kind: 'ImageStreamTag', namespace: 'workers' };
    const missing = await ocp
      .get({ namespace: 'workers', resources: [{ ...ref, name: 'ruby:3.3' }], api })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ocp.RequestError);
    expect((missing as ocp.RequestError).message).toMatch(/not found/);
    const refused = instance(
      await rejection(ocp.get({ namespace: 'workers', resources: [{ ...ref, name: 'ruby' }], api })),
      ocp.ValidationError,
    );
    expect(refused.issues).toEqual([
      'resources[0].name "ruby" is not a valid name for this kind (STREAM:TAG: one ":" with text on both sides, no "@")',
    ]);
  });
});

describe('problems of rendered objects are redacted like every other error', () => {
  test('a Secret-bound value that also reaches a name is never printed in the issues', async () => {
    const sentinel = 'SENTINEL_Secret_Name_44e1';
    h.sim.seedTemplate(
      'secret-in-name',
      [{ name: 'KEY', required: true }],
      [
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'keyed' }, stringData: { key: '${KEY}' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'for-${KEY}' } },
      ],
    );
    h.sim.clearLog();
    const error = instance(
      await rejection(ocp.create('secret-in-name', { KEY: sentinel }, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(error.issues).toEqual([
      'object 2 (ConfigMap "for-[redacted]"): metadata.name "for-[redacted]" is not a valid name for this kind (a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", at most 253 characters)',
    ]);
    expect(`${error.message}${error.stack ?? ''}`).not.toContain(sentinel);
    noMutations();
  });
});
