// The per-connection discovery cache: one shared request per group-version, which no single
// caller's signal can cancel, and a bounded re-discovery when a kind is missing (a CRD installed
// after connect(), or a transient 404), as client-go's deferred discovery mapper does.
import { isRecord } from '../util/json.ts';
import { type Fetch, SharedAnswers } from './shared-answers.ts';

/** A discovered resource: the plural name for URLs and whether it lives in a namespace. */
export interface ResourceInfo {
  name: string;
  namespaced: boolean;
  kind: string;
}

interface DiscoveredResource extends ResourceInfo {
  singularName?: string;
  verbs?: string[];
}

/** `undefined`: the server does not serve the group-version (404). */
export type Document = DiscoveredResource[] | undefined;

export { MIN_REDISCOVERY_MS, type CallerWait } from './shared-answers.ts';

/** Discovery answers per group-version, shared by the Connection's operations. */
export class DiscoveryCache extends SharedAnswers<Document> {
  /**
   * `fetch` runs without any caller's signal: its result is shared by every caller. Its warnings
   * go to the operation that started it.
   */
  constructor(fetch: Fetch<Document>) {
    super('Discover', fetch);
  }
}

/**
 * The resource for a kind in a discovery document. Subresources (`pods/status`) share their
 * parent's kind and are skipped; where two resources share a kind (template.openshift.io serves
 * kind Template as both `processedtemplates` and `templates`), the one whose singular name is the
 * kind wins, then the one that can be read.
 */
export function resourceForKind(
  resources: readonly DiscoveredResource[],
  kind: string,
): ResourceInfo | undefined {
  // A document is kept for the Connection's life, and every create looks up each of its kinds.
  let byKind = CHOSEN.get(resources);
  if (byKind === undefined) CHOSEN.set(resources, (byKind = new Map<string, ResourceInfo | undefined>()));
  if (byKind.has(kind)) return byKind.get(kind);
  const chosen = chooseResource(resources, kind);
  byKind.set(kind, chosen);
  return chosen;
}

const CHOSEN = new WeakMap<readonly DiscoveredResource[], Map<string, ResourceInfo | undefined>>();

function chooseResource(resources: readonly DiscoveredResource[], kind: string): ResourceInfo | undefined {
  const candidates = resources.filter((r) => r.kind === kind && r.name !== '' && !r.name.includes('/'));
  const lower = kind.toLowerCase();
  const best =
    candidates.find((r) => r.singularName === lower) ??
    candidates.find((r) => r.verbs?.includes('get')) ??
    candidates[0];
  return best ? { name: best.name, namespaced: best.namespaced, kind: best.kind } : undefined;
}

export function parseDiscovery(body: unknown): DiscoveredResource[] {
  const resources = isRecord(body) && Array.isArray(body.resources) ? (body.resources as unknown[]) : [];
  return resources.filter(isRecord).map((r) => ({
    name: typeof r.name === 'string' ? r.name : '',
    namespaced: r.namespaced === true,
    kind: typeof r.kind === 'string' ? r.kind : '',
    ...(typeof r.singularName === 'string' ? { singularName: r.singularName } : {}),
    ...(Array.isArray(r.verbs) ? { verbs: r.verbs.filter((v): v is string => typeof v === 'string') } : {}),
  }));
}
