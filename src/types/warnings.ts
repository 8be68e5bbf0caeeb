// What a warning is, for a program: a stable code, the object it is about, a field's path.

/**
 * What a {@link ServerWarning} is about: `'OTC_SERVER_WARNING'` the API server's own (`Warning: 299`),
 * every other code one of the library's (docs/errors.md has each one's cause). New codes may be
 * added in a minor release; treat one you do not know as informational.
 *
 * @example
 * const onWarning: ocp.WarningHandler = (w) => console.warn(w.code, w.path ?? '', w.text);
 */
export type WarningCode =
  | 'OTC_SERVER_WARNING'
  | 'OTC_FIELD_DROPPED'
  | 'OTC_APPLIED_UNTYPED'
  | 'OTC_CREATED_BY_POST'
  | 'OTC_NAMESPACE_ABSENT'
  | 'OTC_NOT_OWNED'
  | 'OTC_REPLACED'
  | 'OTC_DRY_RUN_UNVERIFIED'
  | 'OTC_QUOTA_EXCEEDED_BY_BATCH'
  | 'OTC_QUOTA_UNCHECKED'
  | 'OTC_ADOPTED'
  | 'OTC_NOT_RELINQUISHED';

/**
 * The identity of one object as errors and warnings name it: group-version, kind, namespace and name.
 *
 * @example
 * const about: ocp.ObjectIdentity = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'w1-config' };
 */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * A warning the API server sent with an answer (a deprecated API, a Pod Security violation), or one
 * of the library's own; `code` tells them apart. Secret values are `[redacted]` in its text.
 *
 * @example
 * const log = (w: ocp.ServerWarning): void => console.warn(w.code, w.operation, w.target?.name, w.text);
 */
export interface ServerWarning {
  /** The server's text, as it wrote it, or the library's sentence (values it must not print are `[redacted]`). */
  text: string;
  /** What the warning is about: `'OTC_SERVER_WARNING'` for the server's own, else the library's ({@link WarningCode}). */
  code: WarningCode;
  /** The operation whose request drew the warning. */
  operation: 'connect' | 'process' | 'create' | 'get' | 'delete';
  /** The object whose request drew it, when the request was about one. */
  target?: ObjectIdentity;
  /** The field the warning is about, in server-side apply's path syntax (`.spec.template.spec.x`), for `'OTC_FIELD_DROPPED'`. */
  path?: string;
}

/**
 * Receives each warning once per operation call, however many answers repeat it. An operation's
 * `onWarning` replaces the Connection's; to keep both, call the Connection's from it.
 *
 * @example
 * const api = await ocp.connect({ onWarning: (w) => console.warn(w.code, w.text) });
 */
export type WarningHandler = (warning: ServerWarning) => void;
