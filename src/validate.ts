// Checks that run before any mutating request. Pure functions: data in, problems out, no I/O.
import { groupOf, nameProblem } from './names.ts';
import type { KubernetesObject, RequestTimeout, ResourceRef, TemplateParameters } from './types.ts';

/** Template metadata kept in the copy sent for processing; what the server set (uid, resourceVersion, ...) is dropped. */
const KEPT_TEMPLATE_METADATA = ['name', 'labels', 'annotations'];

export type Issues = string[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function checkNamespace(value: unknown, label: string, issues: Issues): void {
  if (typeof value !== 'string') issues.push(`${label} must be a string, got ${describe(value)}`);
  else if (value === '') issues.push(`${label} must not be empty`);
  else if (nameProblem('v1', 'Namespace', value) !== undefined) {
    issues.push(`${label} "${value}" is not a valid namespace name (DNS-1123 label)`);
  }
}

function checkTemplateName(value: unknown, issues: Issues): void {
  if (typeof value !== 'string') issues.push(`templateName must be a string, got ${describe(value)}`);
  else if (value === '') issues.push('templateName must not be empty');
  else {
    const problem = nameProblem('template.openshift.io/v1', 'Template', value);
    if (problem) issues.push(`templateName "${value}" ${problem}`);
  }
}

/** The longest delay a Node.js timer holds (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

function checkTimeout(value: RequestTimeout | undefined, label: string, issues: Issues): void {
  if (value === undefined) return;
  const valid = (n: unknown): boolean => typeof n === 'number' && Number.isFinite(n) && n > 0;
  if (
    typeof value === 'number'
      ? !valid(value)
      : !isRecord(value) || !valid(value.connect) || !valid(value.read)
  ) {
    issues.push(`${label} must be a positive number of milliseconds or { connect, read } of them`);
    return;
  }
  const limits = typeof value === 'number' ? [value] : [value.connect, value.read];
  if (limits.some((ms) => ms > MAX_TIMEOUT_MS)) {
    issues.push(
      `${label} must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days), the longest delay a Node.js timer holds`,
    );
  }
}

/** Names, never values: a parameter value may be a secret. */
function checkParameters(parameters: unknown, issues: Issues): void {
  if (parameters === undefined) return;
  if (!isRecord(parameters)) {
    issues.push(`parameters must be an object of name → value, got ${describe(parameters)}`);
    return;
  }
  for (const [name, value] of Object.entries(parameters)) {
    const ok =
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value));
    if (!ok) {
      const got = typeof value === 'number' ? 'a non-finite number' : describe(value);
      issues.push(
        `parameter ${JSON.stringify(name)} must be a string, a finite number or a boolean, got ${got}`,
      );
    }
  }
}

const COMMON_KEYS = ['namespace', 'api', 'requestTimeout', 'signal'];
const DELETE_KEYS = ['dryRun', 'propagationPolicy'];

/** The options each call takes. Any other key is refused, never ignored (REPL and JS callers). */
type Call =
  'connect' | 'process' | 'create' | 'get' | 'delete' | 'get with resources' | 'delete with resources';

const OPTION_KEYS: Readonly<Record<Call, readonly string[]>> = {
  connect: [
    'kubeconfig',
    'context',
    'inCluster',
    'verifySsl',
    'requestTimeout',
    'signal',
    'maxSockets',
    'http2',
  ],
  process: [...COMMON_KEYS, 'templateNamespace'],
  create: [...COMMON_KEYS, 'templateNamespace', 'fieldManager', 'dryRun'],
  get: [...COMMON_KEYS, 'templateNamespace'],
  delete: [...COMMON_KEYS, 'templateNamespace', ...DELETE_KEYS],
  'get with resources': [...COMMON_KEYS, 'resources'],
  'delete with resources': [...COMMON_KEYS, 'resources', ...DELETE_KEYS],
};

const ALL_OPTION_KEYS: readonly string[] = [...new Set(Object.values(OPTION_KEYS).flat())];

/** Keys that belong to the other mode of the same operation. */
const TEMPLATE_ONLY_KEYS = ['templateNamespace', 'templateName', 'parameters'];

/** Levenshtein distance, small inputs only (option names). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function closest(key: string, candidates: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const limit = key.length <= 4 ? 1 : 2;
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = name.toLowerCase() === lower ? 0 : distance(lower, name.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function callsTaking(key: string): string[] {
  const names = Object.entries(OPTION_KEYS)
    .filter(([, keys]) => keys.includes(key))
    .map(([call]) => `${call.split(' ')[0] ?? call}()`);
  return [...new Set(names)];
}

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

/**
 * Refuses option keys the call does not take. A key whose value is `undefined` counts as absent,
 * so spreading one mode's options into the other with `key: undefined` works.
 */
