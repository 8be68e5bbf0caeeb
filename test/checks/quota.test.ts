// The pre-flight's quota sum (src/checks/quota.ts): quantities as apimachinery reads them, what
// each created object counts under, and which quotas the batch exceeds together.
import { describe, expect, test } from 'vitest';
import { exceededQuotas, parseQuantity, type Planned, summed } from '../../src/checks/quota.ts';

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
  ])('%s', (text, value) => {
    expect(parseQuantity(text)).toBe(value);
  });

  test.each([['1.5.1'], ['Gi'], ['1 Gi'], ['1gi'], [''], [5], [undefined]])(
    '%s is not a quantity',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );

  test('a fraction below a billionth is rounded up, as resource.Quantity rounds', () => {
    expect(parseQuantity('0.0000000001')).toBe(1n);
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
      },
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
    expect(summed('requests.cpu')).toBe(false);
    expect(summed('limits.memory')).toBe(false);
    const pods = [core('pods'), core('pods')];
    expect(exceededQuotas([quota({ pods: '1' }, {})], pods)).toEqual([]);
    expect(exceededQuotas([quota({ pods: '1' }, { pods: '0' }, { scopes: ['BestEffort'] })], pods)).toEqual(
      [],
    );
    expect(exceededQuotas([quota({ pods: '1' }, { pods: '0' }, { scopeSelector: {} })], pods)).toEqual([]);
    expect(exceededQuotas([quota({ pods: '2' }, { pods: '0' })], pods)).toEqual([]);
  });
});
