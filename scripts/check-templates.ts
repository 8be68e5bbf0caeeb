// `npm run check-templates -- FILE|DIR... [--param NAME=VALUE ...]`: loads Template files (JSON or
// YAML) into the embedded OpenShift API simulator and runs each through the library: process,
// create, get, then a template-mode delete from a new Connection. Generated parameters get explicit
// test values, so every run names the same objects. Prints a table per Template.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAllYaml } from '@kubernetes/client-node';
import * as ocp from '../src/index.ts';
import { type JsonObject, type Simulator, startSimulator } from '../simulator/index.ts';
import { testValue } from './test-values.ts';

const USAGE = `usage: npm run check-templates -- FILE|DIR... [--param NAME=VALUE ...] [--expect FILE]
  FILE|DIR       Template files (.json, .yaml, .yml); a folder is read one level deep
  --param        a parameter value for every Template that declares it (repeatable)
  --expect FILE  JSON { "<template>": { "result": "refused", "message": "<text>" } }: Templates
                 not listed must pass; exits 1 when any result differs from what is expected`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    param: { type: 'string', multiple: true, default: [] },
    expect: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || positionals.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

const TEMPLATE_NAMESPACE = 'templates';
const NAMESPACE = 'check';
const TEMPLATE_FILE = /\.(json|ya?ml)$/i;

interface Loaded {
  file: string;
  template: JsonObject;
  notes: string[];
}

interface Outcome {
  name: string;
  file: string;
  objects: number;
  kinds: string[];
  result: 'ok' | 'refused' | 'failed';
  step: string;
  message: string;
  notes: string[];
  /** The server's warnings, each once, with the operation and object that drew it. */
  warnings: string[];
}

function parameterPairs(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--param expects NAME=VALUE, got ${JSON.stringify(pair)}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** What a path is, or a one-line usage error (exit 2) for a path that does not exist. */
async function statOrExit(path: string): Promise<Awaited<ReturnType<typeof stat>>> {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    process.stderr.write(`check-templates: no such file or folder: ${path}\n\n${USAGE}`);
    process.exit(2);
  }
}

async function filesOf(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    if ((await statOrExit(path)).isDirectory()) {
      const entries = (await readdir(path)).filter((name) => TEMPLATE_FILE.test(name)).sort();
      files.push(...entries.map((name) => join(path, name)));
    } else files.push(path);
  }
  return files;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every Template in a file: a Template, a List of them, or several YAML documents. */
async function templatesIn(file: string): Promise<Loaded[]> {
  const text = await readFile(file, 'utf8');
  const documents = (
    extname(file).toLowerCase() === '.json' ? [JSON.parse(text)] : loadAllYaml(text)
  ) as unknown[];
  const items = documents.flatMap((d) =>
    isObject(d) && Array.isArray(d.items) ? (d.items as unknown[]) : [d],
  );
  return items
    .filter((i): i is JsonObject => isObject(i) && i.kind === 'Template')
    .map((template) => {
      const notes: string[] = [];
      // OpenShift 3's legacy group-less Template is stored under template.openshift.io/v1 today.
      if (template.apiVersion === 'v1')
        notes.push('legacy apiVersion v1 Template, stored as template.openshift.io/v1');
      const metadata = isObject(template.metadata) ? template.metadata : {};
      const stored: JsonObject = {
        ...template,
        apiVersion: 'template.openshift.io/v1',
        metadata: {
          name: metadata.name ?? null,
          ...(isObject(metadata.labels) ? { labels: metadata.labels } : {}),
          namespace: TEMPLATE_NAMESPACE,
        },
      };
      return { file, template: stored, notes };
    });
}