function checkOptionKeys(call: Call, options: Record<string, unknown>, issues: Issues): void {
  const allowed = OPTION_KEYS[call];
  const operation = `${call.split(' ')[0] ?? call}()`;
  const referenceMode = call.endsWith('with resources');
  for (const key of Object.keys(options)) {
    if (options[key] === undefined || allowed.includes(key)) continue;
    if (referenceMode && TEMPLATE_ONLY_KEYS.includes(key)) {
      issues.push(
        `${key} cannot be combined with resources (reference mode and template mode are exclusive)`,
      );
      continue;
    }
    if (!referenceMode && key === 'resources' && call !== 'connect') {
      issues.push(
        `resources cannot be combined with a template name (reference mode and template mode are exclusive)`,
      );
      continue;
    }
    const near = closest(key, allowed);
    if (near !== undefined) {
      issues.push(`${key}: unknown option; did you mean ${near}?`);
      continue;
    }
    const other = closest(key, ALL_OPTION_KEYS);
    const elsewhere = other === undefined ? [] : callsTaking(other).filter((c) => c !== operation);
    if (other === undefined || elsewhere.length === 0) {
      issues.push(`${key}: unknown option of ${operation}; it takes ${allowed.join(', ')}`);
    } else if (other === key) {
      issues.push(`${key} is an option of ${listOf(elsewhere)}, not of ${operation}`);
    } else {
      issues.push(
        `${key}: unknown option; ${other} is an option of ${listOf(elsewhere)}, not of ${operation}`,
      );
    }
  }
}

function checkCommon(options: unknown, issues: Issues): options is Record<string, unknown> {
  if (!isRecord(options)) {
    issues.push(`options must be an object with at least a namespace, got ${describe(options)}`);
    return false;
  }
  checkNamespace(options.namespace, 'namespace', issues);
  checkTimeout(options.requestTimeout as RequestTimeout | undefined, 'requestTimeout', issues);
  checkSignal(options.signal, issues);
  return true;
}

function checkSignal(signal: unknown, issues: Issues): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) issues.push('signal must be an AbortSignal');
}

export function checkTemplateArguments(
  call: 'process' | 'create' | 'get' | 'delete',
  templateName: unknown,
  parameters: unknown,
  options: unknown,
): Issues {
  const issues: Issues = [];
  checkTemplateName(templateName, issues);
  checkParameters(parameters, issues);
  if (checkCommon(options, issues)) {
    checkOptionKeys(call, options, issues);
    if (options.templateNamespace !== undefined) {
      checkNamespace(options.templateNamespace, 'templateNamespace', issues);
    }
    if (
      call === 'create' &&
      options.fieldManager !== undefined &&
      (typeof options.fieldManager !== 'string' ||
        options.fieldManager === '' ||
        options.fieldManager.length > 128)
    ) {
      issues.push('fieldManager must be a non-empty string of at most 128 characters');
    }
    checkDeleteFlags(options, issues);
  }
  return issues;
}

function checkDeleteFlags(options: Record<string, unknown>, issues: Issues): void {
  if (options.dryRun !== undefined && typeof options.dryRun !== 'boolean')
    issues.push('dryRun must be a boolean');
  const policy = options.propagationPolicy;
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    issues.push('propagationPolicy must be "Foreground", "Background" or "Orphan"');
  }
}

