// Checks of the arguments each call is given, before anything is sent. Names, never values.
import { describe, hasText, isRecord } from '../util/json.ts';
import { nameProblem } from './names.ts';
import { type Call, checkOptions } from './options.ts';
import { isTemplateObject, templateObjectProblems } from './template-source.ts';
import type { ResourceRef } from '../types/index.ts';
import { describeRef, identityKey, type Issues } from './refs.ts';

function checkTemplateName(value: unknown, issues: Issues): void {
  if (isTemplateObject(value)) issues.push(...templateObjectProblems(value));
  else if (typeof value !== 'string')
    issues.push(
      `templateName must be a string or a Template object (kind "Template"), got ${describe(value)}`,
    );
  else if (value === '') issues.push('templateName must not be empty');
  else {
    const problem = nameProblem('template.openshift.io/v1', 'Template', value);
    if (problem) issues.push(`templateName "${value}" ${problem}`);
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
    if (typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value)) continue;
    const got = typeof value === 'number' ? 'a non-finite number' : describe(value);
    issues.push(
      `parameter ${JSON.stringify(name)} must be a string, a finite number or a boolean, got ${got}`,
    );
  }
}

/** The checks every operation shares; false when `options` is not even an object. */
function checkCommon(call: Call, options: unknown, issues: Issues): options is Record<string, unknown> {
  if (!isRecord(options)) {
    issues.push(`options must be an object with at least a namespace, got ${describe(options)}`);
    return false;
  }
  if (options.namespace === undefined)
    issues.push(
      'namespace is required: the namespace every object is rendered, applied, read and deleted in ' +
        "(the kubeconfig context's namespace is deliberately not used, so that a job never acts " +
        'wherever a context happens to point)',
    );
  checkOptions(call, options, issues);
  return true;
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
  if (!checkCommon(call, options, issues)) return issues;
  if (options.templateNamespace !== undefined && isTemplateObject(templateName))
    issues.push('templateNamespace cannot be combined with a Template object, which is not stored');
  // A delete by name reads no owner: a fieldManager given with it would be ignored, never used.
  if (call === 'delete' && options.ownership === 'any' && options.fieldManager !== undefined)
    issues.push('fieldManager cannot be combined with ownership "any", which deletes by name');
  return issues;
}

export function checkReferenceArguments(call: 'get' | 'delete', options: unknown): Issues {
  const issues: Issues = [];
  if (!checkCommon(`${call} with resources`, options, issues)) return issues;
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
    if (hasText(ref.name)) {
      const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
      const kind = typeof ref.kind === 'string' ? ref.kind : '';
      const inNamespace = typeof namespace === 'string' ? namespace : undefined;
      const problem = nameProblem(apiVersion, kind, ref.name, inNamespace);
      if (problem) issues.push(`${at}.name "${ref.name}" ${problem}`);
    }
    if (hasText(ref.namespace) && ref.namespace !== namespace) {
      issues.push(
        `${at} is in namespace "${ref.namespace}", not the target namespace "${String(namespace)}"`,
      );
    }
    if (ref.uid !== undefined && !hasText(ref.uid))
      issues.push(`${at}.uid must be a non-empty string when given`);
    const key = identityKey(ref as unknown as ResourceRef);
    if (seen.has(key)) issues.push(`${at} repeats ${describeRef(ref as unknown as ResourceRef)}`);
    seen.add(key);
  });
  return issues;
}

export function checkConnectOptions(options: unknown): Issues {
  if (options === undefined) return [];
  if (!isRecord(options)) return [`options must be an object, got ${describe(options)}`];
  const issues: Issues = [];
  checkOptions('connect', options, issues);
  if (options.inCluster === true && (options.kubeconfig !== undefined || options.context !== undefined))
    issues.push('inCluster cannot be combined with kubeconfig or context');
  return issues;
}
