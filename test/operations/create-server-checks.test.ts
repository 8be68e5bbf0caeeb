// What kube-apiserver refuses part-way through a server-side apply, decided by create() before any
// write (issue #34): the conversion into Go types after typing (base64 bytes, IntOrString beyond
// int32, RFC 3339 times), Secret `stringData` typed as the server types it, server-set metadata
// from `oc get -o json` exports, and no key lost by any copy (`__proto__`), in a stored Template
// and in a Template object; `metadata` given as a list named as such.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';
import { collect, objectMutations, sorted } from './typing-helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
  h.sim.seedTemplate('conversions', [], CONVERSIONS);
  h.sim.seedTemplate('string-data', [], STRING_DATA);
  h.sim.seedTemplate('string-null', [], [NULL_STRING_DATA]);
  h.sim.seedTemplate('exported', [], [EXPORTED]);
  h.sim.seedTemplate('proto', [], [proto('proto')]);
  h.sim.seedTemplate(
    'metadata-list',
    [],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: [{ name: 'x' }] }],
  );
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const MODES = ['Strict', 'Warn', 'Ignore'] as const;
const sentBody = (name: string): JsonObject => {
  const entry = h.sim.log.find((e) => e.method === 'PATCH' && e.path.endsWith(`/${name}`));
  return JSON.parse(entry?.body ?? '{}') as JsonObject;
};

const CONVERSIONS: JsonObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' }, data: { a: 'b' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain' }, data: { password: 'hunter2!' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dated', creationTimestamp: '2024-01-01' } },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'wide' },
    spec: { ports: [{ port: 80, targetPort: 3_000_000_000 }] },
  },
];

describe('the conversion into Go types after typing is refused in every mode, before any write', () => {
  test.each(MODES)('%s', async (fieldValidation) => {
    const error = instance(
      await rejection(ocp.create('conversions', {}, { ...WORKER, api, fieldValidation })),
      ocp.ValidationError,
    );
    expect(error.code).toBe('OTC_UNSAFE_OBJECT');
    expect(sorted(error.issues)).toEqual([
      'ConfigMap "dated" in namespace "workers": .metadata.creationTimestamp: parsing time as "2006-01-02T15:04:05Z07:00": cannot parse as "T"',
      'Secret "plain" in namespace "workers": .data.password: error decoding from json: illegal base64 data at input byte 7',
      'Service "wide" in namespace "workers": .spec.ports[port=80,protocol="TCP"].targetPort: json: cannot unmarshal number into Go value of type int32',
    ]);
    expect(error.message).not.toContain('hunter2');
    expect(objectMutations(h)).toEqual([]);
  });
});

const STRING_DATA: JsonObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'typed' },
    stringData: { port: 5432, hosts: ['a', 'b'], settings: { a: 1 }, user: 'app' },
  },
];
const NULL_STRING_DATA: JsonObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'nulls' },
  data: { kept: 'dg==' },
  stringData: { empty: null, user: 'app' },
};

describe('Secret stringData is typed before it is folded, and folded as the server folds it', () => {
  test.each(MODES)(
    '%s: a number, a list and a map are refused, not turned into text',
    async (fieldValidation) => {
      const error = instance(
        await rejection(ocp.create('string-data', {}, { ...WORKER, api, fieldValidation })),
        ocp.ValidationError,
      );
      expect(sorted(error.issues)).toEqual([
        'Secret "typed" in namespace "workers": .stringData.hosts: expected string, got list',
        'Secret "typed" in namespace "workers": .stringData.port: expected string, got number',
        'Secret "typed" in namespace "workers": .stringData.settings: expected string, got map',
      ]);
      expect(objectMutations(h)).toEqual([]);
    },
  );

  test('null is an empty value, as the server stores it, not the text "null"', async () => {
    await ocp.create('string-null', {}, { ...WORKER, api });
    expect(sentBody('nulls').data).toEqual({ kept: 'dg==', empty: '', user: 'YXBw' });
    expect(sentBody('nulls').stringData).toBeUndefined();
    expect(h.sim.getObject('v1', 'Secret', 'workers', 'nulls')?.data).toEqual({
      kept: 'dg==',
      empty: '',
      user: 'YXBw',
    });
  });
});