export function checkReferenceArguments(call: 'get' | 'delete', options: unknown): Issues {
  const issues: Issues = [];
  if (!checkCommon(options, issues)) return issues;
  checkOptionKeys(`${call} with resources`, options, issues);
  checkDeleteFlags(options, issues);
  if (!Array.isArray(options.resources)) {
    issues.push('resources must be an array of references, or a template name must be given');
    return issues;
  }
  const namespace = options.namespace;
  const seen = new Set<string>();
  options.resources.forEach((ref: unknown, i) => {
    const at = `resources[${i}]`;
    if (!isRecord(ref)) {
      issues.push(`${at} must be an object { apiVersion, kind, namespace, name, uid? }`);
      return;
    }
    for (const key of ['apiVersion', 'kind', 'name', 'namespace'] as const) {
      if (typeof ref[key] !== 'string' || ref[key] === '')
        issues.push(`${at}.${key} must be a non-empty string`);
    }
    if (typeof ref.name === 'string' && ref.name !== '') {
      const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
      const problem = nameProblem(apiVersion, typeof ref.kind === 'string' ? ref.kind : '', ref.name);
      if (problem) issues.push(`${at}.name "${ref.name}" ${problem}`);
    }
    if (typeof ref.namespace === 'string' && ref.namespace !== '' && ref.namespace !== namespace) {
      issues.push(
        `${at} is in namespace "${ref.namespace}", not the target namespace "${String(namespace)}"`,
      );
    }
    if (ref.uid !== undefined && (typeof ref.uid !== 'string' || ref.uid === ''))
      issues.push(`${at}.uid must be a non-empty string when given`);
    const key = identityKey(ref as unknown as ResourceRef);
    if (seen.has(key)) issues.push(`${at} repeats ${describeRef(ref as unknown as ResourceRef)}`);
    seen.add(key);
  });
  return issues;
}

export function checkConnectOptions(options: unknown): Issues {
  const issues: Issues = [];
  if (options === undefined) return issues;
  if (!isRecord(options)) return [`options must be an object, got ${describe(options)}`];
  checkOptionKeys('connect', options, issues);
  const { kubeconfig, context, inCluster, verifySsl, maxSockets, http2 } = options;
  if (kubeconfig !== undefined && (typeof kubeconfig !== 'string' || kubeconfig === ''))
    issues.push('kubeconfig must be a non-empty path');
  if (context !== undefined && (typeof context !== 'string' || context === ''))
    issues.push('context must be a non-empty string');
  if (inCluster !== undefined && typeof inCluster !== 'boolean') issues.push('inCluster must be a boolean');
  if (verifySsl !== undefined && typeof verifySsl !== 'boolean') issues.push('verifySsl must be a boolean');
  if (http2 !== undefined && typeof http2 !== 'boolean') issues.push('http2 must be a boolean');
  if (inCluster === true && (kubeconfig !== undefined || context !== undefined)) {
    issues.push('inCluster cannot be combined with kubeconfig or context');
  }
  checkTimeout(options.requestTimeout as RequestTimeout | undefined, 'requestTimeout', issues);
  checkSignal(options.signal, issues);
  if (
    maxSockets !== undefined &&
    (typeof maxSockets !== 'number' || !Number.isInteger(maxSockets) || maxSockets < 1 || maxSockets > 1024)
  ) {
    issues.push('maxSockets must be a whole number from 1 to 1024');
  }
  return issues;
}

/** `"true"`/`"false"` for booleans, decimal text for numbers. */
function parameterText(value: string | number | boolean): string {
  return typeof value === 'string' ? value : String(value);
}

interface TemplateParameter {
  name?: unknown;
  value?: unknown;
  generate?: unknown;
  from?: unknown;
  [key: string]: unknown;
}

/**
 * A copy of a stored Template ready to POST for processing: overrides set (their generators
 * dropped), server-set metadata cleared. Unknown parameter names are problems, by name only.
 */
