// Checks before any mutating request: the Template copy sent, random generators, every rendered
// object. Pure: data in, problems out.
import { hasText, isRecord } from './util/json.ts';
import { nameProblem } from './checks/names.ts';
import { closest } from './checks/suggest.ts';
import { parameterText } from './checks/parameters.ts';
import { identityKey } from './checks/refs.ts';
import type { KubernetesObject, ResourceRef, TemplateParameters } from './types/index.ts';
import type { FieldValidation } from './types/index.ts';
import type { ProblemKind, ProblemObject, ValidationProblem } from './types/problems.ts';
import type { MissingSchema, SchemaLookup } from './connection/openapi.ts';
import { describeRef } from './checks/refs.ts';
import {
  checkForApply,
  withoutServerSet,
  type ApplyCheck,
  type GroupVersionSchema,
  type TypingProblem,
} from './schema/index.ts';

/** Template metadata kept in the copy sent for processing; what the server set (uid, resourceVersion, ...) is dropped. */
const KEPT_TEMPLATE_METADATA = ['name', 'labels', 'annotations'];

/** Whether a parameter's field holds text: an empty value or generator is none. */

/**
 * A copy of a Template ready to POST: overrides set (generators dropped), server-set metadata
 * cleared, labels merged as `oc process -l` does; unknown parameter names are problems.
 */
export function prepareTemplate(
  template: Record<string, unknown>,
  parameters: TemplateParameters | undefined,
  labels?: Readonly<Record<string, string>>,
): { template: Record<string, unknown>; issues: ValidationProblem[] } {
  const issues: ValidationProblem[] = [];
  // Only the metadata and the parameters change; the objects go out as stored, so they are shared
  // rather than deep-copied (a burst of jobs copies the Template once per job).
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const declared = Array.isArray(template.parameters)
    ? (template.parameters as unknown[]).filter(isRecord).map((p) => ({ ...p }))
    : [];
  const copy: Record<string, unknown> = {
    ...template,
    metadata: Object.fromEntries(
      KEPT_TEMPLATE_METADATA.filter((k) => metadata[k] !== undefined).map((k) => [k, metadata[k]]),
    ),
    parameters: declared,
    ...(labels === undefined
      ? {}
      : { labels: { ...(isRecord(template.labels) ? template.labels : {}), ...labels } }),
  };
  const byName = new Map(declared.map((p) => [typeof p.name === 'string' ? p.name : '', p]));
  const names = [...byName.keys()].filter((n) => n !== '');
  for (const [name, value] of Object.entries(parameters ?? {})) {
    const parameter = byName.get(name);
    if (!parameter || name === '') {
      issues.push({ kind: 'parameter', text: undeclared(name, names) });
      continue;
    }
    parameter.value = parameterText(value);
    delete parameter.generate;
    delete parameter.from;
  }
  issues.push(...missingRequired(declared).map((text) => ({ kind: 'parameter' as const, text })));
  return { template: copy, issues };
}

function undeclared(name: string, declared: readonly string[]): string {
  const guess = closest(name, declared);
  const list = declared.length > 0 ? `it declares ${declared.join(', ')}` : 'it declares no parameters';
  const advice = guess === undefined ? `; ${list}` : `; did you mean ${guess}? (${list})`;
  return `parameter ${JSON.stringify(name)} is not declared by the Template${advice}`;
}

/** Required parameters left without a value, all named (the server's 422 names only the first). */
function missingRequired(parameters: readonly Record<string, unknown>[]): string[] {
  return parameters
    .filter((p) => p.required === true && !hasText(p.value) && !hasText(p.generate))
    .map((p) => `parameter ${String(p.name)} is required by the Template and has no value: give it one`);
}

/** Parameters that would be generated at random: a replay could never name the same objects. */
export function unresolvedGenerators(template: Record<string, unknown>): string[] {
  const parameters = Array.isArray(template.parameters)
    ? (template.parameters as unknown[]).filter(isRecord)
    : [];
  return parameters
    .filter((p) => hasText(p.generate) && !hasText(p.value))
    .map((p) => (typeof p.name === 'string' ? p.name : '(unnamed)'));
}

/** What discovery says about a kind; `undefined` when the cluster does not serve it. */
export type KindLookup = (
  apiVersion: string,
  kind: string,
) => { resource: string; namespaced: boolean } | undefined;

export interface Target {
  ref: ResourceRef;
  resource: string;
  /** The rendered object with its namespace set to the target. */
  object: KubernetesObject;
}

