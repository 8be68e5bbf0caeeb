// Who owns a live object, read from its metadata.managedFields: the rule a template-mode delete
// follows, so that a replay deletes only what its own field manager made and leaves the rest.
import type { DeleteResult, ResourceRef } from '../types.ts';
import { isRecord } from '../util/json.ts';
import { resourceCreatedByPost } from './created-by-post.ts';
import { describeRef } from './refs.ts';

/** One managedFields entry, as a delete result reports it. */
export type ManagerEntry = NonNullable<DeleteResult['managers']>[number];

/** The object's managedFields entries in the server's order; malformed entries are skipped. */
export function managersOf(object: unknown): ManagerEntry[] {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? (metadata.managedFields as unknown[]) : [];
  return entries.flatMap((entry): ManagerEntry[] => {
    if (!isRecord(entry) || typeof entry.manager !== 'string') return [];
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') return [];
    const subresource = typeof entry.subresource === 'string' ? entry.subresource : '';
    return [
      {
        manager: entry.manager,
        operation: entry.operation,
        ...(subresource === '' ? {} : { subresource }),
      },
    ];
  });
}

/**
 * Whether `fieldManager` owns the object: an entry of it for the main resource, made by an apply
 * (or by the POST `create()` falls back to where an apply cannot create the kind). An entry of a subresource (a
 * status write) does not count; other managers beside it (controllers co-own most workloads) do not
 * matter.
 */
export function ownedBy(
  managers: readonly ManagerEntry[],
  fieldManager: string,
  ref: Pick<ResourceRef, 'apiVersion' | 'kind'>,
): boolean {
  // A kind create() makes with a POST records the manager's entry as an Update.
  const updateCounts = resourceCreatedByPost(ref) !== undefined;
  return managers.some(
    (m) =>
      m.manager === fieldManager && m.subresource === undefined && (m.operation === 'Apply' || updateCounts),
  );
}

function listed(managers: readonly ManagerEntry[]): string {
  if (managers.length === 0) return 'it has no field managers';
  const each = managers.map(
    (m) => `"${m.manager}" (${m.operation}${m.subresource === undefined ? '' : ` of ${m.subresource}`})`,
  );
  return `its field managers: ${each.join(', ')}`;
}

/** What a delete says about an object it left alone because another made it. */
export function notOwnedText(
  ref: ResourceRef,
  fieldManager: string,
  managers: readonly ManagerEntry[],
): string {
  return (
    `left ${describeRef(ref)} alone: field manager "${fieldManager}" did not apply it (${listed(managers)}); ` +
    'pass the fieldManager the create used, or ownership "any" to delete by name'
  );
}

/** What a delete says about an object replaced between its read and its DELETE. */
export function replacedText(ref: ResourceRef): string {
  return `left ${describeRef(ref)} alone: replaced by another object of the same name after it was read (the UID precondition failed)`;
}
