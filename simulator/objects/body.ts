// What every written object goes through before it is stored: its type, namespace and name
// checked against the request, and a Secret's write-only `stringData` folded into `data`.
import { setOwn } from '../../src/util/json.ts';
import type { ResourceInfo } from '../types.ts';
import { isObject, type JsonObject, meta, sameValue, str } from './fields.ts';
import { nameErrors } from './names.ts';
import { badRequest, invalid } from './status.ts';
import { checkTypeMeta } from './update.ts';

/** Whether anything but metadata and status changed: what raises `metadata.generation`. */
export function specChanged(before: JsonObject, after: JsonObject): boolean {
  const strip = (o: JsonObject): JsonObject => {
    const { metadata, status, ...rest } = o;
    return rest;
  };
  return !sameValue(strip(before), strip(after));
}

/** Secrets keep `stringData` write-only: merged into base64 `data` and never stored. */
export function foldStringData(info: ResourceInfo, object: JsonObject): void {
  if (info.group !== '' || info.name !== 'secrets') return;
  const stringData = object.stringData;
  if (isObject(stringData)) {
    const data = isObject(object.data) ? object.data : {};
    for (const [key, value] of Object.entries(stringData)) {
      setOwn(data, key, Buffer.from(str(value), 'utf8').toString('base64'));
    }
    object.data = data;
  }
  delete object.stringData;
  if (typeof object.type !== 'string' || object.type === '') object.type = 'Opaque';
}

/**
 * The checks of a created or applied body, which also fill in its namespace and name from the
 * request: type meta, no managedFields, the namespace and the name agree with the URL, name rules.
 */
export function checkBody(
  info: ResourceInfo,
  namespace: string,
  body: JsonObject,
  urlName: string | undefined,
): void {
  checkTypeMeta(info, body);
  const metadata = meta(body);
  if (metadata.managedFields !== undefined && metadata.managedFields !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  if (info.namespaced) {
    const bodyNamespace = str(metadata.namespace);
    if (bodyNamespace !== '' && bodyNamespace !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    metadata.namespace = namespace;
  } else {
    delete metadata.namespace;
  }
  if (urlName !== undefined) {
    const bodyName = str(metadata.name);
    if (bodyName !== '' && bodyName !== urlName) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${urlName})`,
      );
    }
    metadata.name = urlName;
  }
  const name = str(metadata.name);
  if (name !== '') {
    const errors = nameErrors(info.nameRule, name, info.namespaced ? namespace : '');
    if (errors.length > 0) throw invalid({ group: info.group, kind: info.kind }, name, errors);
  }
}
