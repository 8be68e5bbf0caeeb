// Issue #42 item 5 against a server where the skip matters: the simulator's `olderServer: 'pre-511'`
// mode, whose ImageStreamTag and ImageTag storages write their image stream under dryRun=All as
// openshift-apiserver's did before #511 (simulator/objects/older-server.ts). A dry-run delete()
// must leave the stream's tags as they were, in template and reference mode; a raw dry-run request
// to the same server shows that one sent would not have.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { type Harness, harness } from '../helpers.ts';
import { call } from '../simulator/client.ts';

const IMAGE = 'image.openshift.io/v1';
const PATH = '/apis/image.openshift.io/v1/namespaces/workers';
const from = (version: string) => ({ kind: 'DockerImage', name: `quay.io/example/app:${version}` });
const LATEST = { name: 'latest', from: from('1') };
const NEXT = { name: 'next', from: from('2') };
const targets = [
  { apiVersion: IMAGE, kind: 'ImageStreamTag', namespace: 'workers', name: 'old-app:latest' },
  { apiVersion: IMAGE, kind: 'ImageTag', namespace: 'workers', name: 'old-app:next' },
];

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness({ olderServer: 'pre-511' });
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearLog();
  seedStream(h.sim);
});
afterAll(async () => {
  await api.close();
  await h.close();
});

/** The stream with both tags, and the tag objects the simulator stores beside it. */
function seedStream(sim: Simulator): void {
  const metadata = (name: string) => ({ name, namespace: 'workers' });
  sim.seed({
    apiVersion: IMAGE,
    kind: 'ImageStream',
    metadata: metadata('old-app'),
    spec: { tags: [LATEST, NEXT] },
  });
  sim.seed({ apiVersion: IMAGE, kind: 'ImageStreamTag', metadata: metadata('old-app:latest'), tag: LATEST });
  sim.seed({ apiVersion: IMAGE, kind: 'ImageTag', metadata: metadata('old-app:next'), spec: NEXT });
}

const tagNames = (sim: Simulator): unknown =>
  (
    sim.getObject(IMAGE, 'ImageStream', 'workers', 'old-app')?.spec as { tags?: { name: string }[] }
  ).tags?.map((t) => t.name);

describe('against an older server (pre-#511), a dry-run delete of the image tag kinds', () => {
  test.each(['reference', 'template'] as const)(
    'leaves the image stream tags as they were and says so (%s mode)',
    async (mode) => {
      const warnings: ocp.ServerWarning[] = [];
      const onWarning = (w: ocp.ServerWarning): number => warnings.push(w);
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: 'old-tags' },
        objects: targets.map((t) => ({ apiVersion: t.apiVersion, kind: t.kind, metadata: { name: t.name } })),
      };
      const options = { namespace: 'workers', api, dryRun: true, onWarning };
      const results =
        mode === 'reference'
          ? await ocp.delete({ ...options, resources: targets })
          : await ocp.delete(template, {}, { ...options, ownership: 'any' });
      // What the server holds first: with the skip gone, this is what fails.
      expect(tagNames(h.sim)).toEqual(['latest', 'next']);
      for (const t of targets) expect(h.sim.getObject(IMAGE, t.kind, 'workers', t.name)).toBeDefined();
      expect(h.sim.log.filter((e) => e.method === 'DELETE')).toEqual([]);
      expect(results).toHaveLength(2);
      expect(results).toEqual(
        expect.arrayContaining(targets.map((t) => ({ ...t, deletion: 'deleted', dryRun: true }))),
      );
      expect(warnings.map((w) => [w.code, w.target?.name]).sort()).toEqual([
        ['OTC_DRY_RUN_UNVERIFIED', 'old-app:latest'],
        ['OTC_DRY_RUN_UNVERIFIED', 'old-app:next'],
      ]);
    },
  );
});

describe("the simulator's pre-511 mode", () => {
  test('a raw dry-run DELETE of either tag kind takes the tag out of the stream', async () => {
    const first = await call(h.sim, 'DELETE', `${PATH}/imagestreamtags/old-app:latest?dryRun=All`);
    expect(first.status).toBe(200);
    expect(tagNames(h.sim)).toEqual(['next']);
    const second = await call(h.sim, 'DELETE', `${PATH}/imagetags/old-app:next`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] },
    });
    expect(second.status).toBe(200);
    expect(tagNames(h.sim)).toEqual([]);
  });

  test('a raw dry-run apply writes the tag into the stream', async () => {
    const body = {
      apiVersion: IMAGE,
      kind: 'ImageStreamTag',
      metadata: { name: 'old-app:rc', namespace: 'workers' },
      tag: { name: 'rc', from: from('3') },
    };
    const answer = await call(
      h.sim,
      'PATCH',
      `${PATH}/imagestreamtags/old-app:rc?dryRun=All&fieldManager=t`,
      {
        body,
        contentType: 'application/apply-patch+yaml',
      },
    );
    expect(answer.status).toBe(201);
    expect(tagNames(h.sim)).toEqual(['latest', 'next', 'rc']);
  });

  test('without the mode the same raw dry-run DELETE changes nothing', async () => {
    const current = await startSimulator();
    try {
      seedStream(current);
      const answer = await call(current, 'DELETE', `${PATH}/imagestreamtags/old-app:latest?dryRun=All`);
      expect(answer.status).toBe(200);
      expect(tagNames(current)).toEqual(['latest', 'next']);
      expect(current.getObject(IMAGE, 'ImageStreamTag', 'workers', 'old-app:latest')).toBeDefined();
    } finally {
      await current.close();
    }
  });
});
