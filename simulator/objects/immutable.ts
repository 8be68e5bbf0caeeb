// Fields kube-apiserver's strategies refuse to change once set (their ValidateUpdate, run inside the
// write, dry runs too: k8s.io/apiserver pkg/registry/rest/update.go BeforeUpdate). Only the one a
// Template re-applies most often is modelled: a Service's clusterIP
// (kubernetes pkg/apis/core/validation/validation.go ValidateServiceUpdate, "may not change once set").
import type { ResourceInfo } from '../types.ts';
import { isObject, type JsonObject, str } from './fields.ts';
import { invalid } from './status.ts';

const clusterIP = (object: JsonObject): string => (isObject(object.spec) ? str(object.spec.clusterIP) : '');

/**
 * Refuses an update of `live` into `result` that changes a field fixed once set, as the real
 * server words it (the value printed as Go's JSON of the new list, as kube-apiserver 1.34 prints it).
 *
 * @example
 * checkImmutable(info, 'db', live, applied); // throws 422 when spec.clusterIP changed
 */
export function checkImmutable(info: ResourceInfo, name: string, live: JsonObject, result: JsonObject): void {
  if (info.group !== '' || info.name !== 'services') return;
  const [before, after] = [clusterIP(live), clusterIP(result)];
  // An apply that leaves clusterIP out keeps the allocated one (the Service REST's patchAllocatedValues).
  if (before === '' || after === '' || after === before) return;
  throw invalid({ group: '', kind: 'Service' }, name, [
    {
      type: 'Invalid',
      field: 'spec.clusterIPs[0]',
      value: JSON.stringify([after]),
      detail: 'may not change once set',
    },
  ]);
}