function objectLabel(object: Record<string, unknown>, index: number): string {
  const kind = typeof object.kind === 'string' ? object.kind : '(no kind)';
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const name = hasText(metadata.name) ? `"${metadata.name}"` : '(no name)';
  return `object ${index + 1} (${kind} ${name})`;
}

/** The type of a `metadata` that is there but not a map, in typing's words; `undefined` otherwise. */
function notAMap(value: unknown): string | undefined {
  if (value === undefined || value === null || isRecord(value)) return undefined;
  return Array.isArray(value) ? 'list' : typeof value;
}

/** The identity a rendered object gives, as far as it gives one, and its place in the output. */
function problemObject(raw: Record<string, unknown>, index: number, namespace: string): ProblemObject {
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  const text = (value: unknown): string | undefined => (hasText(value) ? value : undefined);
  const found = {
    apiVersion: text(raw.apiVersion),
    kind: text(raw.kind),
    namespace: text(metadata.namespace) ?? namespace,
    name: text(metadata.name),
  };
  const given = Object.entries(found).filter(([, v]) => v !== undefined);
  return { index, ...Object.fromEntries(given) };
}

/**
 * Checks every rendered object (stable identity, served namespaced kind, the target namespace, no
 * duplicates); the targets when clean, and whether a kind is not served.
 */
export function checkRenderedObjects(
  objects: readonly unknown[],
  namespace: string,
  lookup: KindLookup,
): { targets: Target[]; problems: ValidationProblem[]; notServed: boolean } {
  const problems: ValidationProblem[] = [];
  const targets: Target[] = [];
  let notServed = false;
  const seen = new Map<string, number>();
  objects.forEach((raw, index) => {
    if (!isRecord(raw)) {
      problems.push({ kind: 'identity', text: `object ${index + 1} is not an object`, object: { index } });
      return;
    }
    // Spelled only when a problem is found: most objects have none.
    const label = (): string => objectLabel(raw, index);
    let object: ProblemObject | undefined;
    const say = (kind: ProblemKind, text: string): void => {
      problems.push({ kind, text, object: (object ??= problemObject(raw, index, namespace)) });
    };
    const before = problems.length;
    const metadata = isRecord(raw.metadata) ? raw.metadata : {};
    const { apiVersion, kind } = raw;
    const name = metadata.name;
    if (!hasText(apiVersion)) say('identity', `${label()} has no apiVersion`);
    if (!hasText(kind)) say('identity', `${label()} has no kind`);
    const metadataType = notAMap(raw.metadata);
    if (metadataType !== undefined)
      say('identity', `${label()}: .metadata: expected map, got ${metadataType}`);
    else if (!hasText(name)) say('name', `${label()} has no metadata.name (a stable name is required)`);
    else if (typeof apiVersion === 'string' && typeof kind === 'string') {
      const problem = nameProblem(apiVersion, kind, name, namespace);
      if (problem) say('name', `${label()}: metadata.name "${name}" ${problem}`);
    }
    if (metadata.generateName !== undefined)
      say('generate-name', `${label()} uses metadata.generateName, which cannot be replayed`);
    const objectNamespace = metadata.namespace;
    if (objectNamespace !== undefined && objectNamespace !== '' && objectNamespace !== namespace) {
      say(
        'namespace',
        `${label()} is aimed at namespace ${JSON.stringify(objectNamespace)}, not the target namespace "${namespace}"`,
      );
    }
    if (!hasText(apiVersion) || !hasText(kind)) return;
    const found = lookup(apiVersion, kind);
    if (!found) {
      notServed = true;
      say('not-served', `${label()}: kind ${kind} in ${apiVersion} is not served by the cluster`);
    } else if (!found.namespaced)
      say('cluster-scoped', `${label()}: ${kind} is cluster-scoped; only namespaced objects are allowed`);
    if (problems.length > before || !found || typeof name !== 'string') return;
    const ref: ResourceRef = { apiVersion, kind, namespace, name };
    const key = identityKey(ref);
    const first = seen.get(key);
    if (first !== undefined) {
      say('duplicate', `${label()} repeats the identity of object ${first + 1}`);
      return;
    }
    seen.set(key, index);
    const rendered = { ...raw, metadata: { ...metadata, namespace } } as KubernetesObject;
    targets.push({ ref, resource: found.resource, object: rendered });
  });
  return { targets, problems, notServed };
}

