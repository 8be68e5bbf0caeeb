// Create, update and merge-patch bodies decoded into the kind's type as kube-apiserver decodes
// them (k8s.io/apiserver pkg/endpoints/handlers/create.go, update.go, patch.go; KEP-2885 field
// validation): unknown fields, in apimachinery's strict path syntax (sigs.k8s.io/json
// kubernetes_patch.go), are a 400 under Strict, dropped with a `299` warning each under Warn or
// without a directive, dropped silently under Ignore; a value the Go type cannot hold is a 400
// (handlers/rest.go transformDecodeError).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

type Json = Record<string, unknown>;
const NS = 'workers';
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;

function deployment(name: string, spec: Json = {}, container: Json = {}): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { name } },
      template: {
        metadata: { labels: { name } },
        spec: { containers: [{ name: 'main', image: 'img', ...container }] },
      },
      ...spec,
    },
  };
}

const stored = (name: string): Json | undefined => sim.getObject('apps/v1', 'Deployment', NS, name);
const create = (name: string, query: string, spec: Json = {}, container: Json = {}) =>
  call(sim, 'POST', `${DEPLOYMENTS}${query}`, { body: deployment(name, spec, container) });

describe('unknown fields in a create body, by fieldValidation', () => {
  const typos = { x: 1 };
  const containerTypo = { imagePullPolcy: 'Always' };

  test('Strict: a 400 naming every unknown field, nothing stored', async () => {
    const res = await create('strict', '?fieldValidation=Strict', typos, containerTypo);
    expect(res.status).toBe(400);
    // create.go: a strict decoding error goes through transformDecodeError like any decode error.
    expect(res.json).toMatchObject({
      reason: 'BadRequest',
      code: 400,
      message:
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ' +
        'unknown field "spec.template.spec.containers[0].imagePullPolcy", unknown field "spec.x"',
    });
    expect(stored('strict')).toBeUndefined();
  });

  test('Warn, and no directive at all: stored without them, a warning each', async () => {
    for (const [name, query] of [
      ['warn', '?fieldValidation=Warn'],
      ['plain', ''],
    ] as const) {
      const res = await create(name, query, typos, containerTypo);
      expect(res.status).toBe(201);
      expect(res.warnings).toEqual([
        '299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolcy\\""',
        '299 - "unknown field \\"spec.x\\""',
      ]);
      const spec = stored(name)?.spec as { x?: unknown; template: { spec: { containers: Json[] } } };
      expect(spec.x).toBeUndefined();
      expect(spec.template.spec.containers[0]).toEqual({ name: 'main', image: 'img' });
    }
  });

  test('Ignore: stored without them, silently', async () => {
    const res = await create('ignore', '?fieldValidation=Ignore', typos);
    expect(res.status).toBe(201);
    expect(res.warnings).toEqual([]);
    expect((stored('ignore')?.spec as Json).x).toBeUndefined();
  });

  test('an update (PUT) is decoded the same way', async () => {
    const live = stored('ignore') ?? {};
    const put = await call(sim, 'PUT', `${DEPLOYMENTS}/ignore?fieldValidation=Strict`, {
      body: { ...live, spec: { ...(live.spec as Json), y: true } },
    });
    expect(put.status).toBe(400);
    expect(put.json.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.y"',
    );
    const warned = await call(sim, 'PUT', `${DEPLOYMENTS}/ignore`, {
      body: { ...live, spec: { ...(live.spec as Json), y: true } },
    });
    expect([warned.status, warned.warnings]).toEqual([200, ['299 - "unknown field \\"spec.y\\""']]);
    expect((stored('ignore')?.spec as Json).y).toBeUndefined();
  });

  test('a merge patch: the patched object is decoded; Warn drops, Strict is a 422 on `patch` (patch.go jsonPatcher)', async () => {
    const path = `${DEPLOYMENTS}/ignore`;
    const merge = (query: string) =>
      call(sim, 'PATCH', `${path}${query}`, {
        body: { spec: { paused: true, y: true } },
        contentType: 'application/merge-patch+json',
      });
    const warned = await merge('');
    expect([warned.status, warned.warnings]).toEqual([200, ['299 - "unknown field \\"spec.y\\""']]);
    expect(stored('ignore')?.spec).toMatchObject({ paused: true });
    expect((stored('ignore')?.spec as Json).y).toBeUndefined();
    const strict = await merge('?fieldValidation=Strict');
    expect(strict.status).toBe(422);
    expect(strict.json).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'patch' }] } });
    expect(strict.json.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{.*\}": /);
    expect(strict.json.message).toMatch(/: strict decoding error: unknown field "spec\.y"$/);
  });
});

describe('values the Go type cannot hold, whatever fieldValidation says', () => {
  test('a string for an int32: encoding/json names the Go field and type', async () => {
    const res = await create('two', '?fieldValidation=Ignore', { replicas: 'two' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      reason: 'BadRequest',
      message:
        'Deployment in version "v1" cannot be handled as a Deployment: ' +
        'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    });
    expect(stored('two')).toBeUndefined();
  });

  test('a Quantity that does not parse', async () => {
    const res = await create('mem', '', {}, { resources: { limits: { memory: 'lots' } } });
    // The decode error comes from Quantity's own UnmarshalJSON, passed through as it is.
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: ' +
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});
