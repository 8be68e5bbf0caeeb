// Property-based tests: hostile and random input never produces anything but a ValidationError or
// a documented API error, never pollutes a prototype, and never lets a mutation through.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { checkReferenceArguments, checkTemplateArguments } from '../../src/checks/arguments.ts';
import { normalizeSecret } from '../../src/checks/secrets.ts';
import { checkRenderedObjects, prepareTemplate, unresolvedGenerators } from '../../src/validate.ts';
import { harness, type Harness } from '../helpers.ts';
import { report } from './report.ts';

const counts: Record<string, number> = {};
function runs(name: string, n: number): { numRuns: number } {
  counts[name] = n;
  return { numRuns: n };
}

const hostileKey = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      '',
      ' ',
      'NAME',
      'VM_NAME',
      '$',
      '${X}',
    ),
    weight: 5,
  },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 5 },
  { arbitrary: fc.string({ minLength: 1000, maxLength: 5000 }), weight: 1 },
);
const edgeNumber = fc.constantFrom(
  0,
  -0,
  1,
  -1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  Number.MAX_VALUE,
  1e21,
  0.1 + 0.2,
  NaN,
  Infinity,
  -Infinity,
);
const hostileValue = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 50 }), weight: 5 },
  { arbitrary: fc.string({ maxLength: 100_000, minLength: 50_000 }), weight: 1 },
  fc.boolean(),
  edgeNumber,
  fc.double(),
  fc.constant(null),
  fc.constant(undefined),
  fc.anything({ maxDepth: 4 }),
);
const hostileParameters = fc.oneof(
  fc.dictionary(hostileKey, hostileValue, { maxKeys: 8 }),
  fc.anything({ maxDepth: 3 }),
  fc.constant(
    JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}',
    ) as unknown,
  ),
);
const namespace = fc.oneof(
  fc.constantFrom('workers', 'infra', '', 'UPPER', 'a'.repeat(64), 'kube-system', '-bad', 'ok-1'),
  fc.string({ maxLength: 70 }),
);
const deepObject = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.dictionary(hostileKey, tie('node'), { maxKeys: 4 }),
    fc.array(tie('node'), { maxLength: 3 }),
  ),
})).node;

function prototypesIntact(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(Object.keys(Object.prototype)).toEqual([]);
}

