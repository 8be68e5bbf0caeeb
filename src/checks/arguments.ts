// Checks of the arguments each call is given, before anything is sent. Names, never values.
import { describe, isRecord } from '../util/json.ts';
import { nameProblem } from './names.ts';
import { labelProblems } from './labels.ts';
import { checkOptionKeys } from './option-keys.ts';
import { isTemplateObject, templateObjectProblems } from './template-source.ts';
import type { RequestTimeout, ResourceRef } from '../types/index.ts';
import { describeRef, identityKey, type Issues } from './refs.ts';

function checkNamespace(value: unknown, label: string, issues: Issues): void {
  if (value === undefined && label === 'namespace') {
    issues.push(
      'namespace is required: the namespace every object is rendered, applied, read and deleted in ' +
        "(the kubeconfig context's namespace is deliberately not used, so that a job never acts " +
        'wherever a context happens to point)',
    );
  } else if (typeof value !== 'string') issues.push(`${label} must be a string, got ${describe(value)}`);
  else if (value === '') issues.push(`${label} must not be empty`);
  else if (nameProblem('v1', 'Namespace', value) !== undefined) {
    issues.push(`${label} "${value}" is not a valid namespace name (DNS-1123 label)`);
  }
}

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

/** The longest delay a Node.js timer holds (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

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

function checkCommon(options: unknown, issues: Issues): options is Record<string, unknown> {
  if (!isRecord(options)) {
    issues.push(`options must be an object with at least a namespace, got ${describe(options)}`);
    return false;
  }
  checkNamespace(options.namespace, 'namespace', issues);
  checkTimeout(options.requestTimeout as RequestTimeout | undefined, 'requestTimeout', issues);
  checkSignal(options.signal, issues);
  checkHandler(options.onWarning, issues);
  return true;
}

function checkHandler(handler: unknown, issues: Issues): void {
  if (handler !== undefined && typeof handler !== 'function')
    issues.push(`onWarning must be a function that takes a ServerWarning, got ${describe(handler)}`);
}

const FIELD_VALIDATION = ['Strict', 'Warn', 'Ignore'];
const PREFLIGHT = ['server', 'schema'];

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
      if (isTemplateObject(templateName))
        issues.push('templateNamespace cannot be combined with a Template object, which is not stored');
      else checkNamespace(options.templateNamespace, 'templateNamespace', issues);
    }
    issues.push(...labelProblems(options.labels));
    if (
      (call === 'create' || call === 'delete') &&
      options.fieldManager !== undefined &&
      (typeof options.fieldManager !== 'string' ||
        options.fieldManager === '' ||
        options.fieldManager.length > 128)
    ) {
      issues.push('fieldManager must be a non-empty string of at most 128 characters');
    }
    const validation = options.fieldValidation;
    if (call === 'create' && validation !== undefined && !FIELD_VALIDATION.includes(validation as string)) {
      issues.push('fieldValidation must be "Strict", "Warn" or "Ignore"');
    }
    if (
      call === 'create' &&
      options.preflight !== undefined &&
      !PREFLIGHT.includes(options.preflight as string)
    )
      issues.push('preflight must be "server" or "schema"');
    checkDeleteFlags(options, issues);
    checkOwnership(options, issues);
    checkMissing(options.missing, issues);
  }
  return issues;
}

function checkOwnership(options: Record<string, unknown>, issues: Issues): void {
  const { ownership } = options;
  if (ownership !== undefined && ownership !== 'manager' && ownership !== 'any')
    issues.push(`ownership must be "manager" or "any", got ${describe(ownership)}`);
  // A delete by name reads no owner: a fieldManager given with it would be ignored, never used.
  if (ownership === 'any' && options.fieldManager !== undefined)
    issues.push('fieldManager cannot be combined with ownership "any", which deletes by name');
}

function checkMissing(missing: unknown, issues: Issues): void {
  if (missing !== undefined && missing !== 'error' && missing !== 'null')
    issues.push(`missing must be "error" or "null", got ${describe(missing)}`);
}

function checkBooleans(options: Record<string, unknown>, keys: readonly string[], issues: Issues): void {
  for (const key of keys)
    if (options[key] !== undefined && typeof options[key] !== 'boolean')
      issues.push(`${key} must be a boolean`);
}

function checkDeleteFlags(options: Record<string, unknown>, issues: Issues): void {
  checkBooleans(options, ['dryRun', 'adopt'], issues);
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
  checkMissing(options.missing, issues);
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
      const kind = typeof ref.kind === 'string' ? ref.kind : '';
      const inNamespace = typeof namespace === 'string' ? namespace : undefined;
      const problem = nameProblem(apiVersion, kind, ref.name, inNamespace);
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
  const { kubeconfig, context, inCluster, maxSockets } = options;
  if (kubeconfig !== undefined && (typeof kubeconfig !== 'string' || kubeconfig === ''))
    issues.push('kubeconfig must be a non-empty path');
  // Content where a path belongs would be quoted in "no such file" and may hold a token.
  else if (typeof kubeconfig === 'string' && /[\r\n]|^\s*[{[]/.test(kubeconfig))
    issues.push('kubeconfig must be the path of a kubeconfig file, not its content (not repeated here)');
  if (context !== undefined && (typeof context !== 'string' || context === ''))
    issues.push('context must be a non-empty string');
  checkBooleans(options, ['inCluster', 'verifySsl', 'http2'], issues);
  checkHandler(options.onWarning, issues);
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
