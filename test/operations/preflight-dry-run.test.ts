// create()'s dryRun under either pre-flight: `'server'` dry-runs the wave at once, `'schema'` in
// rendered order, and neither sends a dry run of an image.openshift.io/v1 ImageStreamTag or
// ImageTag, whose storage wrote the image stream on a dry run before openshift/openshift-apiserver#511.
// Both say so with the same warning and return the same refs.
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { JsonObject } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection } from '../helpers.ts';
import { collect, objectMutations } from './typing-helpers.ts';

let h: Harness;
let api: ocp.Connection;
const NAMESPACE = 'pfd';
const configMap = (name: string, data: Record<string, string> = { a: name }): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
const imageKind = (kind: 'ImageStreamTag' | 'ImageTag', name: string): JsonObject => ({
  apiVersion: 'image.openshift.io/v1',
  kind,
  metadata: { name },
  ...(kind === 'ImageStreamTag'
    ? { tag: { from: { kind: 'DockerImage', name: 'quay.io/example/app:1' } } }
    : { spec: { name: 'next', from: { kind: 'DockerImage', name: 'quay.io/example/app:2' } } }),
});
const OBJECTS = [
  configMap('pfd-1'),
  imageKind('ImageStreamTag', 'pfd-app:latest'),
  imageKind('ImageTag', 'pfd-app:next'),
  configMap('pfd-2'),
];
const template = (objects: unknown[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name: 'pfd' },
  objects,
});

beforeAll(async () => {
  h = await harness({ namespaces: [NAMESPACE] });
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const sentFor = (kind: string): string[] =>
  objectMutations(h)
    .filter((e) => e.path.includes(`/${kind.toLowerCase()}s/`))
    .map((e) => `${e.method} ${String(e.query.dryRun ?? 'write')}`);

test.each(['server', 'schema'] as const)(
  "preflight: '%s' with dryRun: the image kinds are not dry-run, said once each; nothing is written",
  async (preflight) => {
    const seen = collect();
    const options = { namespace: NAMESPACE, api, dryRun: true, preflight, onWarning: seen.handler };
    const refs = await ocp.create(template(OBJECTS), {}, options);
    expect(refs.map((r) => [r.kind, r.name, r.created, r.dryRun, r.uid === undefined])).toEqual([
      ['ConfigMap', 'pfd-1', true, true, false],
      ['ImageStreamTag', 'pfd-app:latest', true, true, true],
      ['ImageTag', 'pfd-app:next', true, true, true],
      ['ConfigMap', 'pfd-2', true, true, false],
    ]);
    // The ConfigMaps dry-run, the image kinds not sent at all; nothing written.
    expect([sentFor('ConfigMap'), sentFor('ImageStreamTag'), sentFor('ImageTag')]).toEqual([
      ['PATCH All', 'PATCH All'],
      [],
      [],
    ]);
    expect(seen.seen.map((w) => [w.code, w.target?.kind, w.target?.name])).toEqual([
      ['OTC_DRY_RUN_UNVERIFIED', 'ImageStreamTag', 'pfd-app:latest'],
      ['OTC_DRY_RUN_UNVERIFIED', 'ImageTag', 'pfd-app:next'],
    ]);
    expect(seen.seen[0]?.text).toBe(
      'ImageStreamTag "pfd-app:latest" in namespace "pfd" is applied unverified: it is not dry-run, since openshift-apiserver ' +
        'before openshift/openshift-apiserver#511 writes the image stream on a dry run of image.openshift.io/v1 ImageStreamTag',
    );
    expect(h.sim.getObject('v1', 'ConfigMap', NAMESPACE, 'pfd-1')).toBeUndefined();
  },
);

test("preflight: 'schema' with dryRun: a refusal after an image kind names it among the refs before", async () => {
  h.sim.seed(
    { ...configMap('pfd-2', { a: 'theirs' }), metadata: { name: 'pfd-2', namespace: NAMESPACE } },
    'other',
  );
  // adopt: true, so the conflict with the other manager's field is what refuses it (#42 item 3).
  const options = { namespace: NAMESPACE, api, dryRun: true, preflight: 'schema', adopt: true } as const;
  const error = instance(await rejection(ocp.create(template(OBJECTS), {}, options)), ocp.OperationError);
  expect([error.operation, error.code]).toEqual(['Apply', 'OTC_APPLY_FAILED']);
  expect(error.resources.map((r) => [r.kind, r.name])).toEqual([
    ['ConfigMap', 'pfd-1'],
    ['ImageStreamTag', 'pfd-app:latest'],
    ['ImageTag', 'pfd-app:next'],
  ]);
  expect(
    error.failures.map((f) => [f.resource.name, instance(f.error, ocp.RequestError).statusCode]),
  ).toEqual([['pfd-2', 409]]);
  expect([sentFor('ImageStreamTag'), sentFor('ImageTag')]).toEqual([[], []]);
});
