// Checks that run before any mutating request. Pure functions: data in, problems out, no I/O.
import type { KubernetesObject, RequestTimeout, ResourceRef, TemplateParameters } from './types.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Server-set Template metadata that must not be sent back when processing a copy. */
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

export function checkNamespace(value: unknown, label: string, issues: Issues): void {
  if (typeof value !== 'string') issues.push(`${label} must be a string, got ${describe(value)}`);
  else if (value === '') issues.push(`${label} must not be empty`);
  else if (value.length > 63 || !DNS1123_LABEL.test(value)) {
    issues.push(`${label} "${value}" is not a valid namespace name (DNS-1123 label)`);
  }
}

export function checkTemplateName(value: unknown, issues: Issues): void {
  if (typeof value !== 'string') issues.push(`templateName must be a string, got ${describe(value)}`);
  else if (value === '') issues.push('templateName must not be empty');
  else if (value.length > 253 || !DNS1123_SUBDOMAIN.test(value)) {
    issues.push(`templateName "${value}" is not a valid name (DNS-1123 subdomain)`);
  }
}

function checkTimeout(value: RequestTimeout | undefined, label: string, issues: Issues): void {
  if (value === undefined) return;
  const valid = (n: unknown): boolean => typeof n === 'number' && Number.isFinite(n) && n > 0;
  if (
    typeof value === 'number'
      ? !valid(value)
      : !isRecord(value) || !valid(value.connect) || !valid(value.read)
  ) {
    issues.push(`${label} must be a positive number of milliseconds or { connect, read } of them`);
  }
}

/** Names, never values: a parameter value may be a secret. */
export function checkParameters(parameters: unknown, issues: Issues): void {
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

export function checkCommon(options: unknown, issues: Issues): options is Record<string, unknown> {
  if (!isRecord(options)) {
    issues.push(`options must be an object with at least a namespace, got ${describe(options)}`);
    return false;
  }
  checkNamespace(options.namespace, 'namespace', issues);
  checkTimeout(options.requestTimeout as RequestTimeout | undefined, 'requestTimeout', issues);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    issues.push('signal must be an AbortSignal');
  return true;
}

export function checkTemplateArguments(templateName: unknown, parameters: unknown, options: unknown): Issues {
  const issues: Issues = [];
  checkTemplateName(templateName, issues);
  checkParameters(parameters, issues);
  if (checkCommon(options, issues)) {
    if ('templateNamespace' in options && options.templateNamespace !== undefined) {
      checkNamespace(options.templateNamespace, 'templateNamespace', issues);
    }
    if ('resources' in options)
      issues.push(
        'resources cannot be combined with a template name (reference mode and template mode are exclusive)',
      );
    if (
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

export function checkReferenceArguments(options: unknown): Issues {
  const issues: Issues = [];
  if (!checkCommon(options, issues)) return issues;
  for (const key of ['templateNamespace', 'templateName', 'parameters']) {
    if (key in options)
      issues.push(
        `${key} cannot be combined with resources (reference mode and template mode are exclusive)`,
      );
  }
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
    if (typeof ref.name === 'string' && ref.name !== '' && !DNS1123_SUBDOMAIN.test(ref.name)) {
      issues.push(`${at}.name "${ref.name}" is not a valid object name`);
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
  const { kubeconfig, context, inCluster, verifySsl } = options;
  if (kubeconfig !== undefined && (typeof kubeconfig !== 'string' || kubeconfig === ''))
    issues.push('kubeconfig must be a non-empty path');
  if (context !== undefined && (typeof context !== 'string' || context === ''))
    issues.push('context must be a non-empty string');
  if (inCluster !== undefined && typeof inCluster !== 'boolean') issues.push('inCluster must be a boolean');
  if (verifySsl !== undefined && typeof verifySsl !== 'boolean') issues.push('verifySsl must be a boolean');
  if (inCluster === true && (kubeconfig !== undefined || context !== undefined)) {
    issues.push('inCluster cannot be combined with kubeconfig or context');
  }
  checkTimeout(options.requestTimeout as RequestTimeout | undefined, 'requestTimeout', issues);
  return issues;
}

/** `"true"`/`"false"` for booleans, decimal text for numbers. */
export function parameterText(value: string | number | boolean): string {
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

export function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
}

export function identityKey(ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
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
    else if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name))
      issues.push(`${label} has an invalid metadata.name`);
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

export function checkProcessedTemplate(body: unknown): { objects: unknown[] } | undefined {
  if (!isRecord(body) || body.kind !== 'Template' || !Array.isArray(body.objects)) return undefined;
  return { objects: body.objects as unknown[] };
}

export { isRecord };
