// The shapes every check shares: the list of problems it returns, and how an object is identified
// and named in those problems.
import { groupOf } from './names.ts';
import type { ResourceRef } from '../types/index.ts';

/** The problems a check found, each a sentence naming what and where; empty when clean. */
export type Issues = string[];

export function identityKey(ref: Pick<ResourceRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  return JSON.stringify([groupOf(ref.apiVersion), ref.kind, ref.namespace, ref.name]);
}

export function describeRef(ref: Pick<ResourceRef, 'kind' | 'name' | 'namespace'>): string {
  return `${ref.kind} "${ref.name}" in namespace "${ref.namespace}"`;
}
