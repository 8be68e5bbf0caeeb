// Request paths as kube-apiserver's router reads them: which resource, namespace, name and
// subresource a path names, and which verb a method means there.
import { findResource } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import type { Target } from '../objects/requests.ts';

/** A path no route serves: answered with Go's plain-text 404, not a Status. */
export class NotFoundPath extends Error {}

export function parseRoute(resources: readonly ResourceInfo[], segments: string[]): Target {
  let group = '';
  let version: string | undefined;
  let rest: string[];
  if (segments[0] === 'api') {
    version = segments[1];
    rest = segments.slice(2);
  } else {
    group = segments[1] ?? '';
    version = segments[2];
    rest = segments.slice(3);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1] ?? '';
    rest = rest.slice(2);
  }
  const info = findResource(resources, group, version ?? '', rest[0] ?? '');
  if (!info || rest.length > 3) throw new NotFoundPath();
  const subresource = rest[2];
  if (
    subresource !== undefined &&
    !findResource(resources, group, version ?? '', `${info.name}/${subresource}`)
  ) {
    throw new NotFoundPath();
  }
  const name = rest[1];
  const clusterScopedInNamespace = !info.namespaced && namespace !== '';
  const namedWithoutNamespace = info.namespaced && namespace === '' && name !== undefined;
  if (clusterScopedInNamespace || namedWithoutNamespace) throw new NotFoundPath();
  return { info, namespace, name, subresource };
}

export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new NotFoundPath();
  }
}

export function verbFor(method: string, route: Target): string {
  switch (method) {
    case 'GET':
      return route.name === undefined ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name === undefined ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}
