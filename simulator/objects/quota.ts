// kube-apiserver's ResourceQuota admission (k8s.io/apiserver pkg/admission/plugin/resourcequota/
// controller.go, CheckRequest and checkQuotas) for creates: every quota of the namespace without
// scopes whose `status.hard` names a resource the object uses is checked against `status.used`,
// a dry run alike, and only a real write is charged (the plugin skips a dry run's status update).
// What an object uses is counted as pkg/quota/v1/evaluator/core counts it: one of
// `count/<resource>[.<group>]` and of the core kinds' legacy names, a PVC's storage request.
// No controller recalculates usage: a delete gives nothing back, as on a server whose quota
// controller has not run yet.
import { findResource } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import { isObject, type Json, type JsonObject, meta, str } from './fields.ts';
import { quantityNanos } from './quantity.ts';
import { StatusError } from './status.ts';
import type { ObjectStore } from './store.ts';

const NANO = 1_000_000_000n;
const LEGACY = [
  'pods',
  'services',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'replicationcontrollers',
];
const BINARY = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'];

/** The quota resources an object of `info` is counted under, with what it uses of each. */
function usage(info: ResourceInfo, object: JsonObject): Map<string, bigint> {
  const used = new Map<string, bigint>();
  used.set(info.group === '' ? `count/${info.name}` : `count/${info.name}.${info.group}`, NANO);
  if (info.group !== '') return used;
  if (LEGACY.includes(info.name) || info.name === 'resourcequotas') used.set(info.name, NANO);
  if (info.name === 'persistentvolumeclaims') {
    const spec = isObject(object.spec) ? object.spec : {};
    const resources = isObject(spec.resources) ? spec.resources : {};
    const requests = isObject(resources.requests) ? resources.requests : {};
    used.set('requests.storage', quantityNanos(requests.storage) ?? 0n);
  }
  return used;
}

/** A quantity as Go's resource.Quantity writes a whole number: the largest binary unit that divides it. */
function quantityText(value: bigint): string {
  const whole = value / NANO;
  for (const [i, unit] of BINARY.entries()) {
    const size = 1024n ** BigInt(BINARY.length - i);
    if (whole !== 0n && whole % size === 0n) return `${String(whole / size)}${unit}`;
  }
  return String(whole);
}

const listText = (entries: [string, string][]): string =>
  entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/** One create as quota admission judges it: the kind, where, the object, and whether it is a dry run. */
export interface QuotaWrite {
  info: ResourceInfo;
  namespace: string;
  object: JsonObject;
  dryRun: boolean;
}

function refusal(write: QuotaWrite, why: string): StatusError {
  const name = str(meta(write.object).name);
  const resource = write.info.group === '' ? write.info.name : `${write.info.name}.${write.info.group}`;
  return new StatusError(403, 'Forbidden', `${resource} "${name}" is forbidden: ${why}`, {
    name,
    ...(write.info.group === '' ? {} : { group: write.info.group }),
    kind: write.info.name,
  });
}

/**
 * Checks a create against the namespace's quotas (403 as the plugin words it) and, for a real
 * write, charges each quota it counts against.
 *
 * @example
 * admitQuota(store, resources, { info, namespace: 'workers', object, dryRun: true });
 */
export function admitQuota(store: ObjectStore, resources: readonly ResourceInfo[], write: QuotaWrite): void {
  // Behind kube-apiserver's aggregator the simulator serves no ResourceQuotas (kube-apiserver
  // holds them), so it has none to judge by: openshift-apiserver's own quota admission is not modelled.
  const quotaInfo = findResource(resources, '', 'v1', 'resourcequotas');
  if (!write.info.namespaced || quotaInfo === undefined) return;
  const items = store.list(quotaInfo, write.namespace).items;
  const uses = usage(write.info, write.object);
  const charges: { name: string; status: JsonObject }[] = [];
  for (const quota of Array.isArray(items) ? items.filter(isObject) : []) {
    const spec = isObject(quota.spec) ? quota.spec : {};
    if ((Array.isArray(spec.scopes) && spec.scopes.length > 0) || spec.scopeSelector !== undefined) continue;
    const status = isObject(quota.status) ? quota.status : {};
    const hard = isObject(status.hard) ? status.hard : {};
    const used = isObject(status.used) ? status.used : {};
    const restricted = Object.keys(hard).filter((r) => uses.has(r));
    if (restricted.length === 0) continue;
    const name = str(meta(quota).name);
    if (restricted.some((r) => used[r] === undefined))
      throw refusal(
        write,
        `status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`,
      );
    const requested = restricted.filter((r) => (uses.get(r) ?? 0n) > 0n);
    const after = new Map(requested.map((r) => [r, (quantityNanos(used[r]) ?? 0n) + (uses.get(r) ?? 0n)]));
    const exceeded = requested.filter((r) => (after.get(r) ?? 0n) > (quantityNanos(hard[r]) ?? 0n));
    if (exceeded.length > 0) {
      const part = (value: (r: string) => string): string => listText(exceeded.map((r) => [r, value(r)]));
      const why =
        `exceeded quota: ${name}, requested: ${part((r) => quantityText(uses.get(r) ?? 0n))}, ` +
        `used: ${part((r) => str(used[r]))}, limited: ${part((r) => str(hard[r]))}`;
      throw refusal(write, why);
    }
    const charged: Record<string, Json> = { ...used };
    for (const r of requested) charged[r] = quantityText(after.get(r) ?? 0n);
    charges.push({ name, status: { ...status, used: charged } });
  }
  // A dry run is checked, never charged (checkQuotas: "Don't update quota for ... dry-run requests").
  if (write.dryRun) return;
  for (const { name, status } of charges) store.setStatus(quotaInfo, write.namespace, name, status);
}
