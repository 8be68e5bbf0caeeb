// What a warning is, for a program: a stable code, the object it is about, a field's path.

/**
 * What a {@link ServerWarning} is about (docs/errors.md has each one's cause):
 * `'OTC_SERVER_WARNING'` the API server's own (`Warning: 299`); `'OTC_FIELD_DROPPED'` a field (`path`)
 * removed under `fieldValidation: 'Warn'`; `'OTC_APPLIED_UNTYPED'` objects applied without a schema;
 * `'OTC_CREATED_BY_POST'` a legacy Role or RoleBinding created by POST; `'OTC_NAMESPACE_ABSENT'` a
 * delete into a missing namespace; `'OTC_NOT_OWNED'`, `'OTC_REPLACED'`, `'OTC_NOT_RELINQUISHED'` an
 * object a delete left alone; `'OTC_DRY_RUN_UNVERIFIED'` an object applied without a dry run;
 * `'OTC_QUOTA_EXCEEDED_BY_BATCH'` a ResourceQuota the batch may exceed; `'OTC_QUOTA_UNCHECKED'` quotas
 * not readable; `'OTC_ADOPTED'` an existing object taken over under `adopt: true`.
 *
 * New codes may be added in a minor release; treat one you do not know as informational.
 *
 * @example
 * const onWarning: ocp.WarningHandler = (w) => {
 *   if (w.code === 'OTC_FIELD_DROPPED') metrics.increment('dropped', { path: w.path ?? '' });
 *   else console.warn(w.code, w.text);
 * };
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
 * const log = (w: ocp.ServerWarning): void => console.warn(w.code, w.operation, w.target?.kind, w.target?.name, w.path, w.text);
 * await ocp.create('worker-template', params, { namespace: 'workers', api, onWarning: log });
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
 * const onWarning: ocp.WarningHandler = (w) => console.warn(`[${w.operation}] ${w.code} ${w.target?.name ?? ''}: ${w.text}`);
 * const api = await ocp.connect({ onWarning });
 * const job: ocp.WarningHandler = (w) => {
 *   onWarning(w); // chained: an operation's handler replaces the Connection's
 *   if (w.code === 'OTC_NOT_OWNED') keptObjects.push(w.target);
 * };
 * await ocp.delete('worker-template', params, { namespace: 'workers', api, onWarning: job });
 */
export type WarningHandler = (warning: ServerWarning) => void;
