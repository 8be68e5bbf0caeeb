// What a warning is, for a program: the server's own (`Warning: 299`) and the library's, each with
// a stable code, the object it is about and, for a field, its path. A leaf, as index.ts is.

/**
 * What a {@link ServerWarning} is about, so a program can act on it without reading its text:
 * - `'OTC_SERVER_WARNING'`: the API server's own warning (`Warning: 299`), its text as written;
 * - `'OTC_FIELD_DROPPED'`: `create()` under `fieldValidation: 'Warn'` removed a field from the copy
 *   it applies (`path`): one the server's schema does not declare, or server-set metadata;
 * - `'OTC_APPLIED_UNTYPED'`: `create()` applies objects of a group-version (or kind) without typing
 *   them first, because the server publishes no schema for them (once per Connection);
 * - `'OTC_CREATED_BY_POST'`: `create()` created a legacy `authorization.openshift.io` Role or
 *   RoleBinding with a POST, because its apply cannot create one;
 * - `'OTC_NAMESPACE_ABSENT'`: a template-mode `delete()` into a namespace that does not exist;
 *   nothing was deleted;
 * - `'OTC_NOT_OWNED'`: a template-mode `delete()` left an object alone that its field manager did
 *   not apply;
 * - `'OTC_REPLACED'`: a template-mode `delete()` left an object alone that was replaced (another
 *   UID) since it was read;
 * - `'OTC_DRY_RUN_UNVERIFIED'`: `create()`'s pre-flight could not verify an object (a webhook that
 *   does not support dry runs, or an image kind it does not dry-run); it is applied unverified;
 * - `'OTC_QUOTA_EXCEEDED_BY_BATCH'`: every object fits the namespace's ResourceQuota, but the
 *   batch may not, by a sum that counts objects no dry run settled (where the sum is exact, the
 *   pre-flight refuses with `OTC_QUOTA_EXCEEDED` instead); the write past it will be refused;
 * - `'OTC_QUOTA_UNCHECKED'`: the namespace's ResourceQuotas could not be read (`list
 *   resourcequotas` is optional), so the batch's sum was not checked;
 * - `'OTC_ADOPTED'`: `create()` under `adopt: true` takes over an existing object its field
 *   manager did not manage;
 * - `'OTC_NOT_RELINQUISHED'`: a template-mode `delete()` left an object another manager also
 *   declares alone, because the apply that gives up this manager's fields was refused.
 *
 * New codes may be added in a minor release; treat one you do not know as informational.
 *
 * @example
 * ```ts
 * const onWarning: ocp.WarningHandler = (w) => {
 *   if (w.code === 'OTC_FIELD_DROPPED') metrics.increment('dropped', { path: w.path ?? '' });
 *   else console.warn(w.code, w.text);
 * };
 * ```
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
 * ```ts
 * const about: ocp.ObjectIdentity = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'w1-config' };
 * ```
 */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * A warning for the caller: one the API server sent with an answer (`Warning: 299 - "..."`: a
 * deprecated API, a Pod Security violation), or one of the library's own on the same channel (a
 * field dropped under `Warn`, an object left alone by a delete, ...); `code` tells them apart. The
 * text may quote a parameter value; a value the library never prints (a Secret-bound parameter,
 * Secret data, a credential) is `[redacted]` in it.
 *
 * @example
 * ```ts
 * const log = (w: ocp.ServerWarning): void => console.warn(w.code, w.operation, w.target?.kind, w.target?.name, w.path, w.text);
 * await ocp.create('worker-template', params, { namespace: 'workers', api, onWarning: log });
 * ```
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
 * Receives each warning once per operation call, however many of the call's answers repeat it (an
 * object's dry run and its write are answered with the same one); see {@link ServerWarning}. An
 * operation's `onWarning` replaces the Connection's for that operation's requests (they are not
 * both called): to keep the Connection's too, call it from the operation's handler.
 *
 * @example
 * ```ts
 * const onWarning: ocp.WarningHandler = (w) => console.warn(`[${w.operation}] ${w.code} ${w.target?.name ?? ''}: ${w.text}`);
 * const api = await ocp.connect({ onWarning });
 * const job: ocp.WarningHandler = (w) => {
 *   onWarning(w); // chained: an operation's handler replaces the Connection's
 *   if (w.code === 'OTC_NOT_OWNED') keptObjects.push(w.target);
 * };
 * await ocp.delete('worker-template', params, { namespace: 'workers', api, onWarning: job });
 * ```
 */
export type WarningHandler = (warning: ServerWarning) => void;
