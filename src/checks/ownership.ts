// Who owns a live object: the library's own label names the field manager that applied it (every
// object create() applies carries it), and metadata.managedFields show who else declares it. The
// rule a template-mode delete and create()'s adoption check follow, so that a replay deletes only
// what its own field manager made, gives up what another also wants, and leaves the rest.
import { createHash } from 'node:crypto';
import type { DeleteResult, ResourceRef } from '../types.ts';
import { isRecord } from '../util/json.ts';
import { resourceCreatedByPost } from './created-by-post.ts';
import { isLabelValue } from './labels.ts';
import { describeRef } from './refs.ts';

/**
 * The label every object `create()` applies carries; its value names the field manager.
 *
 * @example
 * object.metadata?.labels?.[OWNER_LABEL] === ownerLabelValue('mini-scheduler');
 */
export const OWNER_LABEL = 'openshift-template-client/field-manager';

/**
 * The owner label's value for a field manager: the manager itself when it is a valid label value
 * (at most 63 alphanumerics, `-`, `_`, `.`, alphanumeric at both ends), else `sha256-` and the
 * first 40 hex digits of the SHA-256 of its UTF-8 bytes. A field manager may be any string of up
 * to 128 characters, a label value may not; the digest keeps such managers apart, as a cut or a
 * substitution of the characters would not.
 *
 * @example
 * ownerLabelValue('mini-scheduler'); // 'mini-scheduler'
 * ownerLabelValue('team a/ci'); // 'sha256-…' (47 characters)
 */
export function ownerLabelValue(fieldManager: string): string {
  if (isLabelValue(fieldManager)) return fieldManager;
  return `sha256-${createHash('sha256').update(fieldManager, 'utf8').digest('hex').slice(0, 40)}`;
}

/**
 * A copy of a rendered object with the owner label set (the library's value replaces one the
 * Template gave), every other key kept as it was.
 *
 * @example
 * const body = withOwnerLabel(object, 'mini-scheduler');
 */
export function withOwnerLabel(
  object: Record<string, unknown>,
  fieldManager: string,
): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  return {
    ...object,
    metadata: { ...metadata, labels: { ...labels, [OWNER_LABEL]: ownerLabelValue(fieldManager) } },
  };
}

/** The owner label's value on a live object, `undefined` on one without it (applied before it). */
export function ownerLabelOf(object: unknown): string | undefined {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  const value = isRecord(metadata.labels) ? metadata.labels[OWNER_LABEL] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The kinds whose storage keeps no labels of their own (an ImageStreamTag's are the tag's in the
 * image stream, an ImageTag's likewise): `create()` does not refuse to take over an existing one.
 */
const UNLABELLED = new Set(['image.openshift.io/v1 ImageStreamTag', 'image.openshift.io/v1 ImageTag']);

/**
 * Whether an existing object of this kind goes through create()'s adoption check.
 *
 * @example
 * adoptionChecked({ apiVersion: 'v1', kind: 'ConfigMap' }); // true
 */
export function adoptionChecked(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): boolean {
  return !UNLABELLED.has(`${ref.apiVersion} ${ref.kind}`);
}

/**
 * The field managers of client tools that make an object by hand and record it as an Update:
 * kubectl's create, edit, replace and client-side apply (oc runs the same commands under the same
 * names), and `oc` itself, the name kube-apiserver gives an oc command that sends no field
 * manager (the first word of its User-Agent). An Update entry of one of these declares the object;
 * a controller's Update entry does not.
 */
export const CLIENT_TOOL_MANAGERS: readonly string[] = [
  'kubectl-client-side-apply',
  'kubectl-create',
  'kubectl-edit',
  'kubectl-replace',
  'oc',
];

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
 * Whether the live object is the job's own: its owner label names `fieldManager`; on an object
 * without the label (applied before it), an entry of `fieldManager` as {@link ownedBy} reads it.
 *
 * @example
 * if (isMine(live, 'mini-scheduler', ref)) console.log('the job made it');
 */
export function isMine(
  live: unknown,
  fieldManager: string,
  ref: Pick<ResourceRef, 'apiVersion' | 'kind'>,
): boolean {
  const label = ownerLabelOf(live);
  if (label !== undefined) return label === ownerLabelValue(fieldManager);
  return ownedBy(managersOf(live), fieldManager, ref);
}

/**
 * The other managers that declare the object, so that deleting it would take what they want: an
 * Apply entry of another manager, or an Update entry of a client tool ({@link CLIENT_TOOL_MANAGERS}),
 * for the main resource. Each named once, in the server's order.
 *
 * @example
 * otherDeclarers(managersOf(live), 'mini-scheduler'); // ['kubectl-create']
 */
export function otherDeclarers(managers: readonly ManagerEntry[], fieldManager: string): string[] {
  const declaring = managers.filter(
    (m) =>
      m.manager !== fieldManager &&
      m.subresource === undefined &&
      (m.operation === 'Apply' || CLIENT_TOOL_MANAGERS.includes(m.manager)),
  );
  return [...new Set(declaring.map((m) => m.manager))];
}

/**
 * The mark of the manager a live object was applied by when that is not `fieldManager`: its owner
 * label, or on an object without the label the one manager with an Apply entry. `undefined` when
 * the object is the job's own or carries no such single mark.
 *
 * @example
 * foreignMark(live, 'mini-scheduler', ref); // 'my-scheduler'
 */
export function foreignMark(
  live: unknown,
  fieldManager: string,
  ref: Pick<ResourceRef, 'apiVersion' | 'kind'>,
): string | undefined {
  if (isMine(live, fieldManager, ref)) return undefined;
  const label = ownerLabelOf(live);
  if (label !== undefined) return label;
  const applied = new Set(
    managersOf(live)
      .filter((m) => m.operation === 'Apply' && m.subresource === undefined)
      .map((m) => m.manager),
  );
  return applied.size === 1 ? ownerLabelValue([...applied][0] ?? '') : undefined;
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
    `left ${describeRef(ref)} alone: field manager "${fieldManager}" did not apply it (${labelled(managers)}); ` +
    'pass the fieldManager the create used, or ownership "any" to delete by name'
  );
}

function labelled(managers: readonly ManagerEntry[]): string {
  return `no label ${OWNER_LABEL} naming it; ${listed(managers)}`;
}

/** Why create() refuses to take over an existing object (OTC_NOT_ADOPTED), or, `adopted`, what it took over. */
export function notAdoptedText(
  fieldManager: string,
  managers: readonly ManagerEntry[],
  adopted = false,
): string {
  const found = `the object exists and field manager "${fieldManager}" does not manage it (${labelled(managers)})`;
  return adopted
    ? found
    : `${found}; nothing was written: pass adopt: true to take it over, or give the job names no other object has`;
}

/** What a delete says about an object replaced between its read and its DELETE. */
export function replacedText(ref: ResourceRef): string {
  return `left ${describeRef(ref)} alone: replaced by another object of the same name after it was read (the UID precondition failed)`;
}
