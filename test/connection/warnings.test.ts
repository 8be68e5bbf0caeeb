// Server warnings reach the caller: parsed as kube-apiserver writes them, routed to the operation's
// handler, else connect()'s, else once per Connection as a process warning; never carrying a
// Secret-bound parameter value. `npm run test:http1` runs this file over HTTP/1.1 as well.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.sim.seedTemplate(
    'legacy-dc',
    [{ name: 'NAME', required: true }],
    [{ apiVersion: 'v1', kind: 'DeploymentConfig', metadata: { name: '${NAME}' }, spec: { replicas: 1 } }],
  );
});
beforeEach(() => {
  h.sim.clearFaults();
  h.sim.clearLog();
});
afterAll(async () => {
  await h.close();
});

const TEMPLATE_GET = /\/templates\/worker-template$/;

function collect(): { seen: ocp.ServerWarning[]; handler: ocp.WarningHandler } {
  const seen: ocp.ServerWarning[] = [];
  return { seen, handler: (warning) => seen.push(warning) };
}

test('several warnings per header field, in several fields, with quotes, commas and escapes', async () => {
  h.sim.addFault({
    method: 'GET',
    path: TEMPLATE_GET,
    action: {
      type: 'warn',
      headers: [
        '299 - "first, with a comma"',
        '299 - "say \\"hi\\"", 299 - "a \\\\ backslash"',
        '199 - "not a 299: skipped, as client-go does"',
        '299 kube-apiserver "with an agent and a date" "Tue, 15 Nov 1994 08:12:31 GMT"',
      ],
    },
  });
  const { seen, handler } = collect();
  await using api = await h.connect();
  await ocp.process('worker-template', { VM_NAME: 'w' }, { ...WORKER, api, onWarning: handler });
  expect(seen).toEqual(
    ['first, with a comma', 'say "hi"', 'a \\ backslash', 'with an agent and a date'].map((text) => ({
      text,
      code: 'OTC_SERVER_WARNING',
      operation: 'process',
      target: {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        name: 'worker-template',
        namespace: 'infra',
      },
    })),
  );
});

test("the operation's handler wins over connect()'s; connect()'s gets the rest", async () => {
  const fromConnect = collect();
  const fromOperation = collect();
  await using api = await h.connect({ onWarning: fromConnect.handler });
  const params = { NAME: 'dc-1' };
  await ocp.create('legacy-dc', params, { ...WORKER, api, onWarning: fromOperation.handler });
  await ocp.delete('legacy-dc', params, { ...WORKER, api });
  const deprecation =
    'apps.openshift.io/v1 DeploymentConfig is deprecated in v4.14+, unavailable in v4.10000+';
  const dc = {
    apiVersion: 'apps.openshift.io/v1',
    kind: 'DeploymentConfig',
    name: 'dc-1',
    namespace: 'workers',
  };
  // The pre-flight's dry run is answered as the write is, and the delete reads the object before
  // deleting it: both answers carry the warning each time, and each call reports it once.
  const fromServer = { text: deprecation, code: 'OTC_SERVER_WARNING' };
  expect(fromOperation.seen).toEqual([{ ...fromServer, operation: 'create', target: dc }]);
  expect(fromConnect.seen).toEqual([{ ...fromServer, operation: 'delete', target: dc }]);
});

test('without a handler: each distinct text once per Connection, as a process warning', async () => {
  const emitted: Error[] = [];
  const listen = (warning: Error): void => {
    if (warning.name === 'ServerWarning') emitted.push(warning);
  };
  process.on('warning', listen);
  try {
    h.sim.addFault({
      method: 'GET',
      path: TEMPLATE_GET,
      action: { type: 'warn', headers: ['299 - "same text"', '299 - "other text"'] },
    });
    for (let round = 0; round < 2; round++) {
      await using api = await h.connect();
      for (let i = 0; i < 3; i++) await ocp.process('worker-template', { VM_NAME: 'w' }, { ...WORKER, api });
    }
    // process.emitWarning emits on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(emitted.map((w) => w.message)).toEqual(['same text', 'other text', 'same text', 'other text']);
    expect((emitted[0] as Error & { code?: string }).code).toBe('OTC_SERVER_WARNING');
  } finally {
    process.off('warning', listen);
  }
});

test('a Secret-bound parameter value never reaches a warning, while the warning does', async () => {
  const secret = 'S3cret-value-0042';
  h.sim.addFault({
    method: 'PATCH',
    path: /\/secrets\//,
    action: { type: 'warn', headers: [`299 - "value ${secret} looks like a password"`] },
  });
  h.sim.addFault({
    method: 'POST',
    path: /processedtemplates/,
    action: { type: 'warn', headers: [`299 - "processing saw ${secret}"`] },
  });
  const { seen, handler } = collect();
  await using api = await h.connect();
  const params = { VM_NAME: 'warned', API_KEY: secret };
  await ocp.create('worker-template', params, { ...WORKER, api, onWarning: handler });
  // The Secret's dry run and its write both carry the warning: it is reported once.
  expect(seen.map((w) => w.text)).toEqual([
    'processing saw [redacted]',
    'value [redacted] looks like a password',
  ]);
  expect(JSON.stringify(seen)).not.toContain(secret);
  await ocp.delete('worker-template', params, { ...WORKER, api });
});

