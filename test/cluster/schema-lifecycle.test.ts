// #34 items 5 and 6 on the real tier: CRDs of this file's own groups change under one long-lived
// Connection. kube-aggregator's merged /openapi/v3 root lags such a change by up to a second
// (pkg/controllers/openapiv3/controller.go re-reads kube-apiserver's own root every second), while
// the group-version's document is served at once by its own path; the tests run inside that window.
import { tracingChannel } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import * as ocp from '../../src/index.ts';
import { ROOT_MAX_AGE_MS } from '../../src/connection/openapi.ts';
import { REQUEST_CHANNEL, type RequestTrace } from '../../src/connection/tracing.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';
import { auditLogPath, auditMark, writesSince } from './audit.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';
const NAMESPACE = 'workers';

interface Kind {
  group: string;
  plural: string;
  kind: string;
}
const GADGET: Kind = { group: 'schema-lifecycle.example.com', plural: 'slgadgets', kind: 'SlGadget' };
const WIDGET: Kind = { group: 'absence.schema-lifecycle.example.com', plural: 'slwidgets', kind: 'SlWidget' };
const crdPath = (k: Kind): string =>
  `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${k.plural}.${k.group}`;
const documentPath = (k: Kind): string => `apis/${k.group}/v1`;

/** A CRD whose spec declares `fields` (and, for a change the root must carry, `note`'s description). */
function crd(k: Kind, fields: Record<string, unknown>, note = ''): Record<string, unknown> {
  const spec = { type: 'object', ...(note === '' ? {} : { description: note }), properties: fields };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${k.group}` },
    spec: {
      group: k.group,
      scope: 'Namespaced',
      names: { plural: k.plural, singular: k.plural.slice(0, -1), kind: k.kind, listKind: `${k.kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
}
const SIZE = { size: { type: 'integer' } };
const WITH_EXTRA = { ...SIZE, extra: { type: 'string' } };

const objectOf = (k: Kind, name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${k.group}/v1`,
  kind: k.kind,
  metadata: { name },
  spec,
});
const template = (name: string, objects: unknown[]): ocp.TemplateObject => ({
  apiVersion: 'template.openshift.io/v1',
  kind: 'Template',
  metadata: { name },
  objects,
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The status of each request the library sends to `path` (no query) from now until `stop`. */
function statusesOf(path: string): { codes: (number | undefined)[]; stop(): void } {
  const channel = tracingChannel<unknown, RequestTrace>(REQUEST_CHANNEL);
  const codes: (number | undefined)[] = [];
  const ignore = (): void => undefined;
  const handlers = {
    start: ignore,
    end: ignore,
    asyncStart: ignore,
    error: ignore,
    asyncEnd: (trace: RequestTrace) => {
      if (trace.path === path) codes.push(trace.statusCode);
    },
  };
  channel.subscribe(handlers);
  return {
    codes,
    stop: () => {
      channel.unsubscribe(handlers);
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe.skipIf(clusterKubeconfig === '')('#34 items 5 and 6: schemas that change on the real tier', () => {
  let client: KubeClient;
  const connections: ocp.Connection[] = [];
  const connect = async (onWarning?: ocp.WarningHandler): Promise<ocp.Connection> => {
    const api = await ocp.connect({ kubeconfig: clusterKubeconfig, ...(onWarning ? { onWarning } : {}) });
    connections.push(api);
    return api;
  };

  /** The URL the tier's merged root lists for a kind's group-version, if any. */
  const listed = async (k: Kind): Promise<string | undefined> => {
    const answer = await client.send('GET', '/openapi/v3');
    const body = (answer.body ?? JSON.parse(answer.text)) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    return body.paths[documentPath(k)]?.serverRelativeURL;
  };
  /** Whether the server refuses a dry-run apply that sets `extra`: it holds the CRD without it. */
  const refusesExtra = async (name: string): Promise<boolean> => {
    const path = `/apis/${GADGET.group}/v1/namespaces/${NAMESPACE}/${GADGET.plural}/${name}`;
    const body = objectOf(GADGET, name, { size: 1, extra: 'x' });
    const answer = await client.send(
      'PATCH',
      `${path}?fieldManager=probe&dryRun=All`,
      body,
      'application/apply-patch+yaml',
    );
    return answer.status === 500;
  };
  /** Applies a CRD and waits until discovery serves it and the merged root lists something new. */
  async function applyCrd(k: Kind, object: Record<string, unknown>): Promise<string> {
    const before = await listed(k);
    await client.apply(crdPath(k), object);
    await until(`${k.kind} served`, async () => {
      const answer = await client.send('GET', `/apis/${k.group}/v1`);
      return answer.status === 200 && answer.text.includes(`"${k.plural}"`) ? true : undefined;
    });
    return until(`the root to list ${k.kind}'s new document`, async () => {
      const url = await listed(k);
      return url !== undefined && url !== before ? url : undefined;
    });
  }
  async function deleteCrd(k: Kind): Promise<void> {
    await client.send('DELETE', crdPath(k));
    await until(`${k.kind}'s CRD gone`, async () =>
      (await client.send('GET', crdPath(k))).status === 404 ? true : undefined,
    );
  }

  beforeAll(async () => {
    client = currentContext(clusterKubeconfig).client;
    for (const k of [GADGET, WIDGET]) await deleteCrd(k);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    for (const api of connections) await api.close();
    for (const k of [GADGET, WIDGET]) await deleteCrd(k);
    client.close();
  });

  const gadgetTemplate = (name: string) =>
    template('sl-gadget', [objectOf(GADGET, name, { size: 1, extra: 'x' })]);
  const create = (api: ocp.Connection, name: string, more: Partial<ocp.CreateOptions> = {}) =>
    ocp.create(gadgetTemplate(name), {}, { namespace: NAMESPACE, api, ...more });
  const dropped = (name: string): string =>
    `unknown field ".spec.extra" removed from ${GADGET.kind} "${name}" in namespace "${NAMESPACE}": the server's ${GADGET.group}/v1 schema does not declare it`;

  /** A Connection that created `name` with `extra`, then the CRD update that drops `extra`. */
  async function stricterSchema(name: string, tick: string, onWarning?: ocp.WarningHandler) {
    await applyCrd(GADGET, crd(GADGET, WITH_EXTRA, tick));
    const api = await connect(onWarning);
    expect((await create(api, name)).map((r) => r.name)).toEqual([name]);
    // A change the root must carry (a description), then the update that drops `extra`: the
    // Connection's root predates both, and typing finds nothing wrong against it.
    await applyCrd(GADGET, crd(GADGET, WITH_EXTRA, `${tick}-next`));
    await client.apply(crdPath(GADGET), crd(GADGET, SIZE, `${tick}-next`));
    await until('the server to hold the CRD without extra', async () =>
      (await refusesExtra('sl-probe')) ? true : undefined,
    );
    const log = auditLogPath();
    return { api, log, mark: auditMark(log), sent: statusesOf(objectPathOf(name)) };
  }
  const objectPathOf = (name: string): string =>
    `/apis/${GADGET.group}/v1/namespaces/${NAMESPACE}/${GADGET.plural}/${name}`;

  test('item 5 and #42 item 11: after a CRD update drops a field, the create the server refuses types again: Strict names the field, nothing written', async () => {
    const { api, log, mark, sent } = await stricterSchema('sl-g', 'strict');
    // The server refuses the pre-flight's dry run; that very create types again against the
    // document read by its own path and refuses before any write.
    const error = await rejection(create(api, 'sl-g', { preflight: 'server' }));
    sent.stop();
    expect(error).toBeInstanceOf(ocp.ValidationError);
    expect((error as ocp.ValidationError).issues).toEqual([
      `${GADGET.kind} "sl-g" in namespace "${NAMESPACE}": .spec.extra: field not declared in schema`,
    ]);
    expect(sent.codes).toEqual([500]);
    expect(writesSince(log, mark, ['sl-g'])).toEqual([]);
  });

  test('#42 item 11: under Warn the create the server refuses drops the field with a warning and is written', async () => {
    const said: string[] = [];
    const { api, log, mark, sent } = await stricterSchema('sl-w', 'warn', (w) => said.push(w.text));
    said.length = 0;
    const refs = await create(api, 'sl-w', { fieldValidation: 'Warn' });
    sent.stop();
    expect(refs.map((r) => r.name)).toEqual(['sl-w']);
    expect(said).toEqual([dropped('sl-w')]);
    // The dry run refused, the one sent again after typing, the read that finds the existing object
    // the job's own (it is not adopted), then the write: one write, audited.
    expect(sent.codes).toEqual([500, 200, 200, 200]);
    expect(writesSince(log, mark, ['sl-w']).map((e) => e.verb)).toEqual(['patch']);
    const stored = await client.send('GET', objectPathOf('sl-w'));
    expect((stored.body as { spec: Record<string, unknown> }).spec).toEqual({ size: 1 });
  });

  test('item 5: a second Connection refused after the first read the new document directly asks by its ETag: kube-apiserver answers 304', async () => {
    await applyCrd(GADGET, crd(GADGET, WITH_EXTRA, 'etag'));
    const both = [await connect(), await connect()];
    for (const api of both) expect((await create(api, 'sl-etag')).map((r) => r.name)).toEqual(['sl-etag']);
    await applyCrd(GADGET, crd(GADGET, SIZE, 'etag'));
    await until('the server to hold the CRD without extra', async () =>
      (await refusesExtra('sl-probe')) ? true : undefined,
    );
    // Each Connection types with the document its root listed before the update: refused once by
    // the server, then, in the same create, refused before any write, typed with what its direct
    // read of the document's own path gave. The first downloads it; the second asks with the ETags of the documents the
    // process holds, one of which the first just read, and apiextensions-apiserver's handler3
    // answers 304 with no body (http.ServeContent).
    const reads = statusesOf(`/openapi/v3/${documentPath(GADGET)}`);
    try {
      for (const api of both) {
        // Refused by the server, typed again with the document read directly (#42 item 11).
        const error = await rejection(create(api, 'sl-etag', { preflight: 'server' }));
        expect((error as ocp.ValidationError).issues).toEqual([
          `${GADGET.kind} "sl-etag" in namespace "${NAMESPACE}": .spec.extra: field not declared in schema`,
        ]);
      }
    } finally {
      reads.stop();
    }
    expect(reads.codes).toEqual([200, 304]);
  });

  test('item 5: a root older than its age bound is read again before a create types with it', async () => {
    await applyCrd(GADGET, crd(GADGET, WITH_EXTRA, 'again'));
    // Only performance.now() is faked: the tier, the sockets and the timers keep real time.
    vi.useFakeTimers({ toFake: ['performance'] });
    const api = await connect();
    expect((await create(api, 'sl-aged')).map((r) => r.name)).toEqual(['sl-aged']);
    await applyCrd(GADGET, crd(GADGET, SIZE, 'again'));
    await until('the server to hold the CRD without extra', async () =>
      (await refusesExtra('sl-probe')) ? true : undefined,
    );
    vi.advanceTimersByTime(ROOT_MAX_AGE_MS + 1_000);
    const error = await rejection(create(api, 'sl-aged', { preflight: 'server' }));
    expect(error).toBeInstanceOf(ocp.ValidationError);
    expect((error as ocp.ValidationError).issues).toEqual([
      `${GADGET.kind} "sl-aged" in namespace "${NAMESPACE}": .spec.extra: field not declared in schema`,
    ]);
  });

  test('item 6: a document that answered 404 (its CRD deleted) is typed with again once its CRD is back', async () => {
    const widget = (spec: Record<string, unknown>) => template('sl-widget', [objectOf(WIDGET, 'sl-w', spec)]);
    const widgetUrl = await applyCrd(WIDGET, crd(WIDGET, SIZE));
    const said: string[] = [];
    const api = await connect((w) => said.push(w.text));
    // The Connection reads the root (listing the Widget's document) and discovers its kind, and
    // types nothing of it yet: its document is not in the process's cache.
    await ocp.create(
      template('sl-plain', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sl-plain' } }]),
      {},
      { namespace: NAMESPACE, api },
    );
    const ref = { apiVersion: `${WIDGET.group}/v1`, kind: WIDGET.kind, namespace: NAMESPACE, name: 'sl-w' };
    expect(await ocp.get({ namespace: NAMESPACE, api, missing: 'null', resources: [ref] })).toEqual([null]);
    await deleteCrd(WIDGET);
    await until('the root to drop the Widget', async () =>
      (await listed(WIDGET)) === undefined ? true : undefined,
    );
    expect((await client.send('GET', widgetUrl)).status).toBe(404);
    // Under Warn nothing untyped is applied: the document answers 404.
    const gone = await rejection(
      ocp.create(widget({ size: 1 }), {}, { namespace: NAMESPACE, api, fieldValidation: 'Warn' }),
    );
    expect((gone as ocp.ValidationError).code).toBe('OTC_SCHEMA_UNAVAILABLE');
    // The CRD back, as it was: the same document under the same URL, which answered 404 before.
    expect(await applyCrd(WIDGET, crd(WIDGET, SIZE))).toBe(widgetUrl);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const refs = await ocp.create(
      widget({ size: 1, extra: 'x' }),
      {},
      { namespace: NAMESPACE, api, fieldValidation: 'Warn' },
    );
    expect(refs.map((r) => r.name)).toEqual(['sl-w']);
    expect(said).toContain(
      `unknown field ".spec.extra" removed from ${WIDGET.kind} "sl-w" in namespace "${NAMESPACE}": the server's ${WIDGET.group}/v1 schema does not declare it`,
    );
    await ocp.delete(
      template('sl-plain', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sl-plain' } }]),
      {},
      { namespace: NAMESPACE, api },
    );
  });
});
