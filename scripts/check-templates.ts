// `npm run check-templates -- FILE|DIR... [--field-validation MODE] [--param NAME=VALUE ...]`: runs
// each Template of the files (JSON or YAML) through the library as an object, as `oc process -f`
// does, never storing it: on the embedded OpenShift API simulator a round trip (process, create with
// the chosen fieldValidation, get, then a template-mode delete from a new Connection), the same on
// the real tier --real-tier starts for the run; on a server a kubeconfig names, a dry-run create
// only, unless --round-trip asks for the writes. The first line says what the run judges. Generated
// parameters get explicit test values, so every run names the same objects. Prints a table per
// Template, every problem of a refused one on its own line, and checks in the write log (the
// simulator's request log, the tier's audit log) that a refused Template wrote nothing.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAllYaml } from '@kubernetes/client-node';
import * as ocp from '../src/index.ts';
import type { JsonObject } from '../simulator/index.ts';
import { type CheckTarget, kubeconfigTarget, simulatorTarget } from './check-target.ts';
import { judges, realTierSource, realTierTarget } from './check-tier.ts';
import { ClusterError } from './cluster/build.ts';
import { type Observed, readExpectations, unexpected } from './expectations.ts';
import { testValue } from './test-values.ts';

const USAGE = `usage: npm run check-templates -- FILE|DIR... [--field-validation Strict|Warn|Ignore]
                                  [--param NAME=VALUE ...] [--expect FILE]
                                  [--kubeconfig FILE [--namespace NS] [--round-trip]]
                                  [--real-tier [--openshift-apiserver-source PATH]]
  FILE|DIR            Template files (.json, .yaml, .yml); a folder is read one level deep.
                      Each Template is processed as an object: no stored Template is read,
                      written or replaced
  --field-validation  create()'s fieldValidation for every Template (default Strict): Strict
                      refuses any problem, Warn and Ignore drop undeclared fields (Warn warns)
  --kubeconfig FILE   run on the server it names instead of the embedded simulator. By default
                      only dry runs: process, then create with dryRun (typed, then every object
                      dry-run applied), so nothing is written and any cluster will do
  --namespace NS      the namespace the objects are rendered and dry-run into (default workers)
  --round-trip        with --kubeconfig: create for real, get, delete by replay from a new
                      Connection, and check nothing is left (the corpus check on npm run
                      cluster's tier: writes read from the audit log its kubeconfig names, for its
                      token user). On the embedded simulator and --real-tier always run
  --real-tier         judge on the real servers: start npm run cluster's tier for this run
                      (kube-apiserver and openshift-apiserver, built with Go on first use;
                      docs/real-tier.md), round-trip there, stop it after (Ctrl-C too). The
                      simulator judges types and names, not kube-apiserver's validation
  --openshift-apiserver-source PATH
                      with --real-tier: openshift-apiserver's source, a directory or its
                      tarball (default $OPENSHIFT_APISERVER_SOURCE); without it, or without
                      Go, --real-tier refuses in one line
  --param             a parameter value for every Template that declares it (repeatable)
  --expect FILE       JSON with one section per mode, each { "<template>": EXPECTATION }:
                        { "Strict": { "t1": { "result": "refused", "issues": ["<line>", ...] } },
                          "Warn": { "t2": { "result": "ok", "warnings": ["<line>", ...] } },
                          "Ignore": {} }
                      result "refused": "issues" is every problem, the same lines in any order;
                      result "failed": "message" is a part of the error; "step" (optional) is
                      where it stopped; "warnings" (optional, any result) is every warning line.
                      Only the section of the mode run is read, and it must be there. Warnings
                      are compared on a round trip only (a dry run draws fewer). Templates
                      not listed in it must pass. Exits 1 when any result differs from it; without
                      --expect, when any Template is refused or failed. Usage errors exit 2.`;

const MODES = ['Strict', 'Warn', 'Ignore'] as const;
type Mode = (typeof MODES)[number];

/** A one-line reason and the usage on stderr, exit 2: never a stack. */
function usageError(reason: string): never {
  process.stderr.write(`check-templates: ${reason}\n\n${USAGE}\n`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        'field-validation': { type: 'string', default: 'Strict' },
        param: { type: 'string', multiple: true, default: [] },
        expect: { type: 'string' },
        kubeconfig: { type: 'string' },
        namespace: { type: 'string', default: 'workers' },
        'round-trip': { type: 'boolean', default: false },
        'real-tier': { type: 'boolean', default: false },
        'openshift-apiserver-source': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
})();
if (values.help || positionals.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}
const chosenMode = values['field-validation'];
if (!(MODES as readonly string[]).includes(chosenMode))
  usageError(`--field-validation must be Strict, Warn or Ignore, not ${JSON.stringify(chosenMode)}`);
