// Secret objects: `stringData` folded into `data` before apply, and every value that no error,
// debug line or warning may repeat (rendered Secret data, and parameters that feed it).
import { isRecord } from '../util/json.ts';
import type { KubernetesObject, TemplateParameters } from '../types/index.ts';
import { parameterText } from './parameters.ts';

/**
 * A core v1 Secret with `stringData` folded into base64 `data` (UTF-8; `stringData` wins on a
 * collision), on a copy, as kube-apiserver folds it (kubernetes `pkg/apis/core/v1/conversion.go`
 * Convert_v1_Secret_To_core_Secret, after the value was converted into a `map[string]string`, where
 * `null` is the empty string). Server-side apply never removes a key that only `stringData` carried.
 * A value that is neither a string nor null is never turned into text: the Secret is left as it
 * is, for typing (or, untyped, the server) to refuse.
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
