// Pruning undeclared fields for the Warn and Ignore modes: a copy without them, the input never
// changed, wrong types kept as problems. Properties checked with fast-check over Deployments with
// keys added anywhere.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { pruneUndeclared } from '../../src/schema/prune.ts';
import { typeObject } from '../../src/schema/typing.ts';
import { appsV1, coreV1, deployment } from './tables.ts';

type Json = Record<string, unknown>;

function containerOf(object: Json): Json {
  const c = (object.spec as { template: { spec: { containers: Json[] } } }).template.spec.containers[0];
  if (c === undefined) throw new Error('no container');
  return c;
}

/** Every map in the object, including those in lists. */
function mapsIn(value: unknown, into: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const item of value) mapsIn(item, into);
  else if (typeof value === 'object' && value !== null) {
    into.push(value as Json);
    for (const child of Object.values(value)) mapsIn(child, into);
  }
  return into;
}

const additions = fc.array(
  fc.record({
    at: fc.nat(),
    key: fc.string({ minLength: 1, maxLength: 12 }),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  { maxLength: 8 },
);

function withAdditions(list: readonly { at: number; key: string; value: unknown }[]): Json {
  const object = deployment();
  const maps = mapsIn(object);
  for (const { at, key, value } of list) {
    const target = maps[at % maps.length];
    // Keys that could change the object's kind or a list element's identity stay out.
    if (
      target === undefined ||
      ['apiVersion', 'kind', 'name', 'containerPort', 'protocol', '__proto__'].includes(key)
    )
      continue;
    target[key] = value;
  }
  return object;
}

describe('pruneUndeclared', () => {
  test('removes undeclared fields from a copy and says which, in document order', () => {
    const object = deployment();
    (object.spec as Json).triggers = [{ type: 'ConfigChange' }];
    containerOf(object).capabilities = {};
    const before = structuredClone(object);
    const { object: pruned, removed, problems } = pruneUndeclared(appsV1, object);
    expect(removed.map((p) => p.path)).toEqual([
      '.spec.template.spec.containers[name="redis"].capabilities',
      '.spec.triggers',
    ]);
    expect(problems).toEqual([]);
    expect(object).toEqual(before);
    expect(pruned).toEqual(deployment());
  });

  test('wrong types and decode problems are not pruned', () => {
    const object = deployment();
    (object.spec as Json).replicas = 'two';
    containerOf(object).resources = { limits: { cpu: '1.5.2' } };
    (object.spec as Json).paused2 = true;
    const {
      object: pruned,
      removed,
      problems,
      decodeProblems,
    } = pruneUndeclared(appsV1, object, { decode: true });
    expect(removed.map((p) => p.path)).toEqual(['.spec.paused2']);
    expect(problems.map((p) => `${p.path}: ${p.reason}`)).toEqual([
      '.spec.replicas: expected numeric (int or float), got string',
    ]);
    expect(decodeProblems.map((p) => p.path)).toEqual([
      '.spec.template.spec.containers[name="redis"].resources.limits.cpu',
    ]);
    expect((pruned.spec as Json).replicas).toBe('two');
  });

  test('property: the input is never changed', () => {
    fc.assert(
      fc.property(additions, (list) => {
        const object = withAdditions(list);
        const before = JSON.stringify(object);
        pruneUndeclared(appsV1, object);
        expect(JSON.stringify(object)).toBe(before);
      }),
    );
  });

  test('property: typing the pruned copy finds no undeclared field, and the same other problems', () => {
    fc.assert(
      fc.property(additions, (list) => {
        const pruned = pruneUndeclared(appsV1, withAdditions(list), { decode: true });
        const again = typeObject(appsV1, pruned.object, { decode: true });
        expect(again.problems.filter((p) => p.kind === 'undeclared')).toEqual([]);
        expect(again.problems).toEqual(pruned.problems);
        expect(again.decodeProblems).toEqual(pruned.decodeProblems);
      }),
    );
  });

  test('property: a Deployment with nothing undeclared comes back equal, and pruning twice removes nothing more', () => {
    fc.assert(
      fc.property(additions, (list) => {
        const once = pruneUndeclared(appsV1, withAdditions(list));
        const twice = pruneUndeclared(appsV1, once.object);
        expect(twice.removed).toEqual([]);
        expect(twice.object).toEqual(once.object);
      }),
    );
  });

  test('no key is lost or altered by the copy: `__proto__`, a valid ConfigMap key, stays', () => {
    const object = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"__proto__":"kept","a":"b"},"id":1}',
    ) as Json;
    const { object: copy, removed } = pruneUndeclared(coreV1, object);
    expect(removed.map((p) => p.path)).toEqual(['.id']);
    const data = copy.data as Json;
    expect(Object.keys(data)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toBe('kept');
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });
});
