// Every written body typed against its kind's schema, as kube-apiserver types it:
// - server-side apply (k8s.io/apiserver pkg/endpoints/handlers/patch.go applyPatcher): the patch
//   is typed by structured-merge-diff before anything else, whatever `fieldValidation` says
//   (apimachinery pkg/util/managedfields/internal/structuredmerge.go Apply: a problem is a plain
//   error, so a 500 with no reason), dry runs too;
// - create, update and merge patch (handlers/create.go, update.go, patch.go; KEP-2885): the body
//   is decoded into the kind's Go type, where a wrong type or a value the type cannot hold is a
//   400, and unknown fields are a 400 under `Strict`, dropped with a warning each under `Warn` (and
//   without a directive), dropped silently under `Ignore`.
import {
  applyRefusal,
  createDecodeMessage,
  pruneUndeclared,
  strictDecodingMessage,
  typeValue,
  unknownField,
  type ObjectIdentity,
} from '../../src/schema/index.ts';
import type { KindTypes } from '../discovery/openapi/tables.ts';
import type { ResourceInfo } from '../types.ts';
import { isObject, type JsonObject } from './fields.ts';
import { badRequest, StatusError } from './status.ts';

function apiVersionOf(info: ResourceInfo): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

/** Whether the body names the resource's kind; one that does not is refused later by checkBody. */
function namesKind(info: ResourceInfo, body: JsonObject): boolean {
  return body.apiVersion === apiVersionOf(info) && body.kind === info.kind;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

// managedfields objectGVKNN: the namespace and name the patch itself carries.
function identityOf(info: ResourceInfo, body: JsonObject): ObjectIdentity {
  const metadata = isObject(body.metadata) ? body.metadata : {};
  const namespace = text(metadata.namespace);
  return {
    apiVersion: apiVersionOf(info),
    kind: info.kind,
    name: text(metadata.name),
    ...(namespace === '' ? {} : { namespace }),
  };
}

/** Refuses a server-side apply body its kind's schema does not type, or its Go type cannot hold. */
export function typeApplied(types: KindTypes | undefined, info: ResourceInfo, body: unknown): void {
  if (types === undefined || !isObject(body) || !namesKind(info, body)) return;
  const typed = typeValue(types.table, body, types.type, { report: 'server', decode: types.builtIn });
  const refusal = applyRefusal(identityOf(info, body), typed);
  if (refusal !== undefined) throw new StatusError(500, '', refusal);
}

/** A create, update or merge-patch body as decoded: without its unknown fields, and the warnings. */
export interface Decoded {
  body: unknown;
  warnings: string[];
}

/**
 * Decodes a create or update body (`whole`) or a merge patch (not `whole`: typed as the part of
 * an object it is) the way kube-apiserver decodes it into the kind's type.
 */
export function decodeWritten(
  types: KindTypes | undefined,
  info: ResourceInfo,
  body: unknown,
  options: { fieldValidation: string | null; whole: boolean },
): Decoded {
  if (types === undefined || !isObject(body) || (options.whole && !namesKind(info, body))) {
    return { body, warnings: [] };
  }
  const object = { ...body, apiVersion: apiVersionOf(info), kind: info.kind };
  const pruned = pruneUndeclared(types.table, object, { decode: types.builtIn });
  // Custom resources are decoded into plain maps: no Go type refuses a value there.
  const refused = types.builtIn
    ? [...pruned.problems.filter((p) => p.kind === 'type'), ...pruned.decodeProblems]
    : [];
  const first = refused.find((p) => p.createReason !== undefined);
  if (first?.createReason !== undefined) {
    throw badRequest(createDecodeMessage(identityOf(info, object), first.createReason));
  }
  const unknown = pruned.removed.map((p) => p.strictPath);
  if (unknown.length > 0 && options.fieldValidation === 'Strict') {
    throw badRequest(strictDecodingMessage(unknown));
  }
  const decoded = pruned.object;
  for (const key of ['apiVersion', 'kind'])
    if (!Object.hasOwn(body, key)) Reflect.deleteProperty(decoded, key);
  const warnings = options.fieldValidation === 'Ignore' ? [] : unknown.map(unknownField);
  return { body: decoded, warnings };
}