// The pure checks run a fixed number of cases: that count bounds them, not a clock. A busy 2-core
// machine takes longer than the suite's default limit for them, so this limit only catches a hang.
describe('pure validation under hostile input', { timeout: 300_000 }, () => {
  test('argument checks only ever return problems, never throw, never pollute', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.anything()),
        hostileParameters,
        namespace,
        fc.option(namespace),
        (name, parameters, ns, tns) => {
          const issues = checkTemplateArguments('process', name, parameters, {
            namespace: ns,
            ...(tns === null ? {} : { templateNamespace: tns }),
          });
          expect(Array.isArray(issues)).toBe(true);
          for (const issue of issues) expect(typeof issue).toBe('string');
          prototypesIntact();
        },
      ),
      runs('argument checks', 3000),
    );
  });

  test('reference checks accept only refs in the target namespace, without duplicates', () => {
    const ref = fc.record(
      {
        apiVersion: fc.constantFrom('v1', 'kubevirt.io/v1', ''),
        kind: fc.constantFrom('ConfigMap', 'Secret', ''),
        namespace,
        name: fc.oneof(fc.constantFrom('a', 'b', 'x-1'), fc.string()),
        uid: fc.option(fc.string()),
      },
      { requiredKeys: ['apiVersion', 'kind', 'namespace', 'name'] },
    );
    fc.assert(
      fc.property(fc.array(ref, { maxLength: 6 }), namespace, (resources, ns) => {
        const issues = checkReferenceArguments('get', { namespace: ns, resources });
        const keys = resources.map((r) => JSON.stringify([r.apiVersion, r.kind, r.namespace, r.name]));
        if (resources.some((r) => r.namespace !== ns) || new Set(keys).size !== keys.length)
          expect(issues.length).toBeGreaterThan(0);
        prototypesIntact();
      }),
      runs('reference checks', 2000),
    );
  });

  test('preparing a Template copy never changes the stored one and never pollutes', () => {
    const parameter = fc.record({
      name: hostileKey,
      value: fc.option(fc.string()),
      generate: fc.option(fc.constantFrom('expression', 'other')),
      from: fc.option(fc.string()),
    });
    const overrideValue = fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.integer(),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    let checked = 0;
    fc.assert(
      fc.property(
        fc.array(parameter, { maxLength: 6 }),
        deepObject,
        fc.dictionary(hostileKey, overrideValue, { maxKeys: 3 }),
        fc.array(fc.tuple(fc.nat(), overrideValue), { maxLength: 4 }),
        (parameters, objects, undeclared, picks) => {
          // Overrides of declared parameters (valid by construction) plus keys that may be undeclared.
          const declared = picks.flatMap(([i, value]) => {
            const name = parameters[i % Math.max(parameters.length, 1)]?.name;
            return name === undefined ? [] : [[name, value] as const];
          });
          const overrides = Object.fromEntries([...Object.entries(undeclared), ...declared]);
          const template = {
            apiVersion: 'template.openshift.io/v1',
            kind: 'Template',
            metadata: { name: 't', namespace: 'infra', uid: 'u', resourceVersion: '1' },
            parameters,
            objects: [objects],
          };
          const before = structuredClone(template);
          expect(checkTemplateArguments('process', 't', overrides, { namespace: 'workers' })).toEqual([]);
          const { template: copy, issues } = prepareTemplate(template, overrides);
          expect(template).toEqual(before);
          expect(copy.metadata).toEqual({ name: 't' });
          const names = new Set(parameters.map((p) => p.name));
          const copied = copy.parameters as Record<string, unknown>[];
          for (const [name, value] of Object.entries(overrides)) {
            if (!names.has(name) || name === '') {
              const undeclared = `parameter ${JSON.stringify(name)} is not declared by the Template; `;
              expect(issues.some((issue) => issue.text.startsWith(undeclared))).toBe(true);
              continue;
            }
            const target = copied.findLast((p) => p.name === name);
            if (typeof value === 'number') {
              // Positional decimal text that reads back as the same number (README, parameters).
              expect(target?.value).toMatch(/^-?\d+(\.\d+)?$/);
              expect(Number(target?.value) === value).toBe(true);
            } else expect(target?.value).toBe(String(value));
            expect(target).not.toHaveProperty('generate');
            expect(target).not.toHaveProperty('from');
          }
          for (const issue of issues) {
            expect(issue.kind).toBe('parameter');
            expect(issue.text).toMatch(
              /^parameter (".*" is not declared by the Template; .*|.* is required by the Template and has no value: give it one)$/s,
            );
          }
          expect(Array.isArray(unresolvedGenerators(copy))).toBe(true);
          prototypesIntact();
          checked += 1;
        },
      ),
      runs('template preparation', 2000),
    );
    // Every generated case reaches the assertions: none is filtered out as invalid input.
    expect(checked).toBe(2000);
  });

  test('rendered objects: an invalid target is always reported, a clean set always yields targets', () => {
    const object = fc.record(
      {
        apiVersion: fc.constantFrom(
          'v1',
          'kubevirt.io/v1',
          'rbac.authorization.k8s.io/v1',
          'example.com/v1',
          '',
        ),
        kind: fc.constantFrom('ConfigMap', 'Secret', 'VirtualMachine', 'ClusterRole', 'Role', 'Widget', ''),
        metadata: fc.record(
          {
            name: fc.oneof(fc.constantFrom('a', 'b', 'c-1'), fc.string()),
            namespace: fc.option(namespace),
            generateName: fc.option(fc.string()),
          },
          { requiredKeys: [] },
        ),
        data: deepObject,
      },
      { requiredKeys: ['metadata'] },
    );
    const lookup = (
      apiVersion: string,
      kind: string,
    ): { resource: string; namespaced: boolean } | undefined => {
      if (kind === 'ClusterRole' && apiVersion === 'rbac.authorization.k8s.io/v1')
        return { resource: 'clusterroles', namespaced: false };
      if (kind === 'Role' && apiVersion === 'rbac.authorization.k8s.io/v1')
        return { resource: 'roles', namespaced: true };
      if ((kind === 'ConfigMap' || kind === 'Secret') && apiVersion === 'v1')
        return { resource: `${kind.toLowerCase()}s`, namespaced: true };
      if (kind === 'VirtualMachine' && apiVersion === 'kubevirt.io/v1')
        return { resource: 'virtualmachines', namespaced: true };
      return undefined;
    };
    fc.assert(
      fc.property(fc.array(fc.oneof(object, fc.anything({ maxDepth: 2 })), { maxLength: 6 }), (objects) => {
        const { targets, problems } = checkRenderedObjects(objects, 'workers', lookup);
        if (problems.length === 0) {
          expect(targets).toHaveLength(objects.length);
          for (const t of targets) {
            expect(t.object.metadata?.namespace).toBe('workers');
            expect(t.object.metadata?.generateName).toBeUndefined();
            expect(lookup(t.ref.apiVersion, t.ref.kind)?.namespaced).toBe(true);
          }
          expect(new Set(targets.map((t) => JSON.stringify(t.ref))).size).toBe(targets.length);
        }
        prototypesIntact();
      }),
      runs('rendered objects', 2500),
    );
  });

  test('Secret normalization: UTF-8 base64 of every value, stringData wins, input untouched', () => {
    fc.assert(
      fc.property(
        fc.dictionary(hostileKey, fc.string({ unit: 'grapheme' })),
        fc.dictionary(hostileKey, fc.base64String()),
        (stringData, data) => {
          const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data, stringData };
          const before = structuredClone(secret);
          const normalized = normalizeSecret(secret);
          expect(secret).toEqual(before);
          expect(normalized.stringData).toBeUndefined();
          const out = normalized.data as Record<string, string>;
          for (const [key, value] of Object.entries(stringData)) {
            expect(Object.hasOwn(out, key)).toBe(true);
            expect(Buffer.from(out[key] ?? '', 'base64').toString('utf8')).toBe(value);
          }
          prototypesIntact();
        },
      ),
      runs('Secret normalization', 2000),
    );
  });
});

