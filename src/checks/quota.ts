// The batch's sum against the namespace's ResourceQuotas: quota is checked per request and charged
// only on writes, so N objects may each pass a dry run that together exceed it (docs/preflight.md).
import { type OperationFailure, RequestError } from '../errors.ts';
import type { ResourceRef } from '../types/index.ts';
import { isRecord } from '../util/json.ts';
import { BINARY, NANO, quantityNanos, readQuantity } from '../util/quantity.ts';
import { groupOf } from './names.ts';
import { describeRef } from './refs.ts';

/** An object the batch would create; `unsure` when no dry run said it would be created. */
export interface Planned {
  group: string;
  resource: string;
  object: unknown;
  unsure?: boolean;
}

interface QuotaExcess {
  resource: string;
  hard: string;
  used: string;
  need: string;
}

/** `first`, set when the sum is exact, indexes the first planned object past the limit. */
interface ExceededQuota {
  quota: string;
  excess: QuotaExcess[];
  first?: number;
}

/** The core resources quota also counts under their legacy names (pkg/quota/v1/evaluator/core). */
const LEGACY_COUNTS = new Set([
  'pods',
  'services',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'replicationcontrollers',
  'resourcequotas',
]);
const STORAGE_CLASS = '.storageclass.storage.k8s.io/';

/** A Kubernetes quantity in billionths, rounded up as resource.Quantity rounds; `undefined` for what is not one. */
export function parseQuantity(text: unknown): bigint | undefined {
  if (typeof text !== 'string') return undefined;
  const read = readQuantity(text);
  return typeof read === 'string' ? undefined : quantityNanos(read);
}

/** A sum in billionths, written as a quantity: the largest binary unit that divides it, else whole. */
function formatQuantity(value: bigint): string {
  if (value % NANO !== 0n) return `${String((value * 1000n + NANO - 1n) / NANO)}m`;
  const whole = value / NANO;
  for (const [unit, power] of Object.entries(BINARY).reverse()) {
    const size = 1024n ** power;
    if (whole >= size && whole % size === 0n) return `${String(whole / size)}${unit}`;
  }
  return String(whole);
}

const field = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), value);

const isCore = (p: Planned, resource: string): boolean => p.group === '' && p.resource === resource;

/** What one created object adds to a quota resource, in billionths. */
function usageOf(name: string, p: Planned): bigint {
  if (name.startsWith('count/')) {
    const [resource = '', ...group] = name.slice('count/'.length).split('.');
    return p.resource === resource && p.group === group.join('.') ? NANO : 0n;
  }
  if (LEGACY_COUNTS.has(name)) return isCore(p, name) ? NANO : 0n;
  if (isCore(p, 'services')) return serviceUsage(name, p.object);
  if (!isCore(p, 'persistentvolumeclaims')) return 0n;
  // Counted in whole bytes, as the evaluator rounds a request up.
  const requested = parseQuantity(field(p.object, 'spec', 'resources', 'requests', 'storage')) ?? 0n;
  const storage = ((requested + NANO - 1n) / NANO) * NANO;
  if (name === 'requests.storage') return storage;
  const at = name.indexOf(STORAGE_CLASS);
  if (at <= 0 || storageClassOf(p.object) !== name.slice(0, at)) return 0n;
  const what = name.slice(at + STORAGE_CLASS.length);
  if (what === 'requests.storage') return storage;
  return what === 'persistentvolumeclaims' ? NANO : 0n;
}

/** A LoadBalancer that allocates no node ports counts only the ports that name one (services.go). */
function serviceUsage(name: string, service: unknown): bigint {
  const type = field(service, 'spec', 'type');
  const ports = field(service, 'spec', 'ports');
  const list: unknown[] = Array.isArray(ports) ? ports : [];
  if (name === 'services.loadbalancers') return type === 'LoadBalancer' ? NANO : 0n;
  if (name !== 'services.nodeports' || (type !== 'NodePort' && type !== 'LoadBalancer')) return 0n;
  const noneAllocated =
    type === 'LoadBalancer' && field(service, 'spec', 'allocateLoadBalancerNodePorts') === false;
  const named = (port: unknown): boolean => {
    const nodePort = field(port, 'nodePort');
    return typeof nodePort === 'number' && nodePort !== 0;
  };
  const counted = noneAllocated ? list.filter(named) : list;
  return BigInt(counted.length) * NANO;
}

