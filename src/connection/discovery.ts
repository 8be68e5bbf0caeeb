// Discovery documents and the resource a kind is served as; the per-Connection cache is a
// SharedAnswers (shared-answers.ts), discovered again after a miss (a CRD installed later).
import { isRecord } from '../util/json.ts';

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

/**
 * The resource for a kind, subresources skipped; where two share a kind (`processedtemplates`,
 * `templates`), the one whose singular name is the kind wins, then the one that can be read.
 */
export function resourceForKind(
  resources: readonly DiscoveredResource[],
  kind: string,
): ResourceInfo | undefined {
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
