// Quantities of built-in kinds stored in canonical form, as kube-apiserver stores them after
// decoding into Go types; custom resources keep what was sent. The table is apimachinery's own
// (k8s.io/apimachinery v0.34.4 pkg/api/resource/quantity_test.go: TestQuantityParseEmit, and
// TestQuantityString's canonical and alternate spellings), with the cases the real tier
// (npm run cluster) answered for a Pod's requests.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';
import { canonicalQuantity, quantityNanos } from '../../../simulator/objects/quantity.ts';
import { apply, call } from '../client.ts';

/** TestQuantityParseEmit: what ParseQuantity then String() give. */
const PARSE_EMIT: [string, string][] = [
  ['1Ki', '1Ki'],
  ['1Mi', '1Mi'],
  ['1Gi', '1Gi'],
  ['1024Mi', '1Gi'],
  ['1000M', '1G'],
  ['.001Ki', '1024m'],
  ['.000001Ki', '1024u'],
  ['.000000001Ki', '1024n'],
  ['.000000000001Ki', '2n'],
];

/** TestQuantityString: the canonical spelling, and an alternate one that parses to it. */
const CANONICAL: [string, string][] = [
  ['1Gi', '1024Mi'],
  ['300Mi', '307200Ki'],
  ['6Ki', ''],
  ['1001Gi', '1025024Mi'],
  ['1Ti', '1024Gi'],
  ['5', '5000m'],
  ['500m', '0.5'],
  ['1G', '1000M'],
  ['1G', '0.001T'],
  ['1m', '1000u'],
  ['80m', ''],
  ['1080m', '1.08'],
  ['1080m', '1080000000n'],
  ['300M', ''],
  ['1T', ''],
  ['1234567M', ''],
  ['1234567m', ''],
  ['3k', ''],
  ['1025', ''],
  ['0', '00'],
  ['1e9', '.001e12'],
  ['1e-3', '0.001e0'],
  ['1e-9', '1000e-12'],
  ['80e-3', ''],
  ['300e6', ''],
  ['1e12', ''],
  ['1e3', ''],
  ['3e3', ''],
  ['1n', ''],
  ['80n', ''],
  ['1080n', ''],
  ['1u', ''],
  ['80u', ''],
  ['1080u', ''],
];

/** What the real tier stored for a Pod's cpu request sent as the first string (or number). */
const REAL_TIER: [string | number, string][] = [
  ['1.5Gi', '1536Mi'],
  ['+1', '+1'],
  [2, '2'],
  ['1000m', '1'],
  [' 7Ki', '7Ki'],
  ['1.2e3', '1200'],
  ['100.035Ki', '102435840m'],
  ['0.5Mi', '512Ki'],
  ['1.', '1.'],
  ['1.G', '1.G'],
  ['-0', '0'],
  ['0.0005k', '500m'],
  ['1E-3', '1E-3'],
];

describe('canonicalQuantity', () => {
  test.each(PARSE_EMIT)('%s is written %s, and its negation negated', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
    expect(canonicalQuantity(`-${input}`)).toBe(`-${expected}`);
  });

  test.each(CANONICAL)('%s is kept as it is, and %s becomes it', (canonical, alternate) => {
    expect(canonicalQuantity(canonical)).toBe(canonical);
    if (alternate !== '') expect(canonicalQuantity(alternate)).toBe(canonical);
  });

  test.each(REAL_TIER)('%s is stored as %s', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });
});

describe('quantityNanos: what quota admission sums', () => {
  const NANO = 1_000_000_000n;
  test.each([
    ['5', 5n * NANO],
    [5, 5n * NANO],
    ['1Ki', 1024n * NANO],
    ['1.5Gi', 1536n * 1024n * 1024n * NANO],
    ['250m', 250_000_000n],
    ['1E-3', 1_000_000n],
    ['0.0000000001', 1n],
    ['-2', -2n * NANO],
  ] as const)('%j', (text, value) => {
    expect(quantityNanos(text)).toBe(value);
  });

  test.each([['1.5.1'], ['1gi'], [undefined], [{}]])('%j is not a quantity', (text) => {
    expect(quantityNanos(text)).toBeUndefined();
  });
});

describe('stored Quantities', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    await sim.close();
  });

  const POD = '/api/v1/namespaces/workers/pods';
  const pod = (name: string, requests: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'x', resources: { requests } }] },
  });
  const requestsOf = (json: Record<string, unknown>): unknown =>
    (json.spec as { containers: { resources: { requests: unknown } }[] }).containers[0]?.resources.requests;

  test("a built-in kind's Quantity is canonical after an apply, and applying it again changes nothing", async () => {
    const first = await apply(
      sim,
      `${POD}/quantity-apply`,
      pod('quantity-apply', { cpu: '0.5', memory: '1.5Gi' }),
    );
    expect(first.status).toBe(201);
    expect(requestsOf(first.json)).toEqual({ cpu: '500m', memory: '1536Mi' });
    const again = await apply(
      sim,
      `${POD}/quantity-apply`,
      pod('quantity-apply', { cpu: '0.5', memory: '1.5Gi' }),
    );
    expect(again.status).toBe(200);
    const version = (json: Record<string, unknown>): unknown =>
      (json.metadata as { resourceVersion: unknown }).resourceVersion;
    expect(version(again.json)).toBe(version(first.json));
  });

  test('a create and a merge patch store canonical Quantities too', async () => {
    const created = await call(sim, 'POST', `${POD}?fieldManager=creator`, {
      body: pod('quantity-post', { cpu: '1000m' }),
    });
    expect(created.status).toBe(201);
    expect(requestsOf(created.json)).toEqual({ cpu: '1' });
    const patched = await call(sim, 'PATCH', `${POD}/quantity-post?fieldManager=patcher`, {
      body: { spec: { containers: [{ name: 'main', image: 'x', resources: { requests: { cpu: 0.25 } } }] } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(requestsOf(patched.json)).toEqual({ cpu: '250m' });
  });

  test("a custom resource's quantity (int-or-string in its CRD) keeps what was applied", async () => {
    const path = '/apis/kubevirt.io/v1/namespaces/workers/virtualmachines/quantity-vm';
    const vm = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'quantity-vm' },
      spec: {
        runStrategy: 'Halted',
        template: {
          spec: { domain: { devices: {}, resources: { requests: { memory: '1.5Gi', cpu: '0.5' } } } },
        },
      },
    };
    const answer = await apply(sim, path, vm);
    expect(answer.status).toBe(201);
    const spec = answer.json.spec as { template: { spec: { domain: { resources: unknown } } } };
    expect(spec.template.spec.domain.resources).toEqual({ requests: { memory: '1.5Gi', cpu: '0.5' } });
  });
});
