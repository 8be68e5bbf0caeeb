// One request from its path to its answer: discovery and OpenAPI first, then the resource's
// route, its verb, RBAC and name checks, and the handler of the resource it names.
import { discoveryAnswer } from '../discovery/answers.ts';
import type { OpenApiDocuments } from '../discovery/openapi/documents.ts';
import type { TypeTables } from '../discovery/openapi/tables.ts';
import { answerOpenApi } from '../discovery/openapi/handler.ts';
import { proxiedKind, proxyRequest, type RbacBackend } from '../objects/legacy-rbac.ts';
import { admitPod, admitRoleBinding } from '../objects/admission.ts';
import { admitQuota } from '../objects/quota.ts';
import { admitWebhooks, type Webhook } from '../objects/webhooks.ts';
import { isObject, type JsonObject } from '../objects/fields.ts';
import { lookupNameError } from '../objects/names.ts';
import { dryRunValues } from '../objects/options.ts';
import { type OlderServer, pre511TagWrite } from '../objects/older-server.ts';
import { type ObjectRequest, objectRequest, type Target } from '../objects/requests.ts';
import { badRequest, forbidden, StatusError, unauthorized } from '../objects/status.ts';
import type { ObjectStore } from '../objects/store.ts';
import { decodeWritten } from '../objects/typing.ts';
import { processTemplate } from '../templates/templates.ts';
import type { Identity, ResourceInfo, Result } from '../types.ts';
import { permits, reviewAccess } from './access-review.ts';
import type { Answer, Request } from './answer.ts';
import { decodeObjectBody } from './request-body.ts';
import { decodeSegment, NotFoundPath, parseRoute, verbFor } from './routes.ts';

/** What the server serves: the requests read and change these. */
export interface Served {
  store: ObjectStore;
  resources: readonly ResourceInfo[];
  /** What /openapi/v3 serves: `undefined` when it answers 404 (the server still types bodies). */
  openapi: OpenApiDocuments | undefined;
  tables: TypeTables;
  /** kube-apiserver's RBAC, which openshift-apiserver's legacy Roles and RoleBindings proxy to. */
  rbac: RbacBackend;
  /** The validating admission webhooks a test configured (objects/webhooks.ts). */
  webhooks: readonly Webhook[];
  /** An older openshift-apiserver's storages where they differ (objects/older-server.ts). */
  olderServer?: OlderServer | undefined;
}

/**
 * Deprecated APIs, said on every request for one (a 404 too), with the wording of Kubernetes'
 * deprecated-API warnings (k8s.io/apiserver pkg/endpoints/deprecation): OpenShift 4.14+
 * deprecates DeploymentConfig, Kubernetes 1.33+ v1 Endpoints (KEP-4974, kubernetes/enhancements
 * keps/sig-network/4974-deprecate-endpoints; the real tier answers this text).
 */
const DEPRECATED: Readonly<Record<string, string>> = {
  'apps.openshift.io/deploymentconfigs':
    'apps.openshift.io/v1 DeploymentConfig is deprecated in v4.14+, unavailable in v4.10000+',
  '/endpoints': 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
};

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function allowed(identity: Identity, verb: string, route: Target): boolean {
  const resource = route.subresource ? `${route.info.name}/${route.subresource}` : route.info.name;
  return permits(identity, {
    verb,
    group: route.info.group,
    resource,
    namespace: route.namespace,
    name: route.name,
  });
}

/** The answer to a request, errors included: a Status, or Go's plain 404 for an unknown path. */
export function respondTo(
  served: Served,
  method: string,
  url: URL,
  body: Buffer,
  identity: Identity | undefined,
  request: Request,
): Answer {
  const json = (code: number, value: unknown): Answer => ({
    code,
    type: 'application/json',
    text: JSON.stringify(value),
  });
  try {
    if (!identity) throw unauthorized();
    const openapi = answerOpenApi(served.openapi, method, url, request.headers);
    if (openapi) return openapi;
    const result = dispatch(served, method, url, body, identity, request);
    const warnings = [...(result.warnings ?? [])];
    return { ...json(result.code, result.body), ...(warnings.length > 0 ? { warnings } : {}) };
  } catch (error) {
    if (error instanceof NotFoundPath)
      return { code: 404, type: 'text/plain; charset=utf-8', text: '404 page not found\n' };
    if (error instanceof StatusError) return json(error.code, error.status);
    const message = error instanceof Error ? error.message : String(error);
    return json(500, new StatusError(500, 'InternalError', `Internal error occurred: ${message}`).status);
  }
}

