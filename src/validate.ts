// Checks that run before any mutating request, on what the server holds and renders: the Template
// copy sent for processing, random generators, and every rendered object. Pure: data in, problems
// out, no I/O.
import { isRecord } from './util/json.ts';
import { nameProblem } from './checks/names.ts';
import { closest } from './checks/suggest.ts';
import { parameterText } from './checks/parameters.ts';
import { identityKey, type Issues } from './checks/refs.ts';
import type { KubernetesObject, ResourceRef, TemplateParameters } from './types.ts';

/** Template metadata kept in the copy sent for processing; what the server set (uid, resourceVersion, ...) is dropped. */
const KEPT_TEMPLATE_METADATA = ['name', 'labels', 'annotations'];

interface TemplateParameter {
  name?: unknown;
  value?: unknown;
  generate?: unknown;
  from?: unknown;
  [key: string]: unknown;
}

/**
 * A copy of a Template ready to POST for processing: overrides set (their generators dropped),
 * server-set metadata cleared, the caller's labels merged over the Template's (as `oc process -l`
 * does). Unknown parameter names are problems, by name only.
 */
export function prepareTemplate(
  template: Record<string, unknown>,
  parameters: TemplateParameters | undefined,
  labels?: Readonly<Record<string, string>>,
): { template: Record<string, unknown>; issues: Issues } {
  const issues: Issues = [];
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
      issues.push(undeclared(name, names));
      continue;
    }
    parameter.value = parameterText(value);
    delete parameter.generate;
    delete parameter.from;
  }
  issues.push(...missingRequired(declared));
  return { template: copy, issues };
}

function undeclared(name: string, declared: readonly string[]): string {
  const guess = closest(name, declared);
  const list = declared.length > 0 ? `it declares ${declared.join(', ')}` : 'it declares no parameters';
  const advice = guess === undefined ? `; ${list}` : `; did you mean ${guess}? (${list})`;
  return `parameter ${JSON.stringify(name)} is not declared by the Template${advice}`;
}

/**
 * Required parameters left without a value: none in the Template, no generator, none given. The
 * server would refuse the processing with a 422 naming the first; this names them all, first.
 */
function missingRequired(parameters: readonly TemplateParameter[]): string[] {
  return parameters
    .filter((p) => p.required === true && (typeof p.value !== 'string' || p.value === ''))
    .filter((p) => typeof p.generate !== 'string' || p.generate === '')
    .map((p) => `parameter ${String(p.name)} is required by the Template and has no value: give it one`);
}

/** Parameters that would be generated at random: a replay could never name the same objects. */
export function unresolvedGenerators(template: Record<string, unknown>): string[] {
  const parameters = Array.isArray(template.parameters)
    ? (template.parameters as unknown[]).filter(isRecord)
    : [];
  return parameters
    .filter(
      (p) =>
        typeof p.generate === 'string' &&
        p.generate !== '' &&
        (typeof p.value !== 'string' || p.value === ''),
    )
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
  const name = typeof metadata.name === 'string' && metadata.name !== '' ? `"${metadata.name}"` : '(no name)';
  return `object ${index + 1} (${kind} ${name})`;
}

/** The type of a `metadata` that is there but not a map, in typing's words; `undefined` otherwise. */
function notAMap(value: unknown): string | undefined {
  if (value === undefined || value === null || isRecord(value)) return undefined;
  return Array.isArray(value) ? 'list' : typeof value;
}

/**
 * Checks every rendered object and reports every problem: identity present and stable, kind
 * served and namespaced, namespace the target, no duplicates. Returns the targets when clean, and
 * whether a kind is not served (a problem of the cluster, not of the objects).
 */
export function checkRenderedObjects(
  objects: readonly unknown[],
  namespace: string,
  lookup: KindLookup,
): { targets: Target[]; issues: Issues; notServed: boolean } {
  const issues: Issues = [];
  const targets: Target[] = [];
  let notServed = false;
  const seen = new Map<string, number>();
  objects.forEach((raw, index) => {
    if (!isRecord(raw)) {
      issues.push(`object ${index + 1} is not an object`);
      return;
    }
    const label = objectLabel(raw, index);
    const before = issues.length;
    const metadata = isRecord(raw.metadata) ? raw.metadata : {};
    const { apiVersion, kind } = raw;
    const name = metadata.name;
    if (typeof apiVersion !== 'string' || apiVersion === '') issues.push(`${label} has no apiVersion`);
    if (typeof kind !== 'string' || kind === '') issues.push(`${label} has no kind`);
    const metadataType = notAMap(raw.metadata);
    if (metadataType !== undefined) issues.push(`${label}: .metadata: expected map, got ${metadataType}`);
    else if (typeof name !== 'string' || name === '')
      issues.push(`${label} has no metadata.name (a stable name is required)`);
    else if (typeof apiVersion === 'string' && typeof kind === 'string') {
      const problem = nameProblem(apiVersion, kind, name, namespace);
      if (problem) issues.push(`${label}: metadata.name "${name}" ${problem}`);
    }
    if (metadata.generateName !== undefined)
      issues.push(`${label} uses metadata.generateName, which cannot be replayed`);
    const objectNamespace = metadata.namespace;
    if (objectNamespace !== undefined && objectNamespace !== '' && objectNamespace !== namespace) {
      issues.push(
        `${label} is aimed at namespace ${JSON.stringify(objectNamespace)}, not the target namespace "${namespace}"`,
      );
    }
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion === '' || kind === '')
      return;
    const found = lookup(apiVersion, kind);
    if (!found) {
      notServed = true;
      issues.push(`${label}: kind ${kind} in ${apiVersion} is not served by the cluster`);
    } else if (!found.namespaced)
      issues.push(`${label}: ${kind} is cluster-scoped; only namespaced objects are allowed`);
    if (issues.length > before || !found || typeof name !== 'string') return;
    const ref: ResourceRef = { apiVersion, kind, namespace, name };
    const key = identityKey(ref);
    const first = seen.get(key);
    if (first !== undefined) {
      issues.push(`${label} repeats the identity of object ${first + 1}`);
      return;
    }
    seen.set(key, index);
    const object = { ...raw, metadata: { ...metadata, namespace } } as KubernetesObject;
    targets.push({ ref, resource: found.resource, object });
  });
  return { targets, issues, notServed };
}

export function checkProcessedTemplate(body: unknown): { objects: unknown[] } | undefined {
  if (!isRecord(body) || body.kind !== 'Template' || !Array.isArray(body.objects)) return undefined;
  return { objects: body.objects as unknown[] };
}