/** One target's verdict: typed, or why it could not be. */
export type Verdict =
  | { target: Target; check: ApplyCheck & { kind: 'typed' }; schema: GroupVersionSchema }
  | { target: Target; missing: Untyped; answer?: string | undefined };
export type Untyped = MissingSchema | 'kind';

/** Types each target against its group-version's schema, as `mode` will apply it. */
export function verdicts(
  targets: readonly Target[],
  schemas: ReadonlyMap<string, SchemaLookup>,
  mode: FieldValidation,
): Verdict[] {
  return targets.map((target) => {
    const found = schemas.get(target.ref.apiVersion);
    if (found === undefined) return { target, missing: 'unlisted' };
    if ('missing' in found) return { target, missing: found.missing, answer: found.answer };
    const check = checkForApply(found.schema, target.object, mode);
    return check.kind === 'unknown' ? { target, missing: 'kind' } : { target, check, schema: found.schema };
  });
}

/** Whether the root may be out of date: no schema, a kind missing, or anything found. */
export function worthRereading(verdict: Verdict): boolean {
  if ('missing' in verdict) return true;
  // Server-set metadata is refused whatever the schema says.
  const typing = (p: TypingProblem): boolean => p.kind !== 'server-set';
  return verdict.check.refused.some(typing) || verdict.check.removed.some(typing);
}

/** Why an object cannot be typed, in words. */
export function whyUntyped(missing: Untyped, { apiVersion, kind }: ResourceRef, answer?: string): string {
  switch (missing) {
    case 'unpublished':
      return 'the server does not publish /openapi/v3';
    case 'unlisted':
      return `the server's /openapi/v3 lists no document for ${apiVersion}`;
    case 'unreadable':
      return `the server's OpenAPI v3 document for ${apiVersion} answered ${answer ?? 'nothing usable'}`;
    case 'kind':
      return `the server's OpenAPI v3 document for ${apiVersion} has no type for kind ${kind}`;
  }
}

/** structured-merge-diff's kinds of problem, as a ValidationError names them. */
const PROBLEM_KINDS: Readonly<Record<TypingProblem['kind'], ProblemKind>> = {
  undeclared: 'undeclared',
  'server-set': 'server-set',
  type: 'type',
  list: 'keyed-list',
  decode: 'conversion',
  schema: 'no-type',
};

function typingProblem({ ref }: Target, index: number, problem: TypingProblem): ValidationProblem {
  const text = `${describeRef(ref)}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.reason}`;
  const path = problem.path === '' ? {} : { path: problem.path };
  return { kind: PROBLEM_KINDS[problem.kind], text, object: { index, ...identityOf(ref) }, ...path };
}

/** Whether Warn would type every object Strict refused: all have a schema and Warn refuses nothing. */
function warnWouldPass(found: readonly Verdict[]): boolean {
  return found.every((v) => {
    if ('missing' in v) return false;
    const check = checkForApply(v.schema, v.target.object, 'Warn');
    return check.kind === 'typed' && check.refused.length === 0;
  });
}

function identityOf(ref: ResourceRef): Omit<ProblemObject, 'index'> {
  return { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace, name: ref.name };
}

/** What the verdicts refuse under `mode`, and whether a Strict refusal would pass under Warn. */
export function verdictProblems(
  found: readonly Verdict[],
  mode: FieldValidation,
): { problems: ValidationProblem[]; unavailable: boolean; fixableByWarn: boolean } {
  const unavailable: ValidationProblem[] = [];
  const refused: ValidationProblem[] = [];
  for (const [index, verdict] of found.entries()) {
    const { target } = verdict;
    const typing = (p: TypingProblem): ValidationProblem => typingProblem(target, index, p);
    if ('missing' in verdict) {
      if (mode !== 'Strict') {
        const why = whyUntyped(verdict.missing, target.ref, verdict.answer);
        const text = `${describeRef(target.ref)}: fieldValidation "${mode}" drops what the server's schema does not declare, but ${why}`;
        unavailable.push({ kind: 'schema-unavailable', text, object: { index, ...identityOf(target.ref) } });
      }
      // No schema is needed to know what the server refuses in any apply body.
      else refused.push(...withoutServerSet(target.object).found.map(typing));
    } else refused.push(...verdict.check.refused.map(typing));
  }
  const problems = [...unavailable, ...refused];
  const fixableByWarn = mode === 'Strict' && problems.length > 0 && warnWouldPass(found);
  return { problems, unavailable: unavailable.length > 0, fixableByWarn };
}
