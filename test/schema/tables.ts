// The compact tables of the cut-down real documents, and a rendered Deployment to vary.
import { compactTypes } from '../../src/schema/compact.ts';
import apps from './fixtures/apps-v1.ts';
import core from './fixtures/core-v1.ts';
import route from './fixtures/route-v1.ts';
import template from './fixtures/template-v1.ts';

export const appsV1 = compactTypes(apps);
export const coreV1 = compactTypes(core);
export const routeV1 = compactTypes(route);
export const templateV1 = compactTypes(template);

/** A Deployment as redis-ephemeral renders it, trimmed; a fresh copy each call. */
export function deployment(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'redis',
      labels: { app: 'redis' },
      annotations: { 'template.alpha.openshift.io/wait-for-ready': 'true' },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: 'redis' } },
      strategy: { type: 'Recreate' },
      template: {
        metadata: { labels: { name: 'redis' } },
        spec: {
          containers: [
            {
              name: 'redis',
              image: 'registry.redhat.io/rhel9/redis-6',
              imagePullPolicy: 'IfNotPresent',
              env: [{ name: 'REDIS_PASSWORD', value: 'secret-value' }],
              ports: [{ containerPort: 6379, protocol: 'TCP' }],
              resources: { limits: { memory: '512Mi', cpu: '500m' } },
              livenessProbe: { tcpSocket: { port: 6379 }, initialDelaySeconds: 30 },
              securityContext: { capabilities: { drop: ['ALL'] }, privileged: false },
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/redis/data' }],
            },
          ],
          volumes: [{ name: 'data', emptyDir: { medium: '' } }],
        },
      },
    },
  };
}

/** The one item of a list; fails the test when there is not exactly one. */
export function single<T>(items: readonly T[]): T {
  const [item] = items;
  if (items.length !== 1 || item === undefined) throw new Error(`expected one item, got ${items.length}`);
  return item;
}