const EXPORTED: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'exported',
    uid: '0b5e6d1e-0000-4000-8000-00000000cafe',
    resourceVersion: '48213',
    creationTimestamp: '2024-01-01T10:00:00Z',
    generation: 3,
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': {} },
      },
    ],
  },
  data: { a: 'b' },
};

describe('server-set metadata from an `oc get -o json` export', () => {
  test('Strict refuses managedFields, uid and resourceVersion, each named, before any write', async () => {
    const error = instance(
      await rejection(ocp.create('exported', {}, { ...WORKER, api })),
      ocp.ValidationError,
    );
    expect(error.code).toBe('OTC_UNSAFE_OBJECT');
    expect(error.issues.map((i) => i.split(': ')[1])).toEqual([
      '.metadata.uid',
      '.metadata.resourceVersion',
      '.metadata.managedFields',
    ]);
    expect(objectMutations(h)).toEqual([]);
  });

  test.each(['Warn', 'Ignore'] as const)(
    '%s drops them (a warning each under Warn) and the object round-trips; creationTimestamp and generation stay',
    async (fieldValidation) => {
      const { seen, handler } = collect();
      const options = { ...WORKER, api, fieldValidation, onWarning: handler };
      const [created] = await ocp.create('exported', {}, options);
      const sent = sentBody('exported').metadata as JsonObject;
      // The owner label is the library's own addition (rule 23).
      expect(Object.keys(sent).sort()).toEqual([
        'creationTimestamp',
        'generation',
        'labels',
        'name',
        'namespace',
      ]);
      expect(seen.map((w) => w.text)).toEqual(
        fieldValidation === 'Warn'
          ? ['uid', 'resourceVersion', 'managedFields'].map(
              (f) =>
                `server-set field ".metadata.${f}" removed from ConfigMap "exported" in namespace "workers": kube-apiserver refuses it in an apply body`,
            )
          : [],
      );
      const [again] = await ocp.create('exported', {}, options);
      expect(again?.uid).toBe(created?.uid);
      await using fresh = await h.connect();
      const [live] = await ocp.get('exported', {}, { ...WORKER, api: fresh });
      expect(live?.metadata?.uid).toBe(created?.uid);
      expect(await ocp.delete('exported', {}, { ...WORKER, api: fresh })).toHaveLength(1);
    },
  );
});

function proto(name: string): JsonObject {
  return JSON.parse(
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"id":1,"data":{"__proto__":"x","a":"b"}}`,
  ) as JsonObject;
}

describe('no key is lost by any copy: `__proto__`, a valid ConfigMap key', () => {
  test.each(['Warn', 'Ignore'] as const)(
    '%s: a stored Template and a Template object',
    async (fieldValidation) => {
      await ocp.create('proto', {}, { ...WORKER, api, fieldValidation });
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'inline' },
        objects: [proto('inline')],
      };
      await ocp.create(template, {}, { namespace: 'workers', api, fieldValidation });
      for (const name of ['proto', 'inline']) {
        expect(Object.keys(sentBody(name).data ?? {})).toEqual(['__proto__', 'a']);
        expect(Object.keys(h.sim.getObject('v1', 'ConfigMap', 'workers', name)?.data ?? {})).toEqual([
          '__proto__',
          'a',
        ]);
      }
    },
  );
});

test('metadata given as a list is named with its type, not reported as a missing name', async () => {
  const error = instance(
    await rejection(ocp.create('metadata-list', {}, { ...WORKER, api })),
    ocp.ValidationError,
  );
  expect(error.issues).toEqual(['object 1 (ConfigMap (no name)): .metadata: expected map, got list']);
});
