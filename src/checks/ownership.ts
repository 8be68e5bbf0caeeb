// Who owns a live object (the owner label, then managedFields): the rule by which a replay deletes
// only what its field manager made and create() checks adoption (docs/ownership.md).
import { createHash } from 'node:crypto';
import { OperationError, RequestError } from '../errors.ts';
import type { DeleteResult, ResourceRef } from '../types/index.ts';
import { hasText, isRecord } from '../util/json.ts';
import { resourceCreatedByPost } from './created-by-post.ts';
import { isLabelValue } from './labels.ts';
import { describeRef } from './refs.ts';

/** The label every object `create()` applies carries; its value names the field manager. */
export const OWNER_LABEL = 'openshift-template-client/field-manager';

/**
 * The owner label's value: the field manager when it is a valid label value, else `sha256-` and 40
 * hex digits of its digest, which keeps managers apart as a cut would not.
 */
export function ownerLabelValue(fieldManager: string): string {
  if (isLabelValue(fieldManager)) return fieldManager;
  return `sha256-${createHash('sha256').update(fieldManager, 'utf8').digest('hex').slice(0, 40)}`;
}

/** A copy of a rendered object with the owner label set over one the Template gave. */
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

/** The owner label's value on a live object, if any. */
function ownerLabelOf(object: unknown): string | undefined {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  const value = isRecord(metadata.labels) ? metadata.labels[OWNER_LABEL] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Kinds whose labels live in their image stream: create() does not refuse to take one over. */
const UNLABELLED = new Set(['image.openshift.io/v1 ImageStreamTag', 'image.openshift.io/v1 ImageTag']);

/** Whether an existing object of this kind goes through create()'s adoption check. */
export function adoptionChecked(ref: Pick<ResourceRef, 'apiVersion' | 'kind'>): boolean {
  return !UNLABELLED.has(`${ref.apiVersion} ${ref.kind}`);
}

/** Client tools whose Update entry declares an object, as a controller's does not (`oc`: its User-Agent). */
const CLIENT_TOOL_MANAGERS: readonly string[] = [
  'kubectl-client-side-apply',
  'kubectl-create',
  'kubectl-edit',
  'kubectl-replace',
  'oc',
];

/** One managedFields entry, as a delete result reports it. */
type ManagerEntry = NonNullable<DeleteResult['managers']>[number];

/** The object's managedFields entries in the server's order, malformed ones skipped. */
export function managersOf(object: unknown): ManagerEntry[] {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? (metadata.managedFields as unknown[]) : [];
  return entries.flatMap((entry): ManagerEntry[] => {
    if (!isRecord(entry)) return [];
    const { manager, operation, subresource } = entry;
    if (typeof manager !== 'string' || (operation !== 'Apply' && operation !== 'Update')) return [];
    const sub = hasText(subresource) ? { subresource } : {};
    return [{ manager, operation, ...sub }];
  });
}

/**
 * Whether the live object is the job's own: by its owner label, else as {@link ownedBy} reads its entries.
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

/** The other managers that declare the main resource (an Apply, or a client tool's Update), each once. */
export function otherDeclarers(managers: readonly ManagerEntry[], fieldManager: string): string[] {
  const declaring = managers.filter(
    (m) =>
      m.manager !== fieldManager &&
      m.subresource === undefined &&
      (m.operation === 'Apply' || CLIENT_TOOL_MANAGERS.includes(m.manager)),
  );
  return [...new Set(declaring.map((m) => m.manager))];
}

/** The mark (owner label, else the sole Apply entry) of another manager that applied the object. */
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

/** For objects from before the owner label: an Apply entry of `fieldManager` on the main resource. */
function ownedBy(
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

/** What a delete says of an object it left alone because another made it. */
export function notOwnedText(ref: ResourceRef, fieldManager: string, live: unknown): string {
  return (
    `left ${describeRef(ref)} alone: field manager "${fieldManager}" did not apply it (${evidence(live)}); ` +
    'pass the fieldManager the create used, or ownership "any" to delete by name'
  );
}

/** What the object says of its owners: the owner label, or its absence, and its managers. */
function evidence(live: unknown): string {
  const label = ownerLabelOf(live);
  const mark = label === undefined ? `no label ${OWNER_LABEL}` : `label ${OWNER_LABEL}="${label}"`;
  const each = managersOf(live).map(
    (m) => `"${m.manager}" (${m.operation}${m.subresource === undefined ? '' : ` of ${m.subresource}`})`,
  );
  const managers = each.length === 0 ? 'it has no field managers' : `its field managers: ${each.join(', ')}`;
  return `${mark}; ${managers}`;
}

/** Why create() refuses to take over an existing object, or, `adopted`, what it took over. */
export function notAdoptedText(fieldManager: string, live: unknown, adopted = false): string {
  const found = `the object exists and field manager "${fieldManager}" does not manage it (${evidence(live)})`;
  return adopted
    ? found
    : `${found}; nothing was written: pass adopt: true to take it over, or give the job names no other object has`;
}

/** create()'s refusal of an existing object this field manager does not manage: nothing written. */
export function notAdoptedError(ref: ResourceRef, fieldManager: string, live: unknown): RequestError {
  return new RequestError('Apply', describeRef(ref), notAdoptedText(fieldManager, live), {
    code: 'OTC_NOT_ADOPTED',
    outcome: 'refused',
    resource: identity(ref),
  });
}

/** What a delete says about an object replaced between its read and its DELETE. */
export function replacedText(ref: ResourceRef): string {
  return `left ${describeRef(ref)} alone: replaced by another object of the same name after it was read (the UID precondition failed)`;
}

const identity = (ref: ResourceRef): Pick<ResourceRef, 'apiVersion' | 'kind' | 'name' | 'namespace'> => ({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  name: ref.name,
  namespace: ref.namespace,
});

/**
 * The refusal of a replay whose every target carries the mark of one other manager (`lives`: `null`
 * for a 404, `undefined` for a failed read): resolving would hide the forgotten `fieldManager`.
 */
export function wrongManagerError(
  refs: readonly ResourceRef[],
  lives: readonly unknown[],
  fieldManager: string,
): OperationError | undefined {
  const marks = refs.map((ref, i) => {
    const live = lives[i];
    return live === undefined || live === null ? undefined : foreignMark(live, fieldManager, ref);
  });
  const [first] = marks;
  if (first === undefined || !marks.every((m) => m === first)) return undefined;
  const text =
    `not deleted: it carries the mark of field manager "${first}" (its owner label, or its Apply entry), ` +
    `not of "${fieldManager}", as every object of the job does; pass the fieldManager the create used (nothing was deleted)`;
  // In deletion order, as every other delete failure is.
  const failures = [...refs].reverse().map((ref) => ({
    resource: ref,
    error: new RequestError('Delete', describeRef(ref), text, {
      code: 'OTC_WRONG_FIELD_MANAGER',
      outcome: 'not-sent',
      resource: identity(ref),
    }),
  }));
  return new OperationError('Delete', [], failures);
}

/** The failure of a target whose resourceVersion changed before every DELETE (`rereads` + 1). */
export function stillChangingError(ref: ResourceRef, rereads: number, cause: RequestError): RequestError {
  const detail =
    `not deleted: its resourceVersion changed before each of ${rereads + 1} DELETEs, ` +
    `the last ${rereads} after reading it again; run the replay again once it has settled`;
  return new RequestError('Delete', describeRef(ref), detail, {
    cause,
    code: 'OTC_STILL_CHANGING',
    outcome: 'refused',
    resource: identity(ref),
  });
}
