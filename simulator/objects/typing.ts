// Every written body typed against its kind's schema, as kube-apiserver types it:
// - server-side apply (k8s.io/apiserver pkg/endpoints/handlers/patch.go applyPatcher): the patch
//   is typed by structured-merge-diff before anything else, whatever `fieldValidation` says
//   (apimachinery pkg/util/managedfields/internal/structuredmerge.go Apply: a problem is a plain
//   error, so a 500 with no reason), dry runs too;
// - create and update (handlers/create.go, update.go; KEP-2885): the body is decoded into the
//   kind's Go type, where a wrong type or a value the type cannot hold is a 400, and unknown fields
//   are a 400 under `Strict`, dropped with a warning each under `Warn` (and without a directive),
//   dropped silently under `Ignore`; a merge patch the same, on the patched object, with a 422.
import { pruneUndeclared, typeValue } from '../../src/schema/index.ts';
import { goQuote } from '../../src/util/quote.ts';
import type { KindTypes } from '../discovery/openapi/tables.ts';
import type { ResourceInfo } from '../types.ts';
import { isObject, type JsonObject } from './fields.ts';
import {
  applyRefusal,
  createDecodeMessage,
  strictDecodingMessage,
  unknownField,
  type ObjectIdentity,
} from './refusals.ts';
import { badRequest, invalid, StatusError } from './status.ts';

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
  const typed = typeValue(types.table, body, types.type, { decode: types.builtIn });
  const refusal = applyRefusal(identityOf(info, body), typed);
  if (refusal !== undefined) throw new StatusError(500, '', refusal);
}

/** A body as decoded: without its unknown fields, and the warnings they draw. */
export interface Decoded {
  body: unknown;
  warnings: string[];
}

interface Outcome {
  object: JsonObject;
  /** The unknown fields, in apimachinery's strict path syntax, in document order. */
  unknown: string[];
  /** Why the Go type cannot hold the body (encoding/json's words), if it cannot. */
  refused?: string;
}

function decodeInto(types: KindTypes, info: ResourceInfo, body: JsonObject): Outcome {
  const object = { ...body, apiVersion: apiVersionOf(info), kind: info.kind };
  const pruned = pruneUndeclared(types.table, object, { decode: types.builtIn });
  // Custom resources are decoded into plain maps: no Go type refuses a value there.
  const refused = types.builtIn
    ? [...pruned.problems.filter((p) => p.kind === 'type'), ...pruned.decodeProblems].find(
        (p) => p.createReason !== undefined,
      )?.createReason
    : undefined;
  // A copy of JSON holds JSON only.
  const decoded = pruned.object as JsonObject;
  for (const key of ['apiVersion', 'kind'])
    if (!Object.hasOwn(body, key)) Reflect.deleteProperty(decoded, key);
  return {
    object: decoded,
    unknown: pruned.removed.map((p) => p.strictPath),
    ...(refused === undefined ? {} : { refused }),
  };
}

function warned(unknown: string[], fieldValidation: string | null): string[] {
  return fieldValidation === 'Ignore' ? [] : unknown.map(unknownField);
}

/**
 * Decodes a create or update body the way kube-apiserver decodes it into the kind's type: a decode
 * failure, or unknown fields under `Strict`, is a 400 (handlers/rest.go transformDecodeError).
 */
export function decodeWritten(
  types: KindTypes | undefined,
  info: ResourceInfo,
  body: unknown,
  fieldValidation: string | null,
): Decoded {
  if (types === undefined || !isObject(body) || !namesKind(info, body)) return { body, warnings: [] };
  const outcome = decodeInto(types, info, body);
  const strict = fieldValidation === 'Strict' && outcome.unknown.length > 0;
  const reason = outcome.refused ?? (strict ? strictDecodingMessage(outcome.unknown) : undefined);
  if (reason !== undefined) throw badRequest(createDecodeMessage(identityOf(info, body), reason));
  return { body: outcome.object, warnings: warned(outcome.unknown, fieldValidation) };
}

/**
 * Decodes a merge-patched object into the kind's type (handlers/patch.go jsonPatcher): a decode
 * failure, or unknown fields under `Strict`, is a 422 on the field `patch`, whose value is the
 * patched object.
 */
export function decodePatched(
  types: KindTypes | undefined,
  info: ResourceInfo,
  patched: JsonObject,
  fieldValidation: string | null,
): Decoded & { body: JsonObject } {
  if (types === undefined) return { body: patched, warnings: [] };
  const outcome = decodeInto(types, info, patched);
  const strict = fieldValidation === 'Strict' && outcome.unknown.length > 0;
  const reason = outcome.refused ?? (strict ? strictDecodingMessage(outcome.unknown) : undefined);
  if (reason !== undefined) {
    const value = goQuote(JSON.stringify(patched));
    throw invalid({ group: '', kind: '' }, '', [{ type: 'Invalid', field: 'patch', value, detail: reason }]);
  }
  return { body: outcome.object, warnings: warned(outcome.unknown, fieldValidation) };
}
