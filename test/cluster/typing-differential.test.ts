// The typing engine held to the real servers (#43 item 5). The simulator types with the library's
// own engine (src/schema), so npm test cannot catch a typing bug; here the published Templates are
// processed on the tier, each rendered object gets one seeded mutation (a wrong type, an undeclared
// field at any depth, a keyed-list element, an int-or-string, a quantity, base64 bytes, a
// timestamp, server-set metadata), and the object is sent as create() would send it, as a dry-run
// server-side apply, while the library's verdict under Strict and Warn is taken for the same object.
// No false refusal, no miss, Warn dropping exactly what the server refuses; the server-set
// metadata the library refuses on purpose is counted apart. docs/typing-differential.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { checkForApply, compactTypes, kindKey, type GroupVersionSchema } from '../../src/schema/index.ts';
import { normalizeSecret } from '../../src/checks/secrets.ts';
import { withOwnerLabel } from '../../src/checks/ownership.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';
import { corpusParameters } from '../../scripts/test-values.ts';
import {
  serverVerdict,
  strictOutcome,
  warnOutcome,
  type ServerVerdict,
  type StrictOutcome,
  type WarnOutcome,
} from './differential.ts';
import { CLASSES, generator, mutate, pick, slotsOf, type Json, type MutationClass } from './mutations.ts';

const kubeconfig = process.env.OTS_CLUSTER_KUBECONFIG ?? '';
/** The published Templates: npm run test:cluster passes the folder beside the clone. */
const corpus = process.env.OTS_CORPUS ?? '';
/** Another seed draws other cases; the default keeps every run the same. */
const SEED = Number(process.env.OTS_DIFFERENTIAL_SEED ?? 43);
const NAMESPACE = 'workers';
const FIELD_MANAGER = 'mini-scheduler';
/** Cases per class: about 1,400 in all, within the tier suite's budget. */
const PER_CLASS: Record<MutationClass, number> = {
  'wrong-type': 220,
  undeclared: 240,
  'keyed-list': 180,
  'int-or-string': 160,
  quantity: 200,
  base64: 150,
  timestamp: 180,
  'server-set': 60,
};
/** Dry runs in flight at once: the tier shares two cores with the test. */
const CONCURRENCY = 4;

interface Rendered {
  label: string;
  object: Json;
  path: string;
  schema: GroupVersionSchema;
}

const groupVersionPath = (apiVersion: string): string =>
  apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;

async function getJson(client: KubeClient, path: string): Promise<Json> {
  const answer = await client.send('GET', path);
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
  return answer.body as Json;
}

/** Each group-version's compact table and resource names, read from the tier as create() reads them. */
async function serverTables(client: KubeClient, apiVersions: string[]) {
  const root = (await getJson(client, '/openapi/v3')).paths as Record<string, { serverRelativeURL: string }>;
  const out = new Map<
    string,
    { schema: GroupVersionSchema; resources: Map<string, { name: string; namespaced: boolean }> }
  >();
  for (const apiVersion of apiVersions) {
    const gv = groupVersionPath(apiVersion);
    const entry = root[gv];
    if (entry === undefined) continue;
    const document = await getJson(client, entry.serverRelativeURL);
    const title = (document.info as { title?: string } | undefined)?.title;
    const schema = { table: compactTypes(document), builtIn: title !== 'Kubernetes CRD Swagger' };
    const list = ((await getJson(client, `/${gv}`)).resources ?? []) as {
      name: string;
      kind: string;
      namespaced: boolean;
    }[];
    const resources = new Map(list.filter((r) => !r.name.includes('/')).map((r) => [r.kind, r]));
    out.set(apiVersion, { schema, resources });
  }
  return out;
}