export function prepareTemplate(
  template: Record<string, unknown>,
  parameters: TemplateParameters | undefined,
): { template: Record<string, unknown>; issues: Issues } {
  const issues: Issues = [];
  const copy = structuredClone(template);
  const metadata = isRecord(copy.metadata) ? copy.metadata : {};
  copy.metadata = Object.fromEntries(
    KEPT_TEMPLATE_METADATA.filter((k) => metadata[k] !== undefined).map((k) => [k, metadata[k]]),
  );
  const declared = Array.isArray(copy.parameters)
    ? ((copy.parameters as unknown[]).filter(isRecord) as TemplateParameter[])
    : [];
  copy.parameters = declared;
  const byName = new Map(declared.map((p) => [typeof p.name === 'string' ? p.name : '', p]));
  for (const [name, value] of Object.entries(parameters ?? {})) {
    const parameter = byName.get(name);
    if (!parameter || name === '') {
      issues.push(`parameter ${JSON.stringify(name)} is not declared by the Template`);
      continue;
    }
    parameter.value = parameterText(value);
    delete parameter.generate;
    delete parameter.from;
  }
  return { template: copy, issues };
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

function identityKey(ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  return JSON.stringify([groupOf(ref.apiVersion), ref.kind, ref.namespace, ref.name]);
}

export function describeRef(ref: Pick<ResourceRef, 'kind' | 'name' | 'namespace'>): string {
  return `${ref.kind} "${ref.name}" in namespace "${ref.namespace}"`;
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

/**
 * Checks every rendered object and reports every problem: identity present and stable, kind
 * served and namespaced, namespace the target, no duplicates. Returns the targets when clean.
 */
export function checkRenderedObjects(
  objects: readonly unknown[],
  namespace: string,
  lookup: KindLookup,
): { targets: Target[]; issues: Issues } {
  const issues: Issues = [];
  const targets: Target[] = [];
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
    if (typeof name !== 'string' || name === '')
      issues.push(`${label} has no metadata.name (a stable name is required)`);
    else if (typeof apiVersion === 'string' && typeof kind === 'string') {
      const problem = nameProblem(apiVersion, kind, name);
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
    if (!found) issues.push(`${label}: kind ${kind} in ${apiVersion} is not served by the cluster`);
    else if (!found.namespaced)
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
  return { targets, issues };
}

/**
 * A core v1 Secret with `stringData` folded into base64 `data` (UTF-8; `stringData` wins on a
 * collision), on a copy. Server-side apply never removes a key that only `stringData` carried.
 */
export function normalizeSecret(object: KubernetesObject): KubernetesObject {
  if (object.apiVersion !== 'v1' || object.kind !== 'Secret' || !isRecord(object.stringData)) return object;
  const { stringData, ...rest } = object;
  const data = isRecord(rest.data) ? Object.entries(rest.data) : [];
  const folded = Object.entries(stringData).map(([key, value]) => [
    key,
    Buffer.from(typeof value === 'string' ? value : String(value), 'utf8').toString('base64'),
  ]);
  // Object.fromEntries defines own properties, so a key such as "__proto__" stays a plain key.
  return { ...rest, data: Object.fromEntries([...data, ...folded]) };
}

/** The values of every Secret among the objects, raw and base64: what no error may repeat. */
export function secretValues(objects: readonly unknown[]): string[] {
  const values: string[] = [];
  for (const object of objects) {
    if (!isRecord(object) || object.kind !== 'Secret') continue;
    for (const field of ['data', 'stringData']) {
      const map = object[field];
      if (!isRecord(map)) continue;
      for (const value of Object.values(map)) {
        if (typeof value !== 'string') continue;
        values.push(value);
        if (field === 'data') values.push(Buffer.from(value, 'base64').toString('utf8'));
        else values.push(Buffer.from(value, 'utf8').toString('base64'));
      }
    }
  }
  return values;
}

const PARAMETER_REFERENCE = /\$\{\{?([a-zA-Z0-9_]+)\}?\}/g;

function secretStrings(objects: readonly unknown[]): string[] {
  return objects
    .filter((o) => isRecord(o) && o.kind === 'Secret')
    .flatMap((secret) =>
      ['data', 'stringData'].flatMap((field) => {
        const map = (secret as Record<string, unknown>)[field];
        return isRecord(map) ? Object.values(map).filter((v): v is string => typeof v === 'string') : [];
      }),
    );
}

/**
 * The values that count as secret before rendering: those of parameters the stored Template feeds
 * into Secret `data`/`stringData`, and of parameters it would generate (passwords, keys), whether
 * given by the caller or the Template's default. Every other value (names, flags) stays readable.
 */
export function secretParameterValues(
  stored: Record<string, unknown>,
  parameters: TemplateParameters | undefined,
): string[] {
  const declared = Array.isArray(stored.parameters) ? (stored.parameters as unknown[]).filter(isRecord) : [];
  const objects = Array.isArray(stored.objects) ? (stored.objects as unknown[]) : [];
  const secret = new Set<string>();
  for (const text of secretStrings(objects)) {
    for (const match of text.matchAll(PARAMETER_REFERENCE)) if (match[1]) secret.add(match[1]);
  }
  for (const p of declared) {
    if (typeof p.name === 'string' && typeof p.generate === 'string' && p.generate !== '') secret.add(p.name);
  }
  const values: string[] = [];
  for (const name of secret) {
    const override =
      parameters !== undefined && Object.hasOwn(parameters, name) ? parameters[name] : undefined;
    if (override !== undefined) values.push(parameterText(override));
    const stored = declared.find((p) => p.name === name)?.value;
    if (typeof stored === 'string') values.push(stored);
  }
  return values;
}

export function checkProcessedTemplate(body: unknown): { objects: unknown[] } | undefined {
  if (!isRecord(body) || body.kind !== 'Template' || !Array.isArray(body.objects)) return undefined;
  return { objects: body.objects as unknown[] };
}

export { isRecord };
