// OpenAPI v3 → compact type table, by kube-openapi pkg/schemaconv (openapi.go
// ToSchemaFromOpenAPI, parseSchema, parseObject, parseList, makeOpenAPIRef; smd.go
// convertPrimitive, getListElementRelationship, getMapElementRelationship).
import { describe, expect, test } from 'vitest';
import { compactTypes } from '../../src/schema/compact.ts';
import { UNTYPED, kindKey } from '../../src/schema/table.ts';
import apps from './fixtures/apps-v1.ts';
import { appsV1, routeV1 } from './tables.ts';

const core = 'io.k8s.api.core.v1.';

describe('compactTypes', () => {
  test('kinds map apiVersion and kind to the type name (x-kubernetes-group-version-kind)', () => {
    expect(appsV1.kinds[kindKey('apps/v1', 'Deployment')]).toBe('io.k8s.api.apps.v1.Deployment');
    expect(routeV1.kinds[kindKey('route.openshift.io/v1', 'Route')]).toBe(
      'com.github.openshift.api.route.v1.Route',
    );
  });

  test('references, also wrapped in a one-element allOf, become type names', () => {
    expect(appsV1.types['io.k8s.api.apps.v1.Deployment']?.map?.fields?.metadata).toBe(
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
  });

  test('scalars: integers keep their width for decoding, Quantity, IntOrString and Time are untyped', () => {
    const port = appsV1.types[`${core}ContainerPort`]?.map?.fields;
    expect(port?.containerPort).toEqual({ scalar: 'numeric', format: 'int32' });
    expect(port?.protocol).toEqual({ scalar: 'string' });
    expect(appsV1.types['io.k8s.apimachinery.pkg.api.resource.Quantity']).toEqual({
      scalar: 'untyped',
      format: 'quantity',
    });
    expect(appsV1.types['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({
      scalar: 'untyped',
      format: 'int-or-string',
    });
    // Time keeps its format (decoding parses it); `byte` strings stay strings that decoding reads.
    expect(appsV1.types['io.k8s.apimachinery.pkg.apis.meta.v1.Time']).toEqual({
      scalar: 'untyped',
      format: 'date-time',
    });
  });

  test('lists: list type, map keys, and the defaults of key fields', () => {
    expect(appsV1.types[`${core}PodSpec`]?.map?.fields?.containers).toEqual({
      list: { elements: `${core}Container`, listType: 'map', keys: ['name'] },
    });
    expect(appsV1.types[`${core}ContainerPort`]?.map?.keyDefaults).toEqual({
      containerPort: 0,
      protocol: 'TCP',
    });
    expect(appsV1.types[`${core}Capabilities`]?.map?.fields?.add).toEqual({
      list: { elements: { scalar: 'string' }, listType: 'atomic' },
    });
  });

  test('maps: additionalProperties, free-form objects, x-kubernetes-map-type', () => {
    const meta = appsV1.types['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.map?.fields;
    expect(meta?.labels).toEqual({ map: { elements: { scalar: 'string' } } });
    expect(appsV1.types['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1']).toEqual({
      map: { elements: UNTYPED },
    });
    expect(appsV1.types['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']?.map?.mapType).toBe('atomic');
    expect(appsV1.types[`${core}Container`]?.map?.elements).toBeUndefined();
  });

  test('OpenAPI v2 patch strategies decide where no list type is given', () => {
    const table = compactTypes({
      components: {
        schemas: {
          T: {
            type: 'object',
            properties: {
              merge: {
                type: 'array',
                items: { type: 'object' },
                'x-kubernetes-patch-strategy': 'merge',
                'x-kubernetes-patch-merge-key': 'k',
              },
              set: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
              retain: {
                type: 'array',
                items: { type: 'string' },
                'x-kubernetes-patch-strategy': 'retainKeys',
              },
            },
          },
        },
      },
    });
    const fields = table.types.T?.map?.fields;
    expect(fields?.merge).toEqual({
      list: { elements: { map: { elements: UNTYPED } }, listType: 'map', keys: ['k'] },
    });
    expect(fields?.set).toEqual({ list: { elements: { scalar: 'string' }, listType: 'set' } });
    expect(fields?.retain).toEqual({ list: { elements: { scalar: 'string' }, listType: 'atomic' } });
  });

  test('a named schema that is only a reference is skipped; the document is not changed', () => {
    const document = {
      components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { type: 'string' } } },
    };
    const before = JSON.stringify(document);
    expect(compactTypes(document).types).toEqual({ B: { scalar: 'string' } });
    expect(JSON.stringify(document)).toBe(before);
  });

  test('the compact table is smaller than the document it comes from', () => {
    const raw = JSON.stringify(apps).length;
    const compact = JSON.stringify(appsV1).length;
    // The fixture has its descriptions stripped already; bench/schema.ts measures a real document.
    expect(compact).toBeLessThan(raw);
  });
});
