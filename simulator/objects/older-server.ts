// An older openshift-apiserver, where it differs from the one the simulator serves by default.
//
// 'pre-511': before openshift/openshift-apiserver#511 (commit 379ff7e93, May 2025; backported to
// 4.16-4.19 later) the ImageStreamTag and ImageTag storages wrote their image stream with empty
// options (`&metav1.UpdateOptions{}`, `&metav1.CreateOptions{}` in registry/imagestreamtag and
// registry/imagetag rest.go Create, update and Delete): `dryRun=All` on them was a real write. A
// delete took the tag out of the stream's spec and status, an apply, update or create wrote it into
// the stream's spec (creating the stream when missing). Here every write of these kinds writes the
// stream as those storages did (the default simulator stores tag objects on their own) and is then
// carried out with its dryRun dropped, so the tag object the simulator stores changes for real too.
import { groupVersionOf } from '../discovery/resources.ts';
import type { ResourceInfo } from '../types.ts';
import { isObject, type Json, type JsonObject } from './fields.ts';
import type { ObjectRequest, Target } from './requests.ts';
import type { ObjectStore } from './store.ts';

/** Which older server the simulator plays; `undefined` (the default) is a current one. */
export type OlderServer = 'pre-511';

const TAG_KINDS = new Set(['imagestreamtags', 'imagetags']);

const tagsOf = (value: unknown, key: string): JsonObject[] =>
  isObject(value) && Array.isArray(value[key]) ? value[key].filter(isObject) : [];

/** The request as a pre-#511 tag storage carries it out: the stream written, dryRun ignored. */
export function pre511TagWrite(
  served: { store: ObjectStore; resources: readonly ResourceInfo[] },
  route: Target,
  request: ObjectRequest,
): ObjectRequest {
  const { info, namespace, name } = route;
  if (info.group !== 'image.openshift.io' || !TAG_KINDS.has(info.name) || name === undefined) return request;
  if (route.subresource || request.method === 'GET' || !allValid(request)) return request;
  const streams = served.resources.find((r) => r.group === info.group && r.name === 'imagestreams');
  const [stream = '', tag = ''] = name.split(':');
  if (!streams) return request;
  const live = served.store.peek(streams, namespace, stream);
  const manager = request.query.get('fieldManager') ?? 'openshift-apiserver';
  const write = { fieldManager: manager, dryRun: false };
  const others = tagsOf(live?.spec, 'tags').filter((t) => t.name !== tag);
  if (request.method === 'DELETE') {
    const status = isObject(live?.status) ? live.status : undefined;
    const held = (t: JsonObject): boolean => t.name === tag;
    if (live === undefined || !tagsOf(live.spec, 'tags').some(held)) return undried(request);
    served.store.mergePatch(streams, namespace, stream, { spec: { tags: others as Json[] } }, write);
    if (tagsOf(status, 'tags').some((t) => t.tag === tag)) {
      const kept = tagsOf(status, 'tags').filter((t) => t.tag !== tag);
      served.store.setStatus(streams, namespace, stream, { ...status, tags: kept as Json[] });
    }
    return undried(request);
  }
  let body: unknown;
  try {
    body = JSON.parse(request.bytes.toString('utf8'));
  } catch {
    return undried(request); // The handler answers what does not decode.
  }
  const reference = isObject(body) ? (info.kind === 'ImageTag' ? body.spec : body.tag) : undefined;
  if (!isObject(reference)) return undried(request);
  const tags = [...others, { ...reference, name: tag }] as Json[];
  if (live === undefined) {
    const object = { apiVersion: groupVersionOf(streams), kind: 'ImageStream', metadata: { name: stream } };
    served.store.create(streams, namespace, { ...object, spec: { tags } }, write);
  } else {
    served.store.mergePatch(streams, namespace, stream, { spec: { tags } }, write);
  }
  return undried(request);
}

/** Whether every dryRun value, in the query and a DeleteOptions body, is `All` (else the handler's 422). */
function allValid(request: ObjectRequest): boolean {
  let options: unknown;
  try {
    options = request.method === 'DELETE' ? JSON.parse(request.bytes.toString('utf8') || '{}') : {};
  } catch {
    return false; // The handler answers what does not decode.
  }
  const inBody = isObject(options) && Array.isArray(options.dryRun) ? options.dryRun : [];
  return [...request.query.getAll('dryRun'), ...inBody].every((v) => v === 'All');
}

/** The request with every dryRun value dropped from its query and its DeleteOptions body. */
function undried(request: ObjectRequest): ObjectRequest {
  const query = new URLSearchParams(request.query);
  query.delete('dryRun');
  let bytes = request.bytes;
  if (request.method === 'DELETE' && bytes.toString('utf8').trim() !== '') {
    const options: unknown = JSON.parse(bytes.toString('utf8')); // allValid decoded it already
    if (isObject(options)) bytes = Buffer.from(JSON.stringify({ ...options, dryRun: [] }));
  }
  return { ...request, query, bytes };
}
