// Requests about stored objects: get and list, create, server-side apply, merge patch, update and
// delete, each turned into one call on the store with the options its query and body carry.
import { findResource } from '../discovery/resources.ts';
import { decodeObjectBody, parseJson, unsupportedMediaType } from '../http/request-body.ts';
import type { ResourceInfo, Result } from '../types.ts';
import type { JsonObject } from './fields.ts';
import type { TypeTables } from '../discovery/openapi/tables.ts';
import { refuseManagedFields } from './applied-meta.ts';
import { checkDuplicateFields } from './duplicates.ts';
import { deleteOptionsFromBody, deleteOptionsFromQuery, dryRunValues } from './options.ts';
import { invalid, StatusError } from './status.ts';
import type { ObjectStore } from './store.ts';
import { decodePatched, decodeWritten, typeApplied } from './typing.ts';

/** The resource a request path names, and the object in it when the path goes that deep. */
export interface Target {
  info: ResourceInfo;
  namespace: string;
  name: string | undefined;
  subresource: string | undefined;
}

/** One request to the object handlers, with only the parts of it they read. */
export interface ObjectRequest {
  method: string;
  query: URLSearchParams;
  bytes: Buffer;
  /** The media type alone, without parameters. */
  contentType: string;
  userAgent: string | undefined;
}

/** kube-apiserver names an unnamed writer after its user agent's program name. */
function defaultManager(userAgent: string | undefined): string {
  const agent = userAgent ?? 'unknown';
  return agent.split('/')[0] ?? 'unknown';
}

/** What the object handlers read and change: the store, the resources served, their types. */
export interface ObjectServed {
  store: ObjectStore;
  resources: readonly ResourceInfo[];
  tables: TypeTables;
}

export function objectRequest(served: ObjectServed, target: Target, request: ObjectRequest): Result {
  const { store, resources } = served;
  const { info, namespace, name } = target;
  const { method, query, bytes, contentType } = request;
  const body = bytes.toString('utf8');
  const fieldValidation = query.get('fieldValidation');
  const decode = (value: unknown): { body: unknown; warnings: string[] } =>
    decodeWritten(served.tables.forKind(info), info, value, fieldValidation);
  if (method === 'GET') {
    return name === undefined
      ? { code: 200, body: store.list(info, namespace || undefined) }
      : { code: 200, body: store.get(info, namespace, name) };
  }
  if (method === 'POST' && name === undefined) {
    const dryRun = dryRunValues(query, 'CreateOptions');
    const decoded = decode(decodeObjectBody(contentType, bytes));
    const manager = query.get('fieldManager') ?? defaultManager(request.userAgent);
    return {
      code: 201,
      body: store.create(info, namespace, decoded.body, { fieldManager: manager, dryRun }),
      warnings: decoded.warnings,
    };
  }
  if (method === 'PATCH' && name !== undefined) {
    return patchRequest(served, { ...target, name }, request);
  }
  if (method === 'PUT' && name !== undefined && !target.subresource) {
    const options = {
      fieldManager: query.get('fieldManager') ?? defaultManager(request.userAgent),
      dryRun: dryRunValues(query, 'UpdateOptions'),
      hasStatus: findResource(resources, info.group, info.version, `${info.name}/status`) !== undefined,
    };
    const decoded = decode(decodeObjectBody(contentType, bytes));
    return {
      code: 200,
      body: store.update(info, namespace, name, decoded.body, options),
      warnings: decoded.warnings,
    };
  }
  if (method === 'DELETE' && name !== undefined) {
    const options =
      body.trim() === '' ? deleteOptionsFromQuery(query) : deleteOptionsFromBody(parseJson(body));
    return { code: 200, body: store.delete(info, namespace, name, options) };
  }
  throw new StatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

/** PATCH: server-side apply or a JSON merge patch, chosen by the media type. */
function patchRequest(
  served: ObjectServed,
  target: Target & { name: string },
  request: ObjectRequest,
): Result {
  const { store } = served;
  const { info, namespace, name } = target;
  const { query, contentType } = request;
  const body = request.bytes.toString('utf8');
  const fieldValidation = query.get('fieldValidation');
  const dryRun = dryRunValues(query, 'PatchOptions');
  if (contentType === 'application/apply-patch+yaml') {
    if (target.subresource) throw unsupportedMediaType(['application/merge-patch+json']);
    const fieldManager = query.get('fieldManager') ?? '';
    if (fieldManager === '') {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
        { type: 'Required', field: 'fieldManager', detail: 'is required for apply patch' },
      ]);
    }
    const force = query.get('force') === 'true';
    const parsed = parseJson(body);
    refuseManagedFields(parsed);
    typeApplied(served.tables.forKind(info), info, parsed);
    const warnings = checkDuplicateFields(body, fieldValidation);
    const { object, created } = store.apply(info, namespace, name, parsed, {
      fieldManager,
      force,
      dryRun,
    });
    return { code: created ? 201 : 200, body: object, warnings };
  }
  if (contentType === 'application/merge-patch+json') {
    const fieldManager = query.get('fieldManager') ?? defaultManager(request.userAgent);
    const warnings: string[] = [];
    const decode = (patched: JsonObject): JsonObject => {
      const decoded = decodePatched(served.tables.forKind(info), info, patched, fieldValidation);
      warnings.push(...decoded.warnings);
      return decoded.body;
    };
    const options = {
      fieldManager,
      dryRun,
      decode,
      ...(target.subresource ? { subresource: target.subresource } : {}),
    };
    return { code: 200, body: store.mergePatch(info, namespace, name, parseJson(body), options), warnings };
  }
  throw unsupportedMediaType(['application/merge-patch+json', 'application/apply-patch+yaml']);
}