const mode = chosenMode as Mode;
if (values['real-tier'] && values.kubeconfig !== undefined)
  usageError('--real-tier starts a server of its own: leave out --kubeconfig');
if (values['openshift-apiserver-source'] !== undefined && !values['real-tier'])
  usageError('--openshift-apiserver-source is read with --real-tier only');
const tier = values['real-tier'] ? realTierSource(values['openshift-apiserver-source']) : undefined;
if (tier && 'missing' in tier) {
  process.stderr.write(`check-templates: ${tier.missing}\n`);
  process.exit(2);
}
// The simulator is thrown away after the run: there the round trip costs nothing and is the check.
const roundTrip = values['round-trip'] || values.kubeconfig === undefined;

// The test namespace both servers have (npm run cluster bootstraps it, the simulator seeds it);
// elsewhere --namespace names one.
const NAMESPACE = values.namespace;
const TEMPLATE_FILE = /\.(json|ya?ml)$/i;

interface Loaded {
  file: string;
  template: JsonObject;
  notes: string[];
}

interface Outcome extends Observed {
  file: string;
  objects: number;
  kinds: string[];
  /** Requests that could have written to the server during a create that did not succeed. */
  writes: string[];
  /** The dry runs among that create's requests, which wrote nothing. */
  dryRuns: string[];
  notes: string[];
}

function parameterPairs(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) usageError(`--param expects NAME=VALUE, got ${JSON.stringify(pair)}`);
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
    return usageError(`no such file or folder: ${path}`);
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
      // OpenShift 3's legacy group-less Template: the library sends it as template.openshift.io/v1.
      if (template.apiVersion === 'v1')
        notes.push('legacy apiVersion v1 Template, processed as template.openshift.io/v1');
      return { file, template, notes };
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

async function check(target: CheckTarget, loaded: Loaded, given: Record<string, string>): Promise<Outcome> {
  const metadata = isObject(loaded.template.metadata) ? loaded.template.metadata : {};
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
    issues: [],
    writes: [],
    dryRuns: [],
    notes,
    warnings: [],
  };
  const onWarning = (warning: ocp.ServerWarning): void => {
    const about = warning.target ? ` ${warning.target.kind}/${warning.target.name}` : '';
    const line = `${warning.operation}${about}: ${warning.text}`;
    if (!outcome.warnings.includes(line)) outcome.warnings.push(line);
  };
  const kubeconfig = target.kubeconfig;
  // The file's Template as an object (oc process -f): a stored Template of the same name is never
  // read, replaced or left behind, whatever server this is.
  const template = loaded.template as ocp.TemplateObject;
  const parameters = parametersFor(loaded.template, given, notes);
  const options = { namespace: NAMESPACE };
  let step = 'process';
  let createdFrom = -1;
  try {
    {
      await using api = await ocp.connect({ kubeconfig, onWarning });
      const objects = await ocp.process(template, parameters, { ...options, api });
      outcome.objects = objects.length;
      outcome.kinds = [...new Set(objects.map((o) => o.kind ?? '?'))];
      step = 'create';
      createdFrom = target.mark();
      const create = { ...options, api, fieldValidation: mode };
      if (!roundTrip) {
        await ocp.create(template, parameters, { ...create, dryRun: true });
        return outcome;
      }
      const refs = await ocp.create(template, parameters, create);
      step = 'get';
      const live = await ocp.get(template, parameters, { ...options, api });
      if (live.length !== refs.length)
        throw new Error(`get returned ${live.length} objects, create ${refs.length}`);
    }
    // A new Connection and nothing saved: the delete names the objects by replay alone.
    step = 'delete';
    await using fresh = await ocp.connect({ kubeconfig, onWarning });
    const deleted = await ocp.delete(template, parameters, { ...options, api: fresh });
    const left: ocp.ResourceRef[] = [];
    for (const ref of deleted) if (await target.exists(ref)) left.push(ref);
    if (left.length > 0)
      throw new Error(
        `still on the server after delete: ${left.map((r) => `${r.kind}/${r.name}`).join(', ')}`,
      );
    return outcome;
  } catch (error) {
    const sent = step === 'create' ? await target.requestsSince(createdFrom) : { writes: [], dryRuns: [] };
    const failed: Outcome = { ...outcome, result: 'failed', step, message: describeError(error), ...sent };
    if (!(error instanceof ocp.ValidationError)) return failed;
    const refused = {
      ...failed,
      issues: [...error.issues],
      message: `${error.code}: ${count(error.issues)}`,
    };
    // Refused means refused before any mutation: a refusal after a write is a failure whatever
    // the expectations say.
    if (refused.writes.length === 0) return { ...refused, result: 'refused' };
    return { ...refused, message: `refused after writing to the server: ${refused.message}` };
  }
}