/** Every object of every published Template, processed on the tier, with where it is applied. */
async function renderCorpus(client: KubeClient): Promise<{ objects: Rendered[]; excluded: string[] }> {
  await using api = await ocp.connect({ kubeconfig });
  const rendered: { label: string; object: Json }[] = [];
  for (const file of readdirSync(corpus)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const template = JSON.parse(readFileSync(join(corpus, file), 'utf8')) as ocp.TemplateObject;
    const objects = await ocp.process(template, corpusParameters(template), { api, namespace: NAMESPACE });
    objects.forEach((object, i) => {
      rendered.push({
        label: `${file.replace(/\.json$/, '')}#${i} ${object.kind ?? ''}`,
        object: object,
      });
    });
  }
  const tables = await serverTables(client, [...new Set(rendered.map((r) => String(r.object.apiVersion)))]);
  const objects: Rendered[] = [];
  const excluded: string[] = [];
  for (const { label, object } of rendered) {
    const gv = tables.get(String(object.apiVersion));
    const resource = gv?.resources.get(String(object.kind));
    if (
      gv === undefined ||
      resource === undefined ||
      !Object.hasOwn(gv.schema.table.kinds, kindKey(String(object.apiVersion), String(object.kind)))
    ) {
      excluded.push(`${label}: no schema or resource on the server`);
      continue;
    }
    const metadata: Json = {
      ...(object.metadata as Json),
      ...(resource.namespaced ? { namespace: NAMESPACE } : {}),
    };
    const name = encodeURIComponent(String(metadata.name));
    const scope = resource.namespaced ? `/namespaces/${NAMESPACE}` : '';
    objects.push({
      label,
      object: { ...object, metadata },
      path: `/${groupVersionPath(String(object.apiVersion))}${scope}/${resource.name}/${name}`,
      schema: gv.schema,
    });
  }
  return { objects, excluded };
}

/** The object as create()'s write sends it (Secret stringData folded, owner label), as a dry run. */
async function dryRunApply(client: KubeClient, target: Rendered, object: Json): Promise<ServerVerdict> {
  const body = withOwnerLabel(normalizeSecret(object), FIELD_MANAGER);
  const query = `fieldManager=${FIELD_MANAGER}&dryRun=All&fieldValidation=Strict`;
  const answer = await client.send('PATCH', `${target.path}?${query}`, body, 'application/apply-patch+yaml');
  return serverVerdict(answer.status, answer.body);
}

async function pool<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

interface Case {
  class: MutationClass;
  target: Rendered;
  what: string;
  object: Json;
  server?: ServerVerdict;
  strict?: StrictOutcome;
  warn?: WarnOutcome;
  detail?: string;
}

const DISAGREEMENTS: readonly StrictOutcome[] = [
  'false refusal',
  'miss',
  'different problem',
  'refused otherwise',
];