/** The beta annotation first, as quota charges a claim's class. */
function storageClassOf(claim: unknown): unknown {
  const annotation = field(claim, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class');
  return annotation ?? field(claim, 'spec', 'storageClassName');
}

/** The resources the exact sum exceeds, with the first object past the limit, else those the estimate does. */
function excessOf(quota: unknown, planned: readonly Planned[]): Omit<ExceededQuota, 'quota'> {
  const hard = field(quota, 'status', 'hard');
  const used = field(quota, 'status', 'used');
  const exact: QuotaExcess[] = [];
  const estimated: QuotaExcess[] = [];
  let first: number | undefined;
  for (const [name, limit] of Object.entries(isRecord(hard) ? hard : {})) {
    const spent = isRecord(used) ? used[name] : undefined;
    const [cap, taken] = [parseQuantity(limit), parseQuantity(spent)];
    // Without its usage the server refuses every dry run it covers ("status unknown for quota").
    if (cap === undefined || taken === undefined) continue;
    let [sure, all] = [0n, 0n];
    let past: number | undefined;
    for (const [i, p] of planned.entries()) {
      const use = usageOf(name, p);
      all += use;
      if (p.unsure === true || use === 0n) continue;
      sure += use;
      if (past === undefined && taken + sure > cap) past = i;
    }
    const excess = { resource: name, hard: String(limit), used: String(spent) };
    if (past !== undefined) {
      exact.push({ ...excess, need: formatQuantity(sure) });
      first = Math.min(first ?? past, past);
    } else if (all > 0n && taken + all > cap) estimated.push({ ...excess, need: formatQuantity(all) });
  }
  return first === undefined ? { excess: estimated } : { excess: exact, first };
}

/**
 * The quotas (ResourceQuotaList items) the batch exceeds together; `first` where the sum is exact.
 *
 * @example
 * const quota = { metadata: { name: 'q' }, spec: {}, status: { hard: { configmaps: '2' }, used: { configmaps: '1' } } };
 * const cm = { group: '', resource: 'configmaps', object: {} };
 * exceededQuotas([quota], [cm, cm]); // [{ quota: 'q', excess: [{ resource: 'configmaps', hard: '2', used: '1', need: '2' }], first: 1 }]
 */
export function exceededQuotas(quotas: readonly unknown[], planned: readonly Planned[]): ExceededQuota[] {
  const exceeded: ExceededQuota[] = [];
  for (const quota of quotas) {
    const scopes = field(quota, 'spec', 'scopes');
    if ((Array.isArray(scopes) && scopes.length > 0) || field(quota, 'spec', 'scopeSelector') !== undefined)
      continue;
    const found = excessOf(quota, planned);
    const name = field(quota, 'metadata', 'name');
    if (found.excess.length > 0) exceeded.push({ quota: typeof name === 'string' ? name : '', ...found });
  }
  return exceeded;
}

/** A refusal's text where the sum is exact (`first` set), else a warning's. */
function quotaText(namespace: string, { quota, excess, first }: ExceededQuota): string {
  const each = excess.map((e) => `${e.resource} needs ${e.need} where ${e.used} of ${e.hard} are used`);
  const exceeded = `ResourceQuota "${quota}" in namespace "${namespace}" is exceeded by the batch: ${each.join('; ')}`;
  if (first !== undefined)
    return (
      `${exceeded}. This object is the first past the limit; nothing was written ` +
      '(each object passed its dry run: quota is checked per request and charged only on writes)'
    );
  return (
    `${exceeded}, counting objects whose dry run could not say whether they would be created. ` +
    'Each object passed its dry run (quota is checked per request and charged only on writes), so a later write may be refused part-way'
  );
}

/** The namespace's ResourceQuotas as listed, or why they could not be. */
export type QuotaRead = { items: unknown[] } | { unread: string };

interface QuotaWarning {
  code: 'OTC_QUOTA_EXCEEDED_BY_BATCH' | 'OTC_QUOTA_UNCHECKED';
  text: string;
}

/** A planned object, named by its ref rather than its group. */
type QuotaTarget = Omit<Planned, 'group'> & { ref: ResourceRef };

/**
 * One `OTC_QUOTA_EXCEEDED` refusal per quota the exact sum exceeds, on the first object past it, and
 * warnings for those only the estimate exceeds (texts through `redact`).
 */
export function quotaVerdict(
  namespace: string,
  quotas: QuotaRead,
  targets: readonly QuotaTarget[],
  redact: (text: string) => string = (text) => text,
): { failures: OperationFailure[]; warnings: QuotaWarning[] } {
  const planned = targets.map(({ ref, ...rest }): Planned => ({ group: groupOf(ref.apiVersion), ...rest }));
  const failures: OperationFailure[] = [];
  const warnings: QuotaWarning[] = [];
  if (targets.length === 0) return { failures, warnings };
  if ('unread' in quotas) {
    const text =
      `the batch's sum against the ResourceQuotas of namespace "${namespace}" was not checked: ${quotas.unread} ` +
      '(list resourcequotas is optional; each object was still checked against quota by its own dry run)';
    return { failures, warnings: [{ code: 'OTC_QUOTA_UNCHECKED', text: redact(text) }] };
  }
  for (const exceeded of exceededQuotas(quotas.items, planned)) {
    const ref = exceeded.first === undefined ? undefined : targets[exceeded.first]?.ref;
    if (ref === undefined) {
      warnings.push({ code: 'OTC_QUOTA_EXCEEDED_BY_BATCH', text: redact(quotaText(namespace, exceeded)) });
      continue;
    }
    const { apiVersion, kind, name } = ref;
    const error = new RequestError('Apply', describeRef(ref), redact(quotaText(namespace, exceeded)), {
      code: 'OTC_QUOTA_EXCEEDED',
      outcome: 'refused',
      resource: { apiVersion, kind, name, namespace: ref.namespace },
    });
    failures.push({ resource: ref, error });
  }
  return { failures, warnings };
}