const ROUND_TRIP = 'process, create, get, delete by replay';
const DRY_RUN = 'process, create as a dry run';

const count = (issues: readonly string[]): string =>
  issues.length === 1 ? '1 problem' : `${issues.length} problems`;

function print(outcome: Outcome): void {
  console.log(`\nTemplate ${outcome.name} (${outcome.file})`);
  const rows: [string, string][] = [
    ['objects', String(outcome.objects)],
    ['kinds', outcome.kinds.join(', ') || '-'],
    [
      'result',
      outcome.result === 'ok'
        ? `ok: ${roundTrip ? ROUND_TRIP : DRY_RUN}`
        : `${outcome.result} at ${outcome.step}`,
    ],
    ...(outcome.message ? ([['error', outcome.message]] as [string, string][]) : []),
    ...outcome.issues.map((i): [string, string] => ['issue', i]),
    ...outcome.writes.map((w): [string, string] => ['wrote', w]),
    ...outcome.dryRuns.map((w): [string, string] => ['dry run', w]),
    ...outcome.warnings.map((w): [string, string] => ['warning', w]),
    ...outcome.notes.map((n): [string, string] => ['note', n]),
  ];
  for (const [key, value] of rows) console.log(`  ${key.padEnd(8)} ${value}`);
}

const given = parameterPairs(values.param);
const read = values.expect ? await readExpectations(values.expect, mode, MODES, usageError) : {};
// Expected warnings are a round trip's: a dry run draws none from get or delete, nor a legacy
// RoleBinding's POST, so a dry-run check compares results and issues only.
const expected = roundTrip
  ? read
  : Object.fromEntries(Object.entries(read).map(([name, { warnings, ...rest }]) => [name, rest]));
const files = await filesOf(positionals);
const ownKubeconfig = join(tmpdir(), `check-templates-${process.pid}.json`);
const target = tier
  ? await realTierTarget(tier.source, ownKubeconfig, NAMESPACE).catch((error: unknown) => {
      if (!(error instanceof ClusterError)) throw error;
      process.stderr.write(`check-templates: --real-tier: ${error.message.replace(/^cluster: /, '')}\n`);
      return process.exit(1);
    })
  : values.kubeconfig
    ? await kubeconfigTarget(values.kubeconfig, roundTrip).catch((error: unknown) =>
        usageError(describeError(error)),
      )
    : await simulatorTarget(ownKubeconfig, [NAMESPACE]);
const outcomes: Outcome[] = [];
console.log(judges(tier?.source, values.kubeconfig, roundTrip));
console.log(`field validation: ${mode}`);
console.log(`server: ${target.describe}`);
console.log(
  roundTrip
    ? `check: ${ROUND_TRIP}, in namespace ${NAMESPACE}`
    : `check: ${DRY_RUN}, in namespace ${NAMESPACE}: nothing is written (--round-trip writes)`,
);
try {
  for (const file of files) {
    const loaded = await templatesIn(file).catch((error: unknown) => {
      const failed: Outcome = {
        name: basename(file),
        file: basename(file),
        objects: 0,
        kinds: [],
        result: 'failed',
        step: 'load',
        message: describeError(error),
        issues: [],
        writes: [],
        dryRuns: [],
        notes: [],
        warnings: [],
      };
      outcomes.push(failed);
      print(failed);
      return [];
    });
    for (const one of loaded) {
      const outcome = await check(target, one, given);
      outcomes.push(outcome);
      print(outcome);
    }
  }
} finally {
  await target.close();
  await rm(ownKubeconfig, { force: true });
}

console.log(
  '\n| template | objects | result | issues | warnings | unexpected |\n| --- | --- | --- | --- | --- | --- |',
);
let failures = 0;
const details: string[] = [];
for (const outcome of outcomes) {
  const problem = unexpected(outcome, expected);
  if (problem) {
    failures += 1;
    details.push(...problem.lines.map((line) => `  ${outcome.name}: ${line}`));
  }
  console.log(
    `| ${outcome.name} | ${outcome.objects} | ${outcome.result} | ${outcome.issues.length} | ${outcome.warnings.length} | ${problem?.summary ?? ''} |`,
  );
}
for (const name of Object.keys(expected).filter((n) => !outcomes.some((o) => o.name === n))) {
  failures += 1;
  console.log(`| ${name} | - | not found | - | - | expected in the input |`);
}
if (details.length > 0)
  console.log(`\nDifferences from ${values.expect ?? 'the expectations'}:\n${details.join('\n')}`);
console.log(`\n${outcomes.length - failures} as expected, ${failures} unexpected (field validation ${mode})`);
process.exit(failures === 0 ? 0 : 1);
