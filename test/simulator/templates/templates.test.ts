// Template processing against openshift/library-go's rules and texts (docs/wire-reference.md §1).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { generateExpression } from '../../../simulator/templates/templates.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const PROCESS = '/apis/template.openshift.io/v1/namespaces/workers/processedtemplates';

function template(
  parameters: unknown[],
  objects: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: 'mytpl' },
    parameters,
    objects,
    ...extra,
  };
}

describe('substitution', () => {
  test('TestProcessValue from library-go, and 201 Created with a Template', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [
          { name: 'VALUE', value: '1' },
          { name: 'STRING_1', value: 'string1' },
          { name: 'INT_1', value: '1' },
          { name: 'VALID_JSON_MAP', value: '{"key":"value"}' },
          { name: 'INVALID_JSON_MAP', value: '{"key":"value"' },
        ],
        [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'x' },
            data: {
              i1: '${{INT_1}}',
              key2: '$${VALUE}',
              s1_s1: '${STRING_1}_${STRING_1}',
              untouched: 'a${{INT_1}}',
              untouched3: '${{INVALID_PARAMETER}}',
              validjsonmap: '${{VALID_JSON_MAP}}',
              invalidjsonmap: '${{INVALID_JSON_MAP}}',
              quoted_string: '${{STRING_1}}',
            },
          },
        ],
      ),
    });
    expect(res.status).toBe(201);
    expect(res.json.kind).toBe('Template');
    const [object] = res.json.objects as { data: unknown }[];
    expect(object?.data).toEqual({
      i1: 1,
      invalidjsonmap: '{"key":"value"',
      key2: '$1',
      quoted_string: 'string1',
      s1_s1: 'string1_string1',
      untouched: 'a${{INT_1}}',
      untouched3: '${{INVALID_PARAMETER}}',
      validjsonmap: { key: 'value' },
    });
  });

  test('map keys, apiVersion, kind and names are substituted; unknown names stay literal', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [
          { name: 'N', value: 'w1' },
          { name: 'K', value: 'ConfigMap' },
        ],
        [
          {
            apiVersion: 'v1',
            kind: '${K}',
            metadata: { name: '${N}-cm' },
            data: { '${N}.conf': '${UNKNOWN}' },
          },
        ],
      ),
    });
    expect((res.json.objects as unknown[])[0]).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'w1-cm' },
      data: { 'w1.conf': '${UNKNOWN}' },
    });
  });

  test('literal namespaces are stripped, parameterised ones kept; template labels win', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [{ name: 'NS', value: 'elsewhere' }],
        [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'a', namespace: 'fixed', labels: { app: 'mine', keep: 'yes' } },
          },
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: '${NS}' } },
        ],
        { labels: { app: 'template' } },
      ),
    });
    const [a, b] = res.json.objects as { metadata: Record<string, unknown> }[];
    // library-go stripNamespace: Unstructured.SetNamespace("") removes the field entirely.
    expect(a?.metadata).toEqual({ name: 'a', labels: { app: 'template', keep: 'yes' } });
    expect(b?.metadata).toEqual({ name: 'b', namespace: 'elsewhere', labels: { app: 'template' } });
  });

  test('legacy OpenShift kinds with a group-less apiVersion come back in their group, after substitution', async () => {
    // library-go pkg/template/templateprocessing/template.go: after SubstituteParameters, every
    // object goes through legacygroupification.OAPIToGroupifiedGVK
    // (pkg/legacyapi/legacygroupification/groupification.go), so 3.x-era Templates apply on 4.x.
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [{ name: 'KIND', value: 'BuildConfig' }],
        [
          { apiVersion: 'v1', kind: 'DeploymentConfig', metadata: { name: 'dc' } },
          { apiVersion: 'v1', kind: 'Route', metadata: { name: 'route' } },
          { apiVersion: 'v1', kind: 'ImageStream', metadata: { name: 'is' } },
          { apiVersion: 'v1', kind: 'RoleBinding', metadata: { name: 'rb' } },
          { apiVersion: 'v1', kind: '${KIND}', metadata: { name: 'substituted' } },
          // Outside the table, or already grouped: untouched.
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } },
          { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'widget' } },
          { apiVersion: 'apps/v1', kind: 'DeploymentConfig', metadata: { name: 'odd' } },
        ],
      ),
    });
    expect(res.status).toBe(201);
    const kinds = (res.json.objects as { apiVersion: string; kind: string }[]).map(
      (o) => `${o.apiVersion} ${o.kind}`,
    );
    expect(kinds).toEqual([
      'apps.openshift.io/v1 DeploymentConfig',
      'route.openshift.io/v1 Route',
      'image.openshift.io/v1 ImageStream',
      'authorization.openshift.io/v1 RoleBinding',
      'build.openshift.io/v1 BuildConfig',
      'v1 ConfigMap',
      'v1 Widget',
      'apps/v1 DeploymentConfig',
    ]);
  });

  test('an empty but present labels map still sets metadata.labels; no labels field sets nothing', async () => {
    // library-go addObjectLabels returns early only for a nil map; an empty map sets labels {}.
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
    const empty = await call(sim, 'POST', PROCESS, { body: template([], [object], { labels: {} }) });
    expect((empty.json.objects as { metadata: unknown }[])[0]?.metadata).toEqual({ name: 'a', labels: {} });
    const none = await call(sim, 'POST', PROCESS, { body: template([], [object]) });
    expect((none.json.objects as { metadata: unknown }[])[0]?.metadata).toEqual({ name: 'a' });
  });

  test('${{NAME}} is parsed as JSON in object fields only, never in labels or the message', async () => {
    // library-go Process: the message and ObjectLabels take EvaluateParameterSubstitution's string
    // as it is; only visitObjectStrings (object fields) unmarshals a non-string substitution.
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [
          { name: 'N', value: '3' },
          { name: 'Q', value: '"quoted"' },
        ],
        [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'a' },
            spec: { n: '${{N}}', q: '${{Q}}' },
          },
        ],
        { labels: { count: '${{N}}', quoted: '${{Q}}' }, message: '${{N}}' },
      ),
    });
    expect(res.json.message).toBe('3');
    expect(res.json.labels).toEqual({ count: '3', quoted: '"quoted"' });
    const [object] = res.json.objects as { metadata: { labels: unknown }; spec: unknown }[];
    expect(object?.metadata.labels).toEqual({ count: '3', quoted: '"quoted"' });
    expect(object?.spec).toEqual({ n: 3, q: 'quoted' });
  });

  test('a value beats a generator; generated values are returned in parameters', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [
          { name: 'FIXED', value: 'given', generate: 'expression', from: '[a-z]{8}' },
          { name: 'RANDOM', generate: 'expression', from: 'test[0-9]{4}x' },
        ],
        [],
      ),
    });
    const parameters = res.json.parameters as { name: string; value: string; generate?: string }[];
    expect(parameters[0]?.value).toBe('given');
    expect(parameters[1]?.value).toMatch(/^test[0-8]{4}x$/);
    expect(parameters[1]?.generate).toBe('expression');
  });
});