describe.skipIf(kubeconfig === '' || corpus === '')(
  '#43 item 5: the typing engine held to the real servers',
  () => {
    test('seeded mutations of the published Templates: the library and the server agree', async () => {
      const { client } = currentContext(kubeconfig);
      try {
        const { objects, excluded } = await renderCorpus(client);
        // The clean base of each object: what Warn would apply of it, and the server applies it.
        const bases: Rendered[] = [];
        await pool(objects, CONCURRENCY, async (target) => {
          const check = checkForApply(target.schema, target.object, 'Warn');
          if (check.kind !== 'typed' || check.refused.length > 0) {
            excluded.push(`${target.label}: the library refuses it as rendered`);
            return;
          }
          const answer = await dryRunApply(client, target, check.object);
          if (answer.kind !== 'accepted')
            excluded.push(
              `${target.label}: the server refuses it as rendered (${answer.kind === 'other' ? answer.status : answer.kind})`,
            );
          else bases.push({ ...target, object: check.object });
        });
        bases.sort((a, b) => a.label.localeCompare(b.label));
        const random = generator(SEED);
        const cases: Case[] = [];
        const slots = new Map(
          bases.map((b) => [
            b,
            slotsOf(
              b.schema.table,
              b.object,
              b.schema.table.kinds[kindKey(String(b.object.apiVersion), String(b.object.kind))] ?? '',
            ),
          ]),
        );
        for (const cls of CLASSES) {
          const able = bases.filter((b) => mutate(() => 0, cls, b.object, slots.get(b) ?? []) !== undefined);
          for (let i = 0; i < PER_CLASS[cls] && able.length > 0; i++) {
            const target = pick(random, able);
            const mutation = mutate(random, cls, target.object, slots.get(target) ?? []);
            if (mutation !== undefined)
              cases.push({ class: cls, target, what: mutation.what, object: mutation.object });
          }
        }
        let requests = 0;
        await pool(cases, CONCURRENCY, async (c) => {
          const server = await dryRunApply(client, c.target, c.object);
          requests++;
          const strict = strictOutcome(c.target.schema, c.object, server);
          const warn = warnOutcome(c.target.schema, c.object, server);
          const applied =
            warn.warned === undefined ? undefined : await dryRunApply(client, c.target, warn.warned);
          if (applied !== undefined) requests++;
          c.server = server;
          c.strict = strict.outcome;
          c.warn = warn.verdict(applied);
          c.detail = strict.detail;
        });
        report(cases, bases.length, excluded, requests);
        // Every case on its own line, for a reader looking into one class.
        if (process.env.OTS_DIFFERENTIAL_VERBOSE === '1')
          for (const c of cases)
            console.log(`[${c.class}] ${c.target.label}: ${c.what} → ${c.strict} (${c.detail})`);
        const wrong = cases.filter(
          (c) => (c.strict !== undefined && DISAGREEMENTS.includes(c.strict)) || c.warn !== 'agrees',
        );
        expect(
          wrong.map(
            (c) =>
              `[${c.class}] ${c.target.label}: ${c.what} → Strict ${c.strict}, Warn ${c.warn} (${c.detail})`,
          ),
        ).toEqual([]);
      } finally {
        client.close();
      }
    }, 600_000);
  },
);

function report(
  cases: readonly Case[],
  objects: number,
  excluded: readonly string[],
  requests: number,
): void {
  const outcomes = [...new Set(cases.map((c) => c.strict as string))].sort();
  const lines = [
    `typing differential: seed ${SEED}, ${cases.length} cases over ${objects} objects, ${requests} dry runs`,
  ];
  lines.push(
    `  ${'class'.padEnd(14)} ${'cases'.padStart(5)}${outcomes.map((o) => o.padStart(19)).join('')}  Warn differs`,
  );
  for (const cls of CLASSES) {
    const of = cases.filter((c) => c.class === cls);
    const counts = outcomes.map((o) => String(of.filter((c) => c.strict === o).length).padStart(19)).join('');
    lines.push(
      `  ${cls.padEnd(14)} ${String(of.length).padStart(5)}${counts}  ${of.filter((c) => c.warn !== 'agrees').length}`,
    );
  }
  const tally = (keys: string[]): string =>
    [...new Set(keys)]
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .map((k) => `${k} ×${keys.filter((x) => x === k).length}`)
      .join(', ');
  const depths = cases
    .filter((c) => c.class === 'undeclared')
    .map((c) => /depth (\d+)/.exec(c.what)?.[1] ?? '?');
  lines.push(`  undeclared fields by depth: ${tally(depths)}`);
  const serverSet = cases
    .filter((c) => c.strict === 'deliberate')
    .map((c) => `${c.what.replace(/ set$/, '')} → ${answerOf(c.server)}`);
  lines.push(`  deliberate refusals, the server's answer: ${tally(serverSet)}`);
  const validation = cases
    .filter((c) => c.strict === 'server validation')
    .map((c) => `${c.class} → ${answerOf(c.server)}`);
  lines.push(`  refused by the server's validation, not typing: ${tally(validation)}`);
  for (const e of [...excluded].sort()) lines.push(`  not mutated: ${e}`);
  console.log(lines.join('\n'));
}

function answerOf(server: ServerVerdict | undefined): string {
  if (server === undefined) return '?';
  if (server.kind !== 'other') return server.kind;
  // A custom resource's OpenAPI validation (type integer, a pattern), which typing does not do.
  return / in body (must|should) /.test(server.message)
    ? `${server.status} CRD schema`
    : String(server.status);
}
