// Kinds added while the simulator runs, as a CRD's creation adds one to a real cluster: discovery
// lists it, its objects can be stored, and /openapi/v3 publishes its schema under a new hash.
import { custom } from '../resources.ts';
import type { ResourceInfo } from '../../types.ts';
import type { JsonObject } from '../../objects/fields.ts';
import type { OpenApiDocuments } from './documents.ts';

/** A custom resource to serve from now on, with the schema its CRD version would carry. */
export interface AddedKind {
  /** A CRD's group: never empty. */
  group: string;
  version: string;
  /** The resource name in URLs (the CRD's plural). */
  plural: string;
  kind: string;
  /** Default true. */
  namespaced?: boolean;
  /** Serve a `status` subresource. Default false. */
  status?: boolean;
  shortNames?: string[];
  categories?: string[];
  /** The CRD version's `schema.openAPIV3Schema`. */
  schema: JsonObject;
}

export function addKind(
  resources: ResourceInfo[],
  documents: OpenApiDocuments | undefined,
  added: AddedKind,
): void {
  const { group, version, plural, kind } = added;
  if (group === '') throw new Error(`a custom resource needs a group: ${kind}`);
  if (
    resources.some(
      (r) => r.group === group && r.version === version && (r.name === plural || r.kind === kind),
    )
  ) {
    throw new Error(`${group}/${version} already serves ${plural} or ${kind}`);
  }
  const groupVersion = `${group}/${version}`;
  const extra: Partial<ResourceInfo> = {
    namespaced: added.namespaced ?? true,
    singularName: kind.toLowerCase(),
    ...(added.shortNames ? { shortNames: added.shortNames } : {}),
    ...(added.categories ? { categories: added.categories } : {}),
  };
  const entries = [custom(groupVersion, plural, kind, extra)];
  if (added.status === true) {
    entries.push(
      custom(groupVersion, `${plural}/status`, kind, {
        namespaced: extra.namespaced ?? true,
        verbs: ['get', 'patch', 'update'],
      }),
    );
  }
  resources.push(...entries);
  documents?.add(entries, added.schema);
}

/** A CRD update: a kind added earlier gets a new `openAPIV3Schema`, and its document a new hash. */
export function changeKindSchema(
  resources: readonly ResourceInfo[],
  documents: OpenApiDocuments | undefined,
  changed: Pick<AddedKind, 'group' | 'version' | 'kind' | 'schema'>,
): void {
  const { group, version, kind } = changed;
  const main = resources.find(
    (r) => r.group === group && r.version === version && r.kind === kind && !r.name.includes('/'),
  );
  if (!main) throw new Error(`${group}/${version} serves no ${kind}`);
  documents?.change(main, changed.schema);
}