describe('generator', () => {
  test('classes and the upstream upper-bound quirk', () => {
    expect(generateExpression('[\\d]{40}')).toMatch(/^[0-9]{40}$/);
    expect(generateExpression('[\\w]{40}')).toMatch(/^\w{40}$/);
    expect(generateExpression('[\\a]{40}')).toMatch(/^[a-zA-Z0-9]{40}$/);
    // library-go slices ASCII[from:to), so the range's last character is never produced.
    expect(generateExpression('[a-c]{200}')).toMatch(/^[ab]{200}$/);
    expect(generateExpression('x[A-Z]{3}y[0-9]{2}z')).toMatch(/^x[A-Y]{3}y[0-8]{2}z$/);
  });

  test.each([
    ['[ABC]{3}', 'malformed expresion syntax: [ABC]'],
    ['[Z-A]{3}', 'invalid range specified: Z-A'],
    ['[a-z]{300}', 'range must be within [1-255] characters (300)'],
  ])('%s is rejected with 422 "%s"', async (from, detail) => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template([{ name: 'P', generate: 'expression', from }], []),
    });
    expect(res.status).toBe(422);
    expect(res.json.reason).toBe('Invalid');
    expect(res.json.message).toMatch(
      /^Template\.template\.openshift\.io "mytpl" is invalid: template\.parameters\[0\]: Invalid value: /,
    );
    expect(res.json.message).toContain(detail);
    // The Parameter quoted as encoding/json writes it (apimachinery field.ErrorBody), as the real one.
    const quoted = JSON.stringify({ name: 'P', generate: 'expression', from });
    expect(res.json.message).toContain(`Invalid value: ${quoted}: `);
    expect((res.json.details as { causes: unknown[] }).causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: expect.stringContaining(detail) as unknown,
        field: 'template.parameters[0]',
      },
    ]);
  });

  test('an unknown generator name', async () => {
    const res = await call(sim, 'POST', PROCESS, { body: template([{ name: 'X', generate: 'foo' }], []) });
    expect(res.json.message).toBe(
      `Template.template.openshift.io "mytpl" is invalid: template.parameters[0]: Invalid value: "foo": Unknown generator name 'foo' for parameter X`,
    );
  });
});

