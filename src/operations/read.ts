// get()'s step: each target read in order, as the server sends it.
import { RequestError } from '../errors.ts';
import type { KubernetesObject, Missing } from '../types/index.ts';
import { describeRef } from '../checks/refs.ts';
import { type Target } from '../validate.ts';
import { objectPath, type OperationContext, send, uidOf, warningTarget } from './context.ts';

/**
 * Reads each target in order. With `missing: 'null'` a 404, or a live object whose UID is not the
 * ref's (the saved object is gone, another took its name), is `null` in its place.
 */
export async function readAll(
  op: OperationContext,
  targets: readonly Target[],
  missing: Missing,
): Promise<(KubernetesObject | null)[]> {
  const objects: (KubernetesObject | null)[] = [];
  for (const target of targets) {
    try {
      objects.push(await readOne(op, target));
    } catch (error) {
      if (missing === 'error' || !isGone(error)) throw error;
      objects.push(null);
    }
  }
  return objects;
}

function isGone(error: unknown): boolean {
  return error instanceof RequestError && (error.statusCode === 404 || error.code === 'OTC_REPLACED');
}

/** The live object, or `null` for a 404. */
export function readLive(op: OperationContext, target: Target): Promise<KubernetesObject | null> {
  return readOne(op, target).catch((error: unknown) => {
    if (error instanceof RequestError && error.statusCode === 404) return null;
    throw error;
  });
}

export async function readOne(op: OperationContext, target: Target): Promise<KubernetesObject> {
  const { body } = await send(op, {
    method: 'GET',
    path: objectPath(target.ref.apiVersion, target.resource, target.ref.namespace, target.ref.name),
    step: 'Get',
    target: describeRef(target.ref),
    object: warningTarget(target.ref),
    redact: op.redact,
  });
  const expected = target.ref.uid;
  const found = uidOf(body);
  if (expected !== undefined && found !== expected) {
    throw new RequestError(
      'Get',
      describeRef(target.ref),
      `the live object has UID "${found ?? '(none)'}", not the UID "${expected}" of the reference: it was replaced`,
      { code: 'OTC_REPLACED', outcome: 'refused', resource: warningTarget(target.ref) },
    );
  }
  return body as KubernetesObject;
}
