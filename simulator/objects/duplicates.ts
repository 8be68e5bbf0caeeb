// An apply body's strict decoding after typing (k8s.io/apiserver pkg/endpoints/handlers/patch.go
// applyPatcher): for an apply, `fieldValidation` governs only keys given twice, a warning under
// `Warn` (the default), a 400 under `Strict`, nothing under `Ignore`.
import { StatusError } from './status.ts';

/**
 * Fields given twice in a JSON body, in the words of the YAML decoder kube-apiserver runs
 * (`line N: key "k" already set in map`); JSON is YAML, so an apply body in JSON is read the same.
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const keys: Set<string>[] = [];
  let line = 1;
  for (let at = 0; at < text.length; at++) {
    const c = text.charAt(at);
    if (c === '\n') line += 1;
    else if (c === '{') keys.push(new Set());
    else if (c === '}') keys.pop();
    else if (c === '"') {
      let value = '';
      for (at += 1; at < text.length && text.charAt(at) !== '"'; at++) {
        if (text.charAt(at) === '\\') at += 1;
        value += text.charAt(at);
      }
      const rest = text.slice(at + 1).trimStart();
      const current = keys.at(-1);
      if (rest.startsWith(':') && current) {
        if (current.has(value)) found.push(`line ${line}: key ${JSON.stringify(value)} already set in map`);
        current.add(value);
      }
    }
  }
  return found;
}

/** The warnings an apply body's duplicate keys draw, or the StatusError that refuses it. */
export function checkDuplicateFields(body: string, fieldValidation: string | null): string[] {
  if (fieldValidation === 'Ignore') return [];
  const duplicates = duplicateFields(body);
  if (duplicates.length === 0) return [];
  if (fieldValidation === 'Strict') {
    throw new StatusError(
      400,
      'BadRequest',
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`,
    );
  }
  return duplicates;
}
