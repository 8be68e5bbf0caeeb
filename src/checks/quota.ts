// The batch's sum against the namespace's ResourceQuotas. kube-apiserver checks quota per request
// and charges it only on real writes (k8s.io/apiserver pkg/admission/plugin/resourcequota/
// controller.go: a dry run's usage is never recorded), so N objects that each fit pass N dry runs
// even when together they do not. Only what the library can count from the rendered objects is
// summed: object counts (`count/<resource>[.<group>]` and the legacy names), Service node ports and
// load balancers, and PVC storage requests (kubernetes pkg/quota/v1/evaluator/core). A quota with
// scopes constrains Pods by their class, which a rendered object does not settle: it is skipped.
import { isRecord } from '../util/json.ts';

/** An object the batch would create: its group, resource (plural) and rendered body. */
export interface Planned {
  group: string;
  resource: string;
  object: unknown;
}

/** One resource a quota cannot take the batch's need of. */
export interface QuotaExcess {
  resource: string;
  hard: string;
  used: string;
  need: string;
}

/** A quota the batch exceeds, by name, with every resource it exceeds. */
export interface ExceededQuota {
  quota: string;
  excess: QuotaExcess[];
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
const NANO = 1_000_000_000n;
const BINARY: Readonly<Record<string, bigint>> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/**
 * A Kubernetes quantity (`5`, `1Gi`, `500M`, `1.5e3`, `250m`) in billionths, rounded up as
 * apimachinery's resource.Quantity rounds; `undefined` for what is not one.
 *
 * @example
 * parseQuantity('1Ki'); // 1024000000000n
 */
export function parseQuantity(text: unknown): bigint | undefined {
  if (typeof text !== 'string') return undefined;
  const found = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(text);
  if (found === null) return undefined;
  const [, sign = '', number = '', suffix = ''] = found;
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 10n ** BigInt(fraction.length);
  const binary = BINARY[suffix];
  const exponent = binary === undefined ? (DECIMAL[suffix] ?? Number(suffix.slice(1))) : 0;
  if (binary !== undefined) numerator *= 1024n ** binary;
  if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(-exponent);
  const value = (numerator * NANO + denominator - 1n) / denominator;
  return sign === '-' ? -value : value;
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

/** What one created object adds to a quota resource, in billionths (a count of one is 10^9). */
function usageOf(name: string, p: Planned): bigint {
  if (name.startsWith('count/')) {
    const [resource = '', ...group] = name.slice('count/'.length).split('.');
    return p.resource === resource && p.group === group.join('.') ? NANO : 0n;
  }
  if (LEGACY_COUNTS.has(name)) return isCore(p, name) ? NANO : 0n;
  if (isCore(p, 'services')) {
    const type = field(p.object, 'spec', 'type');
    const ports = field(p.object, 'spec', 'ports');
    if (name === 'services.loadbalancers') return type === 'LoadBalancer' ? NANO : 0n;
    if (name === 'services.nodeports' && (type === 'NodePort' || type === 'LoadBalancer'))
      return BigInt(Array.isArray(ports) ? ports.length : 0) * NANO;
    return 0n;
  }
  if (!isCore(p, 'persistentvolumeclaims')) return 0n;
  const storage = parseQuantity(field(p.object, 'spec', 'resources', 'requests', 'storage')) ?? 0n;
  if (name === 'requests.storage') return storage;
  const at = name.indexOf(STORAGE_CLASS);
  if (at <= 0 || field(p.object, 'spec', 'storageClassName') !== name.slice(0, at)) return 0n;
  const what = name.slice(at + STORAGE_CLASS.length);
  if (what === 'requests.storage') return storage;
  return what === 'persistentvolumeclaims' ? NANO : 0n;
}

/** Whether the library sums this quota resource at all (compute resources of Pods it does not). */
export function summed(name: string): boolean {
  if (name.startsWith('count/') || LEGACY_COUNTS.has(name)) return true;
  if (['services.loadbalancers', 'services.nodeports', 'requests.storage'].includes(name)) return true;
  const at = name.indexOf(STORAGE_CLASS);
  const what = name.slice(at + STORAGE_CLASS.length);
  return at > 0 && (what === 'requests.storage' || what === 'persistentvolumeclaims');
}

function excessOf(quota: unknown, planned: readonly Planned[]): QuotaExcess[] {
  const hard = field(quota, 'status', 'hard');
  const used = field(quota, 'status', 'used');
  if (!isRecord(hard)) return [];
  const excess: QuotaExcess[] = [];
  for (const [name, limit] of Object.entries(hard)) {
    if (!summed(name)) continue;
    const spent = isRecord(used) ? used[name] : undefined;
    const [cap, taken] = [parseQuantity(limit), parseQuantity(spent)];
    // Without its usage the server refuses every dry run it covers ("status unknown for quota").
    if (cap === undefined || taken === undefined) continue;
    const need = planned.reduce((sum, p) => sum + usageOf(name, p), 0n);
    if (need > 0n && taken + need > cap)
      excess.push({ resource: name, hard: String(limit), used: String(spent), need: formatQuantity(need) });
  }
  return excess;
}

/**
 * The quotas (items of a ResourceQuotaList) that the objects the batch would create exceed
 * together, against `status.hard - status.used`.
 *
 * @example
 * const quota = { metadata: { name: 'q' }, spec: {}, status: { hard: { configmaps: '2' }, used: { configmaps: '1' } } };
 * const cm = { group: '', resource: 'configmaps', object: {} };
 * exceededQuotas([quota], [cm, cm]); // [{ quota: 'q', excess: [{ resource: 'configmaps', hard: '2', used: '1', need: '2' }] }]
 */
export function exceededQuotas(quotas: readonly unknown[], planned: readonly Planned[]): ExceededQuota[] {
  const exceeded: ExceededQuota[] = [];
  for (const quota of quotas) {
    const scopes = field(quota, 'spec', 'scopes');
    if ((Array.isArray(scopes) && scopes.length > 0) || field(quota, 'spec', 'scopeSelector') !== undefined)
      continue;
    const excess = excessOf(quota, planned);
    const name = field(quota, 'metadata', 'name');
    if (excess.length > 0) exceeded.push({ quota: typeof name === 'string' ? name : '', excess });
  }
  return exceeded;
}

/**
 * The warning for a quota the batch exceeds: each resource with its hard limit, its use and the
 * batch's need.
 *
 * @example
 * quotaText('workers', { quota: 'q', excess: [{ resource: 'configmaps', hard: '2', used: '1', need: '2' }] });
 */
export function quotaText(namespace: string, { quota, excess }: ExceededQuota): string {
  const each = excess.map((e) => `${e.resource} needs ${e.need} where ${e.used} of ${e.hard} are used`);
  return (
    `ResourceQuota "${quota}" in namespace "${namespace}" is exceeded by the batch: ${each.join('; ')}. ` +
    'Each object passed its dry run (quota is checked per request and charged only on writes), so a later write may be refused part-way'
  );
}