/** The caller's values, then explicit test values for parameters the Template would generate. */
function parametersFor(
  template: JsonObject,
  given: Record<string, string>,
  notes: string[],
): Record<string, string> {
  const declared = (Array.isArray(template.parameters) ? template.parameters : []).filter(isObject);
  const chosen: Record<string, string> = {};
  for (const p of declared) {
    const name = typeof p.name === 'string' ? p.name : '';
    if (name === '') continue;
    if (Object.hasOwn(given, name)) chosen[name] = given[name] ?? '';
    else if (
      typeof p.generate === 'string' &&
      p.generate !== '' &&
      !(typeof p.value === 'string' && p.value !== '')
    ) {
      chosen[name] = testValue(typeof p.from === 'string' ? p.from : '');
      notes.push(`${name} generated → test value`);
    }
  }
  return chosen;
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function check(
  sim: Simulator,
  kubeconfig: string,
  loaded: Loaded,
  given: Record<string, string>,
): Promise<Outcome> {
  const metadata = loaded.template.metadata as JsonObject;
  const name = typeof metadata.name === 'string' ? metadata.name : '(unnamed)';
  const notes = [...loaded.notes];
  const outcome: Outcome = {
    name,
    file: basename(loaded.file),
    objects: 0,
    kinds: [],
    result: 'ok',
    step: '',
    message: '',
    notes,
    warnings: [],
  };
  const onWarning = (warning: ocp.ServerWarning): void => {
    const about = warning.target ? ` ${warning.target.kind}/${warning.target.name}` : '';
    const line = `${warning.operation}${about}: ${warning.text}`;
    if (!outcome.warnings.includes(line)) outcome.warnings.push(line);
  };
  try {
    sim.seed(loaded.template);
  } catch (error) {
    return { ...outcome, result: 'failed', step: 'load', message: describeError(error) };
  }
  const parameters = parametersFor(loaded.template, given, notes);
  const options = { namespace: NAMESPACE, templateNamespace: TEMPLATE_NAMESPACE };
  let step = 'process';
  try {
    {
      await using api = await ocp.connect({ kubeconfig, onWarning });
      const objects = await ocp.process(name, parameters, { ...options, api });
      outcome.objects = objects.length;
      outcome.kinds = [...new Set(objects.map((o) => o.kind ?? '?'))];
      step = 'create';
      const refs = await ocp.create(name, parameters, { ...options, api });
      step = 'get';
      const live = await ocp.get(name, parameters, { ...options, api });
      if (live.length !== refs.length)
        throw new Error(`get returned ${live.length} objects, create ${refs.length}`);
    }
    // A new Connection and nothing saved: the delete names the objects by replay alone.
    step = 'delete';
    await using fresh = await ocp.connect({ kubeconfig, onWarning });
    const deleted = await ocp.delete(name, parameters, { ...options, api: fresh });
    const left = deleted.filter(
      (r) => sim.getObject(r.apiVersion, r.kind, r.namespace, r.name) !== undefined,
    );
    if (left.length > 0)
      throw new Error(
        `still on the server after delete: ${left.map((r) => `${r.kind}/${r.name}`).join(', ')}`,
      );
    return outcome;
  } catch (error) {
    const refused = error instanceof ocp.ValidationError;
    return { ...outcome, result: refused ? 'refused' : 'failed', step, message: describeError(error) };
  }
}

function print(outcome: Outcome): void {
  console.log(`\nTemplate ${outcome.name} (${outcome.file})`);
  const rows: [string, string][] = [
    ['objects', String(outcome.objects)],
    ['kinds', outcome.kinds.join(', ') || '-'],
    [
      'result',
      outcome.result === 'ok'
        ? 'ok: process, create, get, delete by replay'
        : `${outcome.result} at ${outcome.step}`,
    ],
    ...(outcome.message ? ([['error', outcome.message]] as [string, string][]) : []),
    ...outcome.warnings.map((w): [string, string] => ['warning', w]),
    ...outcome.notes.map((n): [string, string] => ['note', n]),
  ];
  for (const [key, value] of rows) console.log(`  ${key.padEnd(8)} ${value}`);
}

interface Expectation {
  result: 'refused' | 'failed';
  message: string;
}

function unexpected(outcome: Outcome, expected: Record<string, Expectation>): string | undefined {
  const want = expected[outcome.name];
  if (!want) return outcome.result === 'ok' ? undefined : `expected ok, got ${outcome.result}`;
  if (outcome.result !== want.result) return `expected ${want.result}, got ${outcome.result}`;
  return outcome.message.includes(want.message)
    ? undefined
    : `expected an error containing ${JSON.stringify(want.message)}`;
}

const given = parameterPairs(values.param);
const expected = values.expect
  ? (JSON.parse(await readFile(values.expect, 'utf8')) as Record<string, Expectation>)
  : {};
const sim = await startSimulator({ seedExamples: false, namespaces: [TEMPLATE_NAMESPACE, NAMESPACE] });
const kubeconfig = join(tmpdir(), `check-templates-${process.pid}.json`);
await sim.writeKubeconfig(kubeconfig);
const outcomes: Outcome[] = [];
try {
  for (const file of await filesOf(positionals)) {
    const loaded = await templatesIn(file).catch((error: unknown) => {
      outcomes.push({
        name: basename(file),
        file: basename(file),
        objects: 0,
        kinds: [],
        result: 'failed',
        step: 'load',
        message: describeError(error),
        notes: [],
        warnings: [],
      });
      return [];
    });
    for (const one of loaded) {
      const outcome = await check(sim, kubeconfig, one, given);
      outcomes.push(outcome);
      print(outcome);
    }
  }
} finally {
  await sim.close();
  await rm(kubeconfig, { force: true });
}

console.log('\n| template | objects | result | warnings | unexpected |\n| --- | --- | --- | --- | --- |');
let failures = 0;
for (const outcome of outcomes) {
  const problem = unexpected(outcome, expected);
  if (problem) failures += 1;
  console.log(
    `| ${outcome.name} | ${outcome.objects} | ${outcome.result} | ${outcome.warnings.length} | ${problem ?? ''} |`,
  );
}
for (const name of Object.keys(expected).filter((n) => !outcomes.some((o) => o.name === n))) {
  failures += 1;
  console.log(`| ${name} | - | not found | - | expected in the input |`);
}
console.log(`\n${outcomes.length - failures} as expected, ${failures} unexpected`);
process.exit(failures === 0 ? 0 : 1);
