// What kube-apiserver refuses in a server-side apply body beyond typing (issue #34), in its order
// and words: `metadata.managedFields` before anything else (managedfields structuredmerge.go
// Apply: a 400 ahead of the typed patch), the Go conversion right after typing (a 500), a `uid`
// on create (handlers/patch.go applyPatch: 409) or unlike the live one (rest/update.go
// BeforeUpdate: 422), a stale `resourceVersion` (registry/generic/registry/store.go Update: 409);
// and no copy of a body loses a key such as `__proto__`.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apply, call, type RawResponse } from '../client.ts';
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
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;

const configMap = (name: string, more: Json = {}, metadata: Json = {}): Json => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...metadata },
  ...more,
});

function status(res: RawResponse, code: number, reason: string | undefined, message: string): void {
  expect(res.status).toBe(code);
  expect(res.json).toMatchObject({ kind: 'Status', code, message });
  expect(res.json.reason).toBe(reason);
}

describe('the conversion into Go types, right after typing: a 500 with no reason', () => {
  test('Secret data in plain text: where base64 decoding stops; nothing stored', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'plain', namespace: NS },
      data: { password: 'hunter2!' },
    };
    status(
      await apply(sim, `/api/v1/namespaces/${NS}/secrets/plain`, body),
      500,
      undefined,
      `failed to convert new object (${NS}/plain; /v1, Kind=Secret) to proper version: ` +
        'unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 7',
    );
    expect(sim.getObject('v1', 'Secret', NS, 'plain')).toBeUndefined();
  });

  test('creationTimestamp "2024-01-01" does not parse as RFC 3339', async () => {
    const res = await apply(
      sim,
      `${CONFIGMAPS}/dated`,
      configMap('dated', {}, { creationTimestamp: '2024-01-01' }),
    );
    status(
      res,
      500,
      undefined,
      `failed to convert new object (${NS}/dated; /v1, Kind=ConfigMap) to proper version: ` +
        'unable to convert unstructured object to /v1, Kind=ConfigMap: ' +
        'parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "T"',
    );
  });
});

describe('server-set metadata in an apply body', () => {
  test('managedFields is a 400 before the patch is typed; null is none, a string is typed', async () => {
    const body = configMap('managed', { data: { a: 1 } }, { managedFields: [{ manager: 'kubectl' }] });
    status(
      await apply(sim, `${CONFIGMAPS}/managed`, body),
      400,
      'BadRequest',
      'metadata.managedFields must be nil',
    );
    const empty = configMap('managed', {}, { managedFields: [] });
    status(
      await apply(sim, `${CONFIGMAPS}/managed`, empty),
      400,
      'BadRequest',
      'metadata.managedFields must be nil',
    );
    const text = await apply(sim, `${CONFIGMAPS}/managed`, configMap('managed', {}, { managedFields: 'x' }));
    expect(text.status).toBe(500);
    expect(text.json.message).toContain('.metadata.managedFields: expected list, got string');
    const none = configMap('managed', { data: { a: 'b' } }, { managedFields: null });
    expect((await apply(sim, `${CONFIGMAPS}/managed`, none)).status).toBe(201);
  });

  test('a uid on create is a 409; unlike the live one a 422; the live one passes', async () => {
    const uid = '6f1c1d4e-0000-4000-8000-000000000001';
    status(
      await apply(sim, `${CONFIGMAPS}/with-uid`, configMap('with-uid', {}, { uid })),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "with-uid": uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
    );
    expect(sim.getObject('v1', 'ConfigMap', NS, 'with-uid')).toBeUndefined();
    const created = await apply(sim, `${CONFIGMAPS}/with-uid`, configMap('with-uid'));
    const live = (created.json.metadata as Json).uid as string;
    const refusal = await apply(sim, `${CONFIGMAPS}/with-uid`, configMap('with-uid', {}, { uid }));
    status(
      refusal,
      422,
      'Invalid',
      `ConfigMap "with-uid" is invalid: metadata.uid: Invalid value: "${uid}": field is immutable`,
    );
    // As kube-apiserver 1.34 answers it: the same cause twice.
    const cause = {
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${uid}": field is immutable`,
      field: 'metadata.uid',
    };
    expect((refusal.json.details as Json).causes).toEqual([cause, cause]);
    expect(
      (await apply(sim, `${CONFIGMAPS}/with-uid`, configMap('with-uid', {}, { uid: live }))).status,
    ).toBe(200);
  });

  test('a resourceVersion is dropped on create and a precondition after: stale is a 409', async () => {
    const first = await apply(
      sim,
      `${CONFIGMAPS}/versioned`,
      configMap('versioned', {}, { resourceVersion: '1' }),
    );
    expect(first.status).toBe(201);
    const current = (first.json.metadata as Json).resourceVersion as string;
    expect(current).not.toBe('1');
    status(
      await apply(
        sim,
        `${CONFIGMAPS}/versioned`,
        configMap('versioned', { data: { a: 'b' } }, { resourceVersion: '1' }),
      ),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "versioned": the object has been modified; please apply your changes to the latest version and try again',
    );
    const res = await apply(
      sim,
      `${CONFIGMAPS}/versioned`,
      configMap('versioned', {}, { resourceVersion: current }),
    );
    expect(res.status).toBe(200);
  });
});

describe('no copy loses a key: `__proto__` is a valid ConfigMap key', () => {
  const keys = (value: unknown): string[] => Object.keys(value as Json).sort();

  test('apply, apply again, merge patch and stringData keep it, in what is stored and in managedFields', async () => {
    const body = JSON.parse(
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto","namespace":"${NS}"},"data":{"__proto__":"one","a":"b"}}`,
    ) as Json;
    expect((await apply(sim, `${CONFIGMAPS}/proto`, body)).status).toBe(201);
    expect(keys(sim.getObject('v1', 'ConfigMap', NS, 'proto')?.data)).toEqual(['__proto__', 'a']);
    (body.data as Json).a = 'c';
    const again = await apply(sim, `${CONFIGMAPS}/proto`, body);
    expect(again.text).toContain('"__proto__":"one"');
    expect(again.text).toContain('"f:__proto__":{}');
    const patch = JSON.parse('{"data":{"__proto__":"two"}}') as Json;
    const patched = await call(sim, 'PATCH', `${CONFIGMAPS}/proto`, {
      body: patch,
      contentType: 'application/merge-patch+json',
    });
    expect(patched.text).toContain('"__proto__":"two"');
    const got = await call(sim, 'GET', `${CONFIGMAPS}/proto`);
    expect(keys(got.json.data)).toEqual(['__proto__', 'a']);
    const secret = JSON.parse(
      `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"proto","namespace":"${NS}"},"stringData":{"__proto__":"x"}}`,
    ) as Json;
    expect((await apply(sim, `/api/v1/namespaces/${NS}/secrets/proto`, secret)).status).toBe(201);
    expect(keys(sim.getObject('v1', 'Secret', NS, 'proto')?.data)).toEqual(['__proto__']);
  });
});
