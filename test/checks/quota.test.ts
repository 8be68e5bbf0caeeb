// The pre-flight's quota sum (src/checks/quota.ts): quantities as apimachinery reads them, what
// each created object counts under, and which quotas the batch exceeds together.
import { describe, expect, test } from 'vitest';
import { exceededQuotas, parseQuantity, type Planned } from '../../src/checks/quota.ts';

const NANO = 1_000_000_000n;

describe('parseQuantity', () => {
  test.each([
    ['5', 5n * NANO],
    ['1Ki', 1024n * NANO],
    ['1.5Gi', 1536n * 1024n * 1024n * NANO],
    ['500M', 500_000_000n * NANO],
    ['250m', 250_000_000n],
    ['1e3', 1000n * NANO],
    ['1E-3', 1_000_000n],
    ['.5', 500_000_000n],
    ['1n', 1n],
    ['-2', -2n * NANO],
    // parseQuantityString reads a number without digits as zero.
    ['Gi', 0n],
  ])('%s', (text, value) => {
    expect(parseQuantity(text)).toBe(value);
  });

  test.each([['1.5.1'], ['1 Gi'], ['1gi'], ['1ki'], [''], [5], [undefined]])(
    '%s is not a quantity',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );

  test('a fraction below a billionth is rounded up, as resource.Quantity rounds', () => {
    expect(parseQuantity('0.0000000001')).toBe(1n);
  });

  test('an exponent past a thousand is no amount to sum, not a power too large to compute', () => {
    expect(parseQuantity('1e9223372036854775807')).toBeUndefined();
    expect(parseQuantity('1e-9223372036854775808')).toBe(1n);
    expect(parseQuantity('1e9223372036854775808')).toBeUndefined();
  });
});

const core = (resource: string, object: unknown = {}): Planned => ({ group: '', resource, object });
const quota = (hard: Record<string, string>, used: Record<string, string>, spec: unknown = {}): unknown => ({
  metadata: { name: 'q' },
  spec,
  status: { hard, used },
});

