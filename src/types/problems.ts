// What a ValidationError found, for a program, and the Status a server answers a refusal with.

/**
 * The kind of one {@link ValidationProblem}: bad input (`'argument'`, `'parameter'`), an object that
 * cannot be applied safely (`'identity'` to `'duplicate'`), typing (`'undeclared'` to `'no-type'`) or
 * the environment (`'not-served'` onwards). `fieldValidation: 'Warn'` drops `'undeclared'` and
 * `'server-set'` fields; every other kind is refused in every mode. New kinds may come in a minor release.
 *
 * @example
 * const undeclaredOnly = error.problems.every((p) => p.kind === 'undeclared');
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
 * The rendered object (or ref) a problem concerns: its `index` in `process()`'s output and what identity it has.
 *
 * @example
 * const where = (o: ocp.ProblemObject): string => `#${o.index} ${o.kind ?? '?'}/${o.name ?? '?'}`;
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
 * for (const p of error.problems) console.error(p.kind, p.object?.name, p.path ?? '', p.text);
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
 * for (const cause of error.status?.details?.causes ?? []) console.error(cause.field, cause.message);
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
