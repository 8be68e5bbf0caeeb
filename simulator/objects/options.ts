// The write options a request carries in its query or its DeleteOptions body, checked as the
// API server checks them.
import { isObject, type Json } from './fields.ts';
import { invalid } from './status.ts';
import type { DeleteOptions } from './store.ts';

/** `dryRun=All` or nothing; any other value is 422 on the named options kind. */
export function dryRunValues(query: URLSearchParams, kind: string): boolean {
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) {
    throw invalid({ group: 'meta.k8s.io', kind }, '', [
      {
        type: 'Unsupported',
        field: 'dryRun',
        value: `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`,
        detail: 'supported values: "All"',
      },
    ]);
  }
  return values.length > 0;
}

export function deleteOptionsFromQuery(query: URLSearchParams): DeleteOptions {
  const policy = query.get('propagationPolicy');
  return {
    dryRun: dryRunValues(query, 'DeleteOptions'),
    ...(policy !== null ? { propagationPolicy: policy } : {}),
  };
}

export function deleteOptionsFromBody(body: unknown): DeleteOptions {
  const options = isObject(body) ? body : {};
  const preconditions = isObject(options.preconditions) ? options.preconditions : {};
  const dryRun = Array.isArray(options.dryRun) ? options.dryRun : [];
  const query = new URLSearchParams(
    dryRun.map((v: Json): [string, string] => ['dryRun', typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return {
    dryRun: dryRunValues(query, 'DeleteOptions'),
    ...(typeof preconditions.uid === 'string' ? { uid: preconditions.uid } : {}),
    ...(typeof preconditions.resourceVersion === 'string'
      ? { resourceVersion: preconditions.resourceVersion }
      : {}),
    ...(typeof options.propagationPolicy === 'string'
      ? { propagationPolicy: options.propagationPolicy }
      : {}),
  };
}