describe('end to end against the simulator', () => {
  let h: Harness;
  let api: ocp.Connection;
  beforeAll(async () => {
    h = await harness();
    api = await h.connect();
  });
  afterAll(async () => {
    await api.close();
    await h.close();
  });

  test('random arguments: only documented errors, and an invalid target never mutates', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom('worker-template', 'generated-template', 'missing'), fc.string()),
        hostileParameters,
        namespace,
        async (name, parameters, ns) => {
          h.sim.clearLog();
          try {
            await ocp.create(name, parameters as ocp.TemplateParameters, {
              namespace: ns,
              templateNamespace: 'infra',
              api,
            });
          } catch (error) {
            expect(
              error instanceof ocp.ValidationError ||
                error instanceof ocp.RequestError ||
                error instanceof ocp.OperationError,
            ).toBe(true);
            if (error instanceof ocp.ValidationError)
              expect(h.sim.mutations().filter((e) => e.method !== 'POST')).toEqual([]);
          }
          prototypesIntact();
        },
      ),
      runs('public API, random arguments', 300),
    );
  });

  test('random rendered templates with one bad object: refused before any apply', async () => {
    const bad = fc.constantFrom(
      // A literal namespace is stripped by the server; only a parameterised one escapes.
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'escape', namespace: '${NS}' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'rand-' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cr' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' } },
    );
    const good = fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/), value: fc.string() });
    await fc.assert(
      fc.asyncProperty(fc.array(good, { maxLength: 5 }), bad, fc.nat(5), async (goods, badObject, at) => {
        const objects: unknown[] = goods.map((g, i) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${g.name}-${i}` },
          data: { v: g.value },
        }));
        objects.splice(Math.min(at, objects.length), 0, badObject);
        if (badObject.metadata.name === 'dup') objects.push(badObject);
        h.sim.seedTemplate('random', [{ name: 'NS', value: 'other' }], objects);
        h.sim.clearLog();
        const error = await ocp
          .create('random', {}, { namespace: 'workers', templateNamespace: 'infra', api })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ocp.ValidationError);
        expect(h.sim.log.filter((e) => e.method === 'PATCH' || e.method === 'DELETE')).toEqual([]);
      }),
      runs('public API, rendered templates with a bad object', 300),
    );
  });

  afterAll(() => {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    report('properties', { counts, total });
    expect(total).toBeGreaterThanOrEqual(10_000);
  });
});
