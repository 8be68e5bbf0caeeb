// Types that more than one folder of the simulator shares. A leaf: it imports nothing, so any
// file may import it without closing a circle.

/** How the server validates object names of a resource (objects/names.ts has the rules). */
export type NameRule =
  | 'dns1123-subdomain'
  | 'dns1123-label'
  | 'dns1035-label'
  | 'image-stream'
  | 'image-stream-tag'
  | 'image-stream-image'
  | 'image-signature'
  | 'path-segment';

/** One entry of an APIResourceList, plus how the simulator treats it. */
export interface ResourceInfo {
  group: string;
  version: string;
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** DELETE answers with the deleted object instead of a Status (pods, services, templates, ...). */
  deleteReturnsObject?: boolean;
  /** How the server validates object names of this resource (objects/names.ts). */
  nameRule: NameRule;
}

/** One RBAC-style rule. Omitted `namespaces` means every namespace (and cluster scope). */
export interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  namespaces?: string[];
  resourceNames?: string[];
}

/** Who a bearer token is; without `rules` the user may do everything (cluster-admin). */
export interface Identity {
  user: string;
  rules?: Rule[];
  /** In aggregated mode: the groups and extras the front proxy named, for impersonation. */
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What a handled request answers: a status, a body, and the warnings it drew. */
export interface Result {
  code: number;
  body: unknown;
  warnings?: string[];
}