describe('exceededQuotas', () => {
  test('object counts by count/<resource>.<group> and the legacy core names', () => {
    const routes = { group: 'route.openshift.io', resource: 'routes', object: {} };
    const hard = { 'count/routes.route.openshift.io': '1', configmaps: '2', 'count/configmaps': '9' };
    const used = { 'count/routes.route.openshift.io': '0', configmaps: '1', 'count/configmaps': '1' };
    expect(
      exceededQuotas([quota(hard, used)], [routes, routes, core('configmaps'), core('configmaps')]),
    ).toEqual([
      {
        quota: 'q',
        excess: [
          { resource: 'count/routes.route.openshift.io', hard: '1', used: '0', need: '2' },
          { resource: 'configmaps', hard: '2', used: '1', need: '2' },
        ],
        // The second route is the first object past a limit.
        first: 1,
      },
    ]);
  });

  test('objects no dry run settled make the sum an estimate: no first object, their need counted', () => {
    const unsure: Planned = { ...core('configmaps'), unsure: true };
    const hard = { configmaps: '2' };
    expect(exceededQuotas([quota(hard, { configmaps: '1' })], [core('configmaps'), unsure])).toEqual([
      { quota: 'q', excess: [{ resource: 'configmaps', hard: '2', used: '1', need: '2' }] },
    ]);
    // The sure objects alone exceed it: exact, on the first sure object past the limit.
    expect(
      exceededQuotas([quota(hard, { configmaps: '1' })], [unsure, core('configmaps'), core('configmaps')]),
    ).toEqual([
      { quota: 'q', excess: [{ resource: 'configmaps', hard: '2', used: '1', need: '2' }], first: 2 },
    ]);
  });

  test('a LoadBalancer that allocates no node ports counts only the ports that name one', () => {
    const service = core('services', {
      spec: {
        type: 'LoadBalancer',
        allocateLoadBalancerNodePorts: false,
        ports: [{ port: 80, nodePort: 30080 }, { port: 443 }],
      },
    });
    const hard = { 'services.nodeports': '1' };
    expect(exceededQuotas([quota(hard, { 'services.nodeports': '0' })], [service])).toEqual([]);
    expect(exceededQuotas([quota(hard, { 'services.nodeports': '1' })], [service])[0]?.excess).toEqual([
      { resource: 'services.nodeports', hard: '1', used: '1', need: '1' },
    ]);
  });

  test("a claim's storage in whole bytes, and its class from the beta annotation first", () => {
    const claim = core('persistentvolumeclaims', {
      metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } },
      spec: { storageClassName: 'fast', resources: { requests: { storage: '1500m' } } },
    });
    const hard = { 'slow.storageclass.storage.k8s.io/requests.storage': '1' };
    const used = { 'slow.storageclass.storage.k8s.io/requests.storage': '0' };
    expect(exceededQuotas([quota(hard, used)], [claim])[0]?.excess).toEqual([
      { resource: 'slow.storageclass.storage.k8s.io/requests.storage', hard: '1', used: '0', need: '2' },
    ]);
  });

  test('a core name does not count an object of another group with the same resource name', () => {
    const other = { group: 'example.com', resource: 'configmaps', object: {} };
    expect(exceededQuotas([quota({ configmaps: '0' }, { configmaps: '0' })], [other])).toEqual([]);
  });

  test('Service node ports and load balancers', () => {
    const service = core('services', {
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] },
    });
    const hard = { 'services.nodeports': '1', 'services.loadbalancers': '1' };
    const used = { 'services.nodeports': '0', 'services.loadbalancers': '1' };
    expect(exceededQuotas([quota(hard, used)], [service])[0]?.excess).toEqual([
      { resource: 'services.nodeports', hard: '1', used: '0', need: '2' },
      { resource: 'services.loadbalancers', hard: '1', used: '1', need: '1' },
    ]);
  });

  test('PVC storage, overall and per storage class', () => {
    const claim = (storage: string, storageClassName?: string): Planned =>
      core('persistentvolumeclaims', { spec: { storageClassName, resources: { requests: { storage } } } });
    const fast = 'fast.storageclass.storage.k8s.io';
    const hard = {
      'requests.storage': '2Gi',
      [`${fast}/requests.storage`]: '1Gi',
      [`${fast}/persistentvolumeclaims`]: '1',
    };
    const used = {
      'requests.storage': '1536Mi',
      [`${fast}/requests.storage`]: '0',
      [`${fast}/persistentvolumeclaims`]: '0',
    };
    expect(
      exceededQuotas([quota(hard, used)], [claim('512Mi'), claim('1Gi', 'fast'), claim('1', 'fast')])[0]
        ?.excess,
    ).toEqual([
      { resource: 'requests.storage', hard: '2Gi', used: '1536Mi', need: '1610612737' },
      { resource: `${fast}/requests.storage`, hard: '1Gi', used: '0', need: '1073741825' },
      { resource: `${fast}/persistentvolumeclaims`, hard: '1', used: '0', need: '2' },
    ]);
  });

  test('compute resources are not summed; a quota without usage or with scopes is skipped', () => {
    const requests = { spec: { containers: [{ resources: { requests: { cpu: '1', memory: '1Gi' } } }] } };
    const compute = { 'requests.cpu': '0', 'limits.memory': '0', 'requests.memory': '0' };
    expect(exceededQuotas([quota(compute, compute)], [core('pods', requests)])).toEqual([]);
    const pods = [core('pods'), core('pods')];
    expect(exceededQuotas([quota({ pods: '1' }, {})], pods)).toEqual([]);
    expect(exceededQuotas([quota({ pods: '1' }, { pods: '0' }, { scopes: ['BestEffort'] })], pods)).toEqual(
      [],
    );
    expect(exceededQuotas([quota({ pods: '1' }, { pods: '0' }, { scopeSelector: {} })], pods)).toEqual([]);
    expect(exceededQuotas([quota({ pods: '2' }, { pods: '0' })], pods)).toEqual([]);
  });
});
