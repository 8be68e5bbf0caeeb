// Secret objects: `stringData` folded into `data` before apply, and every value that no error,
// debug line or warning may repeat (rendered Secret data, and parameters that feed it).
import { hasText, isRecord } from '../util/json.ts';
import type { KubernetesObject, TemplateParameters } from '../types/index.ts';
import { parameterText } from './parameters.ts';

/**
 * A copy of a core v1 Secret with `stringData` folded into base64 `data` as kube-apiserver folds it
 * (`stringData` wins, `null` is empty), so that no key survives only there. A value that is neither
 * a string nor null leaves the Secret as it is, for typing or the server to refuse.
 *
 * @example
 * normalizeSecret({ apiVersion: 'v1', kind: 'Secret', stringData: { user: 'app', empty: null } });
 * // { apiVersion: 'v1', kind: 'Secret', data: { user: 'YXBw', empty: '' } }
 */
export function normalizeSecret(object: KubernetesObject): KubernetesObject {
  if (object.apiVersion !== 'v1' || object.kind !== 'Secret' || !isRecord(object.stringData)) return object;
  if (!Object.values(object.stringData).every((v) => typeof v === 'string' || v === null)) return object;
  const { stringData, ...rest } = object;
  const data = isRecord(rest.data) ? Object.entries(rest.data) : [];
  const folded = Object.entries(stringData).map(([key, value]) => [
    key,
    Buffer.from(typeof value === 'string' ? value : '', 'utf8').toString('base64'),
  ]);
  // Object.fromEntries defines own properties, so a key such as "__proto__" stays a plain key.
  return { ...rest, data: Object.fromEntries([...data, ...folded]) };
}

/** Each string value of the Secrets' `data` and `stringData`, with its field. */
function secretStrings(objects: readonly unknown[]): [field: string, value: string][] {
  return objects
    .filter((o) => isRecord(o) && o.kind === 'Secret')
    .flatMap((secret) =>
      ['data', 'stringData'].flatMap((field) => {
        const map = (secret as Record<string, unknown>)[field];
        const values = isRecord(map) ? Object.values(map) : [];
        return values.filter((v) => typeof v === 'string').map((v): [string, string] => [field, v]);
      }),
    );
}

/** The values of every Secret among the objects, raw and base64: what no error may repeat. */
export function secretValues(objects: readonly unknown[]): string[] {
  return secretStrings(objects).flatMap(([field, value]) => [
    value,
    field === 'data'
      ? Buffer.from(value, 'base64').toString('utf8')
      : Buffer.from(value, 'utf8').toString('base64'),
  ]);
}

const PARAMETER_REFERENCE = /\$\{\{?([a-zA-Z0-9_]+)\}?\}/g;

/**
 * The values secret before rendering, the caller's or the default: of parameters the stored Template
 * feeds into Secret data, and of those it would generate. Every other value stays readable.
 */
export function secretParameterValues(
  stored: Record<string, unknown>,
  parameters: TemplateParameters | undefined,
): string[] {
  const declared = Array.isArray(stored.parameters) ? (stored.parameters as unknown[]).filter(isRecord) : [];
  const objects = Array.isArray(stored.objects) ? (stored.objects as unknown[]) : [];
  const secret = new Set<string>();
  for (const [, text] of secretStrings(objects)) {
    for (const match of text.matchAll(PARAMETER_REFERENCE)) if (match[1]) secret.add(match[1]);
  }
  for (const p of declared) {
    if (typeof p.name === 'string' && hasText(p.generate)) secret.add(p.name);
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
