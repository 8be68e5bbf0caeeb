// The benchmark's Templates and the minimum number of requests each operation on them must send.
import type { JsonObject } from '../simulator/index.ts';
import type { Op } from './client.ts';

/** The stored Template of the burst benches (bench/burst.ts), whose objects are named after its JOB. */
export const BURST_TEMPLATE = 'burst';

/** N objects over D group-versions: ConfigMaps and Secrets (v1), VirtualMachines, Deployments. */
export function benchTemplate(n: number, d: number): JsonObject {
  const kinds = [
    (i: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}` },
      data: { index: String(i), tag: '${TAG}' },
    }),
    (i: number) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `secret-${i}` },
      stringData: { key: `value-${i}` },
    }),
    (i: number) => ({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: `vm-${i}` },
      spec: { runStrategy: 'Halted' },
    }),
    (i: number) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `deploy-${i}` },
      spec: { replicas: 1 },
    }),
  ];
  const usable = d === 1 ? kinds.slice(0, 2) : kinds;
  const objects = Array.from({ length: n }, (_, i) => (usable[i % usable.length] ?? kinds[0])?.(i) ?? {});
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: `bench-${n}-${d}`, namespace: 'infra' },
    parameters: [{ name: 'TAG', value: 'v1' }],
    objects,
  };
}

/** The apiVersions the objects of `benchTemplate(n, d)` use, in order of first use. */
export function groupVersions(n: number, d: number): string[] {
  const objects = benchTemplate(n, d).objects as { apiVersion: string }[];
  return [...new Set(objects.map((o) => o.apiVersion))];
}

/**
 * What typing adds to a create: the `/openapi/v3` root, read once per Connection, and one document
 * per group-version the process has not fetched yet (the documents are kept process-wide).
 */
export interface TypingRequests {
  root: number;
  documents: number;
}

/**
 * The minimum: what the operation must send on a connection that has discovered only core v1;
 * `d` is the number of group-versions the rendered objects really use. `setup-create` is a second
 * create on the same Connection, which has discovered, and holds the schema root and documents for,
 * every group-version the first one used.
 */
export function minimumRequests(
  op: Op,
  n: number,
  d: number,
  typing: TypingRequests = { root: 0, documents: 0 },
): number {
  switch (op) {
    case 'connect':
      return 1;
    case 'process':
      return 2;
    // Each object's pre-flight dry run, then its write; beside the dry runs, the namespace's
    // ResourceQuotas listed once, to sum what the batch needs.
    case 'create':
      return 3 + (d - 1) + 2 * n + typing.root + typing.documents;
    case 'setup-create':
      return 3 + 2 * n;
    case 'get':
      return 2 + n;
    case 'delete':
      // The replay reads every object (one wave), then deletes each with the UID it read.
      return 2 + 2 * n;
    case 'get-ref':
    case 'delete-ref':
      return n;
    default:
      return 0;
  }
}

/** The path under which `/openapi/v3` publishes an apiVersion's document: `api/v1`, `apis/apps/v1`. */
export function openapiPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
}
