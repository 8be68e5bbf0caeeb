// Where a template operation's Template comes from: a stored Template's name (`oc process NAME`),
// or a Template object the caller parsed itself (`oc process -f FILE`).
import { describe, hasText, isRecord } from '../util/json.ts';
import { nameProblem } from './names.ts';
import type { TemplateObject } from '../types/index.ts';

const TEMPLATE_API_VERSION = 'template.openshift.io/v1';
/** OpenShift 3 wrote Templates without a group; the processing endpoint wants the group's version. */
const LEGACY_API_VERSION = 'v1';

/** A stored Template's name, or a Template object. */
export type TemplateSource = string | TemplateObject;

export function isTemplateObject(value: unknown): value is TemplateObject {
  return isRecord(value) && value.kind === 'Template';
}

/** How messages and traces name the Template: its name, or the object's `metadata.name`. */
export function sourceName(source: unknown): string | undefined {
  if (typeof source === 'string') return source;
  if (!isTemplateObject(source)) return undefined;
  const name = source.metadata?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Problems of a Template object, by field: never a value from it but its name. */
export function templateObjectProblems(template: Record<string, unknown>): string[] {
  const issues: string[] = [];
  const { apiVersion } = template;
  if (apiVersion !== TEMPLATE_API_VERSION && apiVersion !== LEGACY_API_VERSION)
    issues.push(`template.apiVersion must be "${TEMPLATE_API_VERSION}" (or the legacy "v1")`);
  const name = isRecord(template.metadata) ? template.metadata.name : undefined;
  if (!hasText(name))
    issues.push(
      'template.metadata.name must be a non-empty string: errors and traces name the Template by it',
    );
  else {
    const problem = nameProblem(TEMPLATE_API_VERSION, 'Template', name);
    if (problem) issues.push(`template.metadata.name "${name}" ${problem}`);
  }
  if (template.objects !== undefined && !Array.isArray(template.objects))
    issues.push(`template.objects must be an array, got ${describe(template.objects)}`);
  if (template.parameters !== undefined && !Array.isArray(template.parameters))
    issues.push(`template.parameters must be an array, got ${describe(template.parameters)}`);
  return issues;
}

/** The caller's Template as the processing endpoint takes it, on a shallow copy. */
export function asProcessable(template: TemplateObject): Record<string, unknown> {
  return { ...template, apiVersion: TEMPLATE_API_VERSION };
}
