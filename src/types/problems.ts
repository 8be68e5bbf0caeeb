// What a ValidationError found, for a program: each problem's kind, the object and the field it
// concerns; and the Status a server answers a refusal with. A leaf, as index.ts is.

/**
 * The kind of one {@link ValidationProblem}:
 * - bad input: `'argument'` (an argument or option), `'parameter'` (undeclared, required without a
 *   value, or generated at random);
 * - a rendered object that cannot be applied safely: `'identity'` (not an object, no `apiVersion`
 *   or `kind`, a `metadata` that is not a map), `'name'` (none, or not valid for its kind),
 *   `'generate-name'`, `'namespace'` (aimed at another namespace), `'cluster-scoped'`,
 *   `'duplicate'`;
 * - typing against the server's schema (server-side apply's rules): `'undeclared'` (a field the
 *   schema does not declare), `'server-set'` (`metadata.managedFields`, `uid`, `resourceVersion`),
 *   `'type'` (a wrong type), `'keyed-list'` (a list keyed by fields: a missing key, a duplicate),
 *   `'conversion'` (a value the Go type will not take: a fraction for an integer, a bad Quantity,
 *   bytes that are not base64, a time that is not RFC 3339), `'no-type'` (the schema has no type
 *   there);
 * - the environment: `'not-served'` (a kind the cluster does not serve), `'schema-unavailable'`,
 *   `'node-version'`, `'proxy-config'`, `'connection-closed'`.
 *
 * `fieldValidation: 'Warn'` drops `'undeclared'` and `'server-set'` fields; every other kind is
 * refused in every mode. New kinds may be added in a minor release.
 *
 * @example
 * ```ts
 * const typing: ocp.ProblemKind[] = ['undeclared', 'server-set', 'type', 'keyed-list', 'conversion', 'no-type'];
 * const typingOnly = error.problems.every((p) => typing.includes(p.kind));
 * ```
 */
export type ProblemKind =
  | 'argument'
  | 'parameter'
  | 'identity'
  | 'name'
  | 'generate-name'
  | 'namespace'
  | 'cluster-scoped'
  | 'duplicate'
  | 'undeclared'
  | 'server-set'
  | 'type'
  | 'keyed-list'
  | 'conversion'
  | 'no-type'
  | 'not-served'
  | 'schema-unavailable'
  | 'node-version'
  | 'proxy-config'
  | 'connection-closed';

/**
 * The rendered object (or reference-mode ref) a problem concerns: its place in the Template's
 * output (`index`, from 0, as `process()` returns them) and as much of its identity as it has.
 *
 * @example
 * ```ts
 * const where = (o: ocp.ProblemObject): string => `#${o.index} ${o.kind ?? '?'}/${o.name ?? '?'}`;
 * ```
 */
export interface ProblemObject {
  index: number;
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/**
 * One problem of a `ValidationError`, structured: `problems[i]` is `issues[i]` as data.
 *
 * @example
 * ```ts
 * for (const p of error.problems) console.error(p.kind, p.object?.name, p.path ?? '', p.text);
 * ```
 */
export interface ValidationProblem {
  /** Which kind of problem; see {@link ProblemKind}. */
  kind: ProblemKind;
  /** The sentence, the same as in `issues`. */
  text: string;
  /** The object it concerns, for the checks of rendered objects and refs and for typing. */
  object?: ProblemObject;
  /** The field, in server-side apply's path syntax (`.spec.replicas`), for typing problems. */
  path?: string;
}

/**
 * A Kubernetes `Status` body, as the API server sends it with an error.
 *
 * @example
 * ```ts
 * const status: ocp.KubernetesStatus | undefined = error instanceof ocp.RequestError ? error.status : undefined;
 * for (const cause of status?.details?.causes ?? []) console.error(cause.field, cause.reason, cause.message);
 * ```
 */
export interface KubernetesStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}
