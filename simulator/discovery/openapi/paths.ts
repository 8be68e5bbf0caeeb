// The `paths` of a group-version kube-apiserver does not publish for us (OpenShift's groups, custom
// resources): built from a built-in resource's paths in the Kubernetes 1.34 documents, renamed, and
// cut to the verbs the simulator serves. The endpoint installer (k8s.io/apiserver
// pkg/endpoints/installer.go) and apiextensions-apiserver's builder
// (pkg/controller/openapi/builder/builder.go) lay out the same routes for every resource.
import type { ResourceInfo } from '../../types.ts';
import { isObject, type Json, type JsonObject } from './json.ts';

/** A built-in resource whose published paths stand as the pattern for others of its scope. */
export interface PathPattern {
  paths: JsonObject;
  group: string;
  version: string;
  plural: string;
  kind: string;
  schema: string;
  namespaced: boolean;
}

/** `apps.openshift.io` → `AppsOpenshiftIo`; `rbac.authorization.k8s.io` → `RbacAuthorization`. */
function groupWords(group: string): string[] {
  return group
    .replace(/\.k8s\.io$/, '')
    .split('.')
    .filter(Boolean)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`);
}

/** What operation ids carry for a group-version: `AppsV1`, `RouteOpenshiftIoV1`, `CoreV1`. */
function operationPrefix(group: string, version: string): string {
  const words = group === '' ? ['Core'] : groupWords(group);
  return `${words.join('')}${version.charAt(0).toUpperCase()}${version.slice(1)}`;
}

/** The tag of a group-version's operations: `apps_v1`, `routeOpenshiftIo_v1`, `core_v1`. */
function tag(group: string, version: string): string {
  const joined = group === '' ? 'Core' : groupWords(group).join('');
  return `${joined.charAt(0).toLowerCase()}${joined.slice(1)}_${version}`;
}

/** Which operations of which path a verb brings (collection, item, status, watch). */
function wanted(resource: ResourceInfo, hasStatus: boolean, suffix: string, method: string): boolean {
  const verbs = new Set(resource.verbs);
  if (suffix.startsWith('watch:')) return verbs.has('watch');
  switch (suffix) {
    case 'all':
      return verbs.has('list');
    case 'collection':
      return (
        (method === 'get' && verbs.has('list')) ||
        (method === 'post' && verbs.has('create')) ||
        (method === 'delete' && verbs.has('deletecollection'))
      );
    case 'item':
      return (
        (method === 'get' && verbs.has('get')) ||
        (method === 'put' && verbs.has('update')) ||
        (method === 'patch' && verbs.has('patch')) ||
        (method === 'delete' && verbs.has('delete'))
      );
    case 'status':
      return hasStatus;
    default:
      return false;
  }
}

/** Which of a resource's routes a pattern path is: `all` (every namespace), `collection`, ... */
function classify(pattern: PathPattern, path: string): string | undefined {
  const base = `/apis/${pattern.group}/${pattern.version}`;
  const rest = path.slice(base.length);
  const watch = rest.startsWith('/watch/');
  const tail = (watch ? rest.slice('/watch'.length) : rest).replace('/namespaces/{namespace}', '');
  const plural = `/${pattern.plural}`;
  const everyNamespace = pattern.namespaced && !rest.includes('/namespaces/{namespace}/');
  if (tail === plural) {
    if (watch) return 'watch:collection';
    return everyNamespace ? 'all' : 'collection';
  }
  if (tail === `${plural}/{name}`) return watch ? 'watch:item' : 'item';
  if (tail === `${plural}/{name}/status` && !watch) return 'status';
  return undefined;
}

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

function renamed(text: string, pattern: PathPattern, resource: ResourceInfo, schema: string): string {
  const placeholder = '\u0000schema\u0000';
  return text
    .split(pattern.schema)
    .join(placeholder)
    .split(operationPrefix(pattern.group, pattern.version))
    .join(operationPrefix(resource.group, resource.version))
    .split(pattern.kind)
    .join(resource.kind)
    .split(`"${tag(pattern.group, pattern.version)}"`)
    .join(`"${tag(resource.group, resource.version)}"`)
    .split(`"group":"${pattern.group}"`)
    .join(`"group":"${resource.group}"`)
    .split(`"version":"${pattern.version}"`)
    .join(`"version":"${resource.version}"`)
    .split(placeholder)
    .join(schema);
}

/** The paths of one resource, its operations cut to its verbs; `schema` is its kind's schema name. */
export function resourcePaths(
  pattern: PathPattern,
  resource: ResourceInfo,
  hasStatus: boolean,
  schema: string,
): JsonObject {
  const out: JsonObject = {};
  const base = `/apis/${pattern.group}/${pattern.version}/`;
  const prefix =
    resource.group === '' ? `/api/${resource.version}/` : `/apis/${resource.group}/${resource.version}/`;
  for (const [path, item] of Object.entries(pattern.paths)) {
    const suffix = path.startsWith(base) ? classify(pattern, path) : undefined;
    if (suffix === undefined || !isObject(item)) continue;
    const kept: JsonObject = {};
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || wanted(resource, hasStatus, suffix, method)) kept[method] = operation;
    }
    if (!Object.keys(kept).some((method) => METHODS.has(method))) continue;
    const target = `${prefix}${path.slice(base.length)}`.replace(`/${pattern.plural}`, `/${resource.name}`);
    out[target] = JSON.parse(renamed(JSON.stringify(kept), pattern, resource, schema)) as Json;
  }
  return out;
}

/** `GET /apis/G/V/` (the group-version's APIResourceList), renamed from the pattern's. */
export function rootPath(pattern: PathPattern, group: string, version: string): JsonObject {
  const item = pattern.paths[`/apis/${pattern.group}/${pattern.version}/`];
  if (!isObject(item)) throw new Error(`the pattern group-version has no root path`);
  const text = JSON.stringify(item)
    .split(operationPrefix(pattern.group, pattern.version))
    .join(operationPrefix(group, version))
    .split(`"${tag(pattern.group, pattern.version)}"`)
    .join(`"${tag(group, version)}"`);
  return { [`/apis/${group}/${version}/`]: JSON.parse(text) as Json };
}