describe('validation', () => {
  test('a missing required parameter: the real wire text (openshift/origin#16496)', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template([{ name: 'DB_PASSWORD', required: true }], []),
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Template.template.openshift.io "mytpl" is invalid: template.parameters[0]: Required value: template.parameters[0]: parameter DB_PASSWORD is required and must be specified',
      reason: 'Invalid',
      details: {
        name: 'mytpl',
        group: 'template.openshift.io',
        kind: 'Template',
        causes: [
          {
            reason: 'FieldValueRequired',
            message:
              'Required value: template.parameters[0]: parameter DB_PASSWORD is required and must be specified',
            field: 'template.parameters[0]',
          },
        ],
      },
      code: 422,
    });
  });

  test('several errors are all collected', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template(
        [
          { name: 'A', required: true },
          { name: 'B', value: 'ok' },
          { name: 'C', required: true },
        ],
        [],
      ),
    });
    expect(res.json.message).toMatch(
      /is invalid: \[template\.parameters\[0\]: .*, template\.parameters\[2\]: .*\]$/,
    );
    expect((res.json.details as { causes: unknown[] }).causes).toHaveLength(2);
  });

  test('parameter names are validated first', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template([{ name: '' }, { name: 'bad-name' }], []),
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'Template.template.openshift.io "mytpl" is invalid: [parameters[0].name: Required value, parameters[1].name: Invalid value: "bad-name": does not match ^[a-zA-Z0-9_]+$]',
    );
  });

  test('namespace and apiVersion mismatches are 400', async () => {
    const wrongNamespace = await call(sim, 'POST', PROCESS, {
      body: { ...template([], []), metadata: { name: 'mytpl', namespace: 'infra' } },
    });
    expect(wrongNamespace.status).toBe(400);
    expect(wrongNamespace.json.message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    const wrongVersion = await call(sim, 'POST', PROCESS, {
      body: { ...template([], []), apiVersion: 'v1' },
    });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.json.message).toBe(
      'the API version in the data (v1) does not match the expected API version (template.openshift.io/v1)',
    );
  });

  test('an object without a kind', async () => {
    const res = await call(sim, 'POST', PROCESS, {
      body: template([], [{ apiVersion: 'v1', metadata: { name: 'x' } }]),
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toContain("unable to handle object: Object 'Kind' is missing");
  });
});

describe('the Template decoded first, as any create', () => {
  test('an unknown field: 400 under Strict, a warning under Warn, nothing under Ignore', async () => {
    const body = { ...template([], []), bogusTop: 1 };
    const strict = await call(sim, 'POST', `${PROCESS}?fieldValidation=Strict`, { body });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('strict decoding error: unknown field "bogusTop"');
    const warn = await call(sim, 'POST', `${PROCESS}?fieldValidation=Warn`, { body });
    expect(warn.status).toBe(201);
    expect(warn.json).not.toHaveProperty('bogusTop');
    expect(warn.warnings).toEqual(['299 - "unknown field \\"bogusTop\\""']);
    const ignore = await call(sim, 'POST', `${PROCESS}?fieldValidation=Ignore`, { body });
    expect(ignore.status).toBe(201);
    expect(ignore.warnings).toEqual([]);
  });
});

describe('stored Templates', () => {
  test('readable with GET, creatable with POST, and processing never changes them', async () => {
    const created = await call(sim, 'POST', '/apis/template.openshift.io/v1/namespaces/infra/templates', {
      body: { ...template([{ name: 'N', value: 'v' }], []), metadata: { name: 'posted' } },
    });
    expect(created.status).toBe(201);
    const before = await call(sim, 'GET', '/apis/template.openshift.io/v1/namespaces/infra/templates/posted');
    expect(before.json.metadata).toMatchObject({ name: 'posted', namespace: 'infra' });
    await call(sim, 'POST', PROCESS, { body: { ...before.json, metadata: { name: 'posted' } } });
    const after = await call(sim, 'GET', '/apis/template.openshift.io/v1/namespaces/infra/templates/posted');
    expect(after.json).toEqual(before.json);
  });
});