function dispatch(
  served: Served,
  method: string,
  url: URL,
  bytes: Buffer,
  identity: Identity,
  request: Request,
): Result {
  const path = url.pathname.replace(/\/+$/, '') || '/';
  // Path segments arrive percent-encoded (a name may hold "%" or "_"); Go's router decodes them.
  const segments = path.split('/').filter(Boolean).map(decodeSegment);
  if (method === 'GET') {
    const discovery = discoveryAnswer(served.resources, path, segments);
    if (discovery) return discovery;
  }
  if (segments[0] !== 'api' && segments[0] !== 'apis') throw new NotFoundPath();
  const route = parseRoute(served.resources, segments);
  const verb = verbFor(method, route);
  if (!route.info.verbs.includes(verb) && !(route.subresource && ['get', 'patch', 'update'].includes(verb))) {
    throw new StatusError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource`,
      {
        ...(route.info.group === '' ? {} : { group: route.info.group }),
        kind: route.info.name,
        ...(route.name ? { name: route.name } : {}),
      },
    );
  }
  if (!allowed(identity, verb, route)) {
    throw forbidden(
      route.info,
      route.name,
      identity.user,
      verb,
      route.namespace || undefined,
      route.subresource,
    );
  }
  const deprecation = DEPRECATED[`${route.info.group}/${route.info.name}`];
  if (deprecation === undefined) return handle(served, route, method, url, bytes, identity, request);
  // A deprecated API says so on every answer of its route's handler, refusals included (a 404, a
  // 422): kube-apiserver wraps the handler, after authorization (k8s.io/apiserver
  // pkg/endpoints/warning/warning.go AddWarningsHandler).
  try {
    const result = handle(served, route, method, url, bytes, identity, request);
    return { ...result, warnings: [deprecation, ...(result.warnings ?? [])] };
  } catch (error) {
    if (!(error instanceof StatusError)) throw error;
    return { code: error.code, body: error.status, warnings: [deprecation] };
  }
}

/** An authorized request for a resource, as its route's handler answers it. */
function handle(
  served: Served,
  route: Target,
  method: string,
  url: URL,
  bytes: Buffer,
  identity: Identity,
  request: Request,
): Result {
  const lookupError =
    route.name === undefined ? undefined : lookupNameError(route.info.nameRule, route.info.kind, route.name);
  if (lookupError !== undefined) throw badRequest(lookupError);
  if (
    MUTATING.has(method) &&
    route.info.namespaced &&
    route.namespace &&
    !served.store.namespaceExists(route.namespace)
  ) {
    if (!(method === 'DELETE' && route.info.name === 'namespaces')) {
      throw new StatusError(404, 'NotFound', `namespaces "${route.namespace}" not found`, {
        name: route.namespace,
        kind: 'namespaces',
      });
    }
  }
  const objects: ObjectRequest = {
    method,
    query: url.searchParams,
    bytes,
    contentType: (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '',
    userAgent: request.headers['user-agent'],
  };
  if (!proxiedKind(route.info)) admitWrite(served, route, objects, identity);
  const older = served.olderServer === 'pre-511' ? pre511TagWrite(served, route, objects) : objects;
  return (
    computedCreate(route, objects, identity, served.tables) ??
    (proxiedKind(route.info) && !route.subresource
      ? proxyRequest(served.rbac, served.tables, route, objects, identity)
      : objectRequest(served, route, older))
  );
}

/**
 * What kube-apiserver checks inside a write (objects/admission.ts), before the store acts on it: an
 * apply that would create is authorized as a create as well, then the admission the kind has, the
 * validating webhooks (objects/webhooks.ts) and, for a create, ResourceQuota (objects/quota.ts),
 * in the order kube-apiserver runs its plugins.
 */
function admitWrite(served: Served, route: Target, request: ObjectRequest, identity: Identity): void {
  const { info, namespace, name } = route;
  const apply = request.method === 'PATCH' && request.contentType === 'application/apply-patch+yaml';
  const post = request.method === 'POST' && name === undefined;
  if ((!apply && !post) || route.subresource) return;
  const creating = post || (name !== undefined && served.store.peek(info, namespace, name) === undefined);
  if (apply && creating && !allowed(identity, 'create', route))
    throw forbidden(info, name, identity.user, 'create', namespace || undefined);
  const object = writtenObject(request);
  if (object === undefined) return; // The handler answers what does not decode.
  const kind = `${info.group}/${info.name}`;
  const write = { identity, namespace, object, creating };
  if (kind === '/pods') admitPod(served.store, served.resources, write);
  if (kind === 'rbac.authorization.k8s.io/rolebindings')
    admitRoleBinding(served.store, served.resources, write);
  const dryRun = dryRunValues(request.query, apply ? 'PatchOptions' : 'CreateOptions');
  const operation = creating ? 'CREATE' : 'UPDATE';
  admitWebhooks(served.webhooks, info, { namespace, object, operation, dryRun });
  if (creating) admitQuota(served.store, served.resources, { info, namespace, object, dryRun });
}

/** The object a create or apply carries, as admission sees it; `undefined` when it does not decode. */
function writtenObject(request: ObjectRequest): JsonObject | undefined {
  try {
    const object = decodeObjectBody(
      request.contentType === 'application/apply-patch+yaml' ? 'application/json' : request.contentType,
      request.bytes,
    );
    return isObject(object) ? object : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A create the server answers by computing, storing nothing: a processed Template, or the
 * review of what the caller may do.
 */
function computedCreate(
  route: Target,
  request: ObjectRequest,
  identity: Identity,
  tables: TypeTables,
): Result | undefined {
  const { info, namespace, name } = route;
  const computed = info.name === 'processedtemplates' || info.name === 'selfsubjectaccessreviews';
  if (request.method !== 'POST' || name !== undefined || !computed) return undefined;
  dryRunValues(request.query, 'CreateOptions');
  const parsed = decodeObjectBody(request.contentType, request.bytes);
  if (info.name === 'processedtemplates') {
    // Decoded into the Template type first, as any create (handlers/create.go): an unknown field is
    // a 400 under Strict, a warning under Warn.
    const fieldValidation = request.query.get('fieldValidation');
    const decoded = decodeWritten(tables.forKind(info), info, parsed, fieldValidation);
    return { code: 201, body: processTemplate(decoded.body, namespace), warnings: decoded.warnings };
  }
  return { code: 201, body: reviewAccess(identity, parsed) };
}
