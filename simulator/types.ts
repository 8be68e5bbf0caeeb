// Types that more than one folder of the simulator shares. A leaf: it imports nothing, so any
// file may import it without closing a circle.

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
}

/** What a handled request answers: a status, a body, and the warnings it drew. */
export interface Result {
  code: number;
  body: unknown;
  warnings?: string[];
}