describe('one report per object, code and text in each call', () => {
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });
  const ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'warned-runner' } };
  const POD = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'warned-job' },
    spec: { serviceAccountName: 'warned-runner', containers: [{ name: 'c', image: 'busybox' }] },
  };
  const template: ocp.TemplateObject = {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: 'warned-once' },
    objects: [configMap('warned-a'), configMap('warned-b'), ACCOUNT, POD],
  };
  const about = (kind: string, name: string) => ({ apiVersion: 'v1', kind, name, namespace: 'workers' });

  test("every answer for an object repeats its warnings: the dry run, a deferred object's second dry run, the write", async () => {
    // Every apply of a ConfigMap or the Pod is answered with the same warning, the Pod's with a second.
    h.sim.addFault({
      method: 'PATCH',
      path: /\/configmaps\//,
      action: { type: 'warn', headers: ['299 - "the same text"'] },
    });
    h.sim.addFault({
      method: 'PATCH',
      path: /\/pods\//,
      action: { type: 'warn', headers: ['299 - "the same text", 299 - "another text"'] },
    });
    await using api = await h.connect();
    for (const round of [1, 2]) {
      h.sim.clearLog();
      const { seen, handler } = collect();
      await ocp.create(template, {}, { namespace: 'workers', api, onWarning: handler });
      // The Pod waits for its ServiceAccount: dry-run in the wave, again before its write, then written.
      const podApplies = h.sim.log.filter((e) => e.method === 'PATCH' && e.path.endsWith('/warned-job'));
      expect(podApplies.map((e) => e.query.dryRun ?? 'write')).toEqual(
        round === 1 ? ['All', 'All', 'write'] : ['All', 'write'],
      );
      // Each object's warnings once; the next call reports them again.
      const reported = seen.map((w) => [w.code, w.target?.name, w.text]);
      expect(reported.sort()).toEqual(
        [
          ['OTC_SERVER_WARNING', 'warned-a', 'the same text'],
          ['OTC_SERVER_WARNING', 'warned-b', 'the same text'],
          ['OTC_SERVER_WARNING', 'warned-job', 'another text'],
          ['OTC_SERVER_WARNING', 'warned-job', 'the same text'],
        ].sort(),
      );
      expect(seen.find((w) => w.target?.name === 'warned-job')?.target).toEqual(about('Pod', 'warned-job'));
    }
    await ocp.delete(template, {}, { namespace: 'workers', api, ownership: 'any' });
  });
});

test('fieldValidation is never sent with an apply, and an unknown value is refused before any request', async () => {
  // The library types each object itself; for an apply the server would use the directive only
  // for duplicate keys, which a body the library serialises never has.
  await using api = await h.connect();
  const params = { VM_NAME: 'strict' };
  for (const fieldValidation of [undefined, 'Strict', 'Warn', 'Ignore'] as const) {
    h.sim.clearLog();
    await ocp.create('worker-template', params, { ...WORKER, api, fieldValidation });
    const applies = h.sim.log.filter((e) => e.method === 'PATCH');
    // The pre-flight's dry runs, then the writes: the same query but dryRun.
    expect(applies.map((e) => e.query)).toEqual([
      ...Array<object>(3).fill({ fieldManager: 'mini-scheduler', dryRun: 'All' }),
      ...Array<object>(3).fill({ fieldManager: 'mini-scheduler' }),
    ]);
  }
  await ocp.delete('worker-template', params, { ...WORKER, api });
  h.sim.clearLog();
  const error = instance(
    await rejection(
      ocp.create('worker-template', params, { ...WORKER, api, fieldValidation: 'strict' as never }),
    ),
    ocp.ValidationError,
  );
  expect(error.issues).toEqual(['fieldValidation must be "Strict", "Warn" or "Ignore"']);
  expect(h.sim.log).toHaveLength(0);
  const handlerError = instance(
    await rejection(ocp.connect({ kubeconfig: h.kubeconfig, onWarning: 'log' as never })),
    ocp.ValidationError,
  );
  expect(handlerError.issues).toEqual([
    'onWarning must be a function that takes a ServerWarning, got string',
  ]);
});

test('a handler that throws does not fail the request that drew the warning', async () => {
  h.sim.addFault({ method: 'GET', path: TEMPLATE_GET, action: { type: 'warn', headers: ['299 - "x"'] } });
  await using api = await h.connect();
  const objects = await ocp.process(
    'worker-template',
    { VM_NAME: 'w' },
    {
      ...WORKER,
      api,
      onWarning: () => {
        throw new Error('handler bug');
      },
    },
  );
  expect(objects).toHaveLength(3);
});
