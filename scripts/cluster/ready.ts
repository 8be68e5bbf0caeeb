// Waiting for a started control plane, under one deadline: each condition in turn, and on timeout
// the first one not met, with what the server last said about it.
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError } from './build.ts';
import type { KubeClient } from './kube.ts';

export interface Condition {
  /** What is awaited, as the timeout message names it. */
  name: string;
  /** undefined when met; else what is still missing. */
  check: () => Promise<string | undefined>;
}

export async function waitFor(
  conditions: Condition[],
  deadline: number,
  signal: AbortSignal,
  died: () => string | undefined,
): Promise<void> {
  for (const condition of conditions) {
    let last: string;
    for (;;) {
      const death = died();
      if (death !== undefined) throw new ClusterError(`cluster: ${death}`);
      if (signal.aborted) throw new ClusterError('cluster: interrupted while starting');
      try {
        const missing = await condition.check();
        if (missing === undefined) break;
        last = missing;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      if (Date.now() > deadline)
        throw new ClusterError(`cluster: not ready in time: ${condition.name} (${last})`);
      await sleep(250);
    }
  }
}

const conditionsOf = (body: unknown): { type?: string; status?: string; message?: string }[] =>
  ((body as { status?: { conditions?: unknown } } | undefined)?.status?.conditions as
    { type?: string; status?: string; message?: string }[] | undefined) ?? [];

export function readyz(client: KubeClient): Condition {
  return {
    name: '/readyz',
    check: async () => {
      const answer = await client.send('GET', '/readyz');
      return answer.status === 200 ? undefined : `answered ${answer.status}`;
    },
  };
}

export function crdsEstablished(client: KubeClient, names: string[]): Condition {
  return {
    name: 'every CRD Established',
    check: async () => {
      for (const name of names) {
        const answer = await client.send(
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
        );
        const established = conditionsOf(answer.body).find((c) => c.type === 'Established');
        if (established?.status !== 'True') return `${name} is not Established yet`;
      }
      return undefined;
    },
  };
}

export function apiServicesAvailable(client: KubeClient, groupVersions: string[]): Condition {
  return {
    name: 'every APIService Available=True',
    check: async () => {
      for (const gv of groupVersions) {
        const [group, version] = gv.split('/');
        const answer = await client.send(
          'GET',
          `/apis/apiregistration.k8s.io/v1/apiservices/${version}.${group}`,
        );
        const available = conditionsOf(answer.body).find((c) => c.type === 'Available');
        if (available?.status !== 'True')
          return `${version}.${group}: ${available?.message ?? 'no Available condition yet'}`;
      }
      return undefined;
    },
  };
}

export function discoveryServes(client: KubeClient, groupVersions: string[]): Condition {
  return {
    name: 'discovery of each aggregated group-version through kube-apiserver',
    check: async () => {
      for (const gv of groupVersions) {
        const answer = await client.send('GET', `/apis/${gv}`);
        if (answer.status !== 200) return `/apis/${gv} answered ${answer.status}`;
      }
      return undefined;
    },
  };
}

/**
 * kube-apiserver's merged /openapi/v3 lists every aggregated group-version `times` checks in a
 * row: while the aggregator is still settling, one answer may list them and the next not.
 */
export function openapiLists(client: KubeClient, groupVersions: string[], times = 1): Condition {
  let listed = 0;
  return {
    name: `kube-apiserver's /openapi/v3 listing each aggregated group-version ${times === 1 ? 'once' : `${times} times in a row`}`,
    check: async () => {
      const answer = await client.send('GET', '/openapi/v3');
      const paths = (answer.body as { paths?: Record<string, unknown> } | undefined)?.paths ?? {};
      const missing = groupVersions.filter((gv) => !(`apis/${gv}` in paths));
      listed = missing.length === 0 ? listed + 1 : 0;
      if (missing.length > 0) return `not listed yet: ${missing.join(', ')}`;
      return listed >= times ? undefined : `listed ${listed} of ${times} times in a row`;
    },
  };
}
