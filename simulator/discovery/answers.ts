// The discovery documents (/version, /api, /apis and each group version's APIResourceList) in the
// shapes of docs/wire-reference.md §2, built from the resources the server serves.
import type { ResourceInfo, Result } from '../types.ts';
import { groupVersionOf } from './resources.ts';
import { kubernetesVersion } from './version.ts';

function resourceEntry(r: ResourceInfo): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: r.name,
    singularName: r.singularName,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
  };
  if (r.shortNames) entry.shortNames = r.shortNames;
  if (r.categories) entry.categories = r.categories;
  return entry;
}

export function groupVersions(resources: readonly ResourceInfo[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of resources) seen.set(groupVersionOf(r), { group: r.group, version: r.version });
  return [...seen.values()];
}

export function apiResourceList(
  served: readonly ResourceInfo[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const resources = served.filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersionOf({ group, version }),
    resources: resources.map(resourceEntry),
  };
}

export function apiVersions(): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  };
}

export function apiGroupList(resources: readonly ResourceInfo[]): Record<string, unknown> {
  const groups = groupVersions(resources)
    .filter((gv) => gv.group !== '')
    .map((gv) => {
      const groupVersion = { groupVersion: `${gv.group}/${gv.version}`, version: gv.version };
      return { name: gv.group, versions: [groupVersion], preferredVersion: groupVersion };
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/**
 * The real tier's /version as far as a build decides it (simulator/discovery/version.ts): its
 * version, and the commit placeholder and empty tree state of a build from Go modules, which
 * know no commit. Only the build date and Go version are the simulator's own.
 */
export function versionInfo(): Record<string, unknown> {
  const { gitVersion, major, minor } = kubernetesVersion();
  return {
    major,
    minor,
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: String(Number(minor) - 1),
    gitVersion,
    gitCommit: '$Format:%H$',
    gitTreeState: '',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.24.9',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** The discovery document a GET of `path` asks for, or undefined when the path is not one. */
export function discoveryAnswer(
  resources: readonly ResourceInfo[],
  path: string,
  segments: readonly string[],
): Result | undefined {
  if (path === '/version') return { code: 200, body: versionInfo() };
  if (path === '/api') return { code: 200, body: apiVersions() };
  if (path === '/apis') return { code: 200, body: apiGroupList(resources) };
  if (segments[0] === 'api' && segments.length === 2) {
    const list = apiResourceList(resources, '', segments[1] ?? '');
    if (list) return { code: 200, body: list };
  }
  if (segments[0] === 'apis' && segments.length === 3) {
    const list = apiResourceList(resources, segments[1] ?? '', segments[2] ?? '');
    if (list) return { code: 200, body: list };
  }
  return undefined;
}
