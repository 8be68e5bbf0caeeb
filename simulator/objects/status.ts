// Kubernetes Status bodies with the wire text of docs/wire-reference.md §5 (from k8s.io/apimachinery
// pkg/api/errors and the apiserver's authorization filter).
import type { ResourceInfo } from '../types.ts';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A failure the request handlers throw; the server turns it into a Status response. */
export class StatusError extends Error {
  readonly status: Status;
  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      // metav1.Status omits an empty reason (StatusReasonUnknown), as for errors that are not a Status.
      ...(reason === '' ? {} : { reason }),
      ...(details ? { details } : {}),
      code,
    };
  }
  get code(): number {
    return this.status.code ?? 500;
  }
}

/** `configmaps` for core, `virtualmachines.kubevirt.io` otherwise. */
export function qualifiedResource(info: Pick<ResourceInfo, 'group' | 'name'>): string {
  return info.group === '' ? info.name : `${info.name}.${info.group}`;
}

function resourceDetails(info: ResourceInfo, name: string): StatusDetails {
  return { name, ...(info.group === '' ? {} : { group: info.group }), kind: info.name };
}

export function notFound(info: ResourceInfo, name: string): StatusError {
  return new StatusError(
    404,
    'NotFound',
    `${qualifiedResource(info)} "${name}" not found`,
    resourceDetails(info, name),
  );
}

export function namespaceNotFound(namespace: string): StatusError {
  return new StatusError(404, 'NotFound', `namespaces "${namespace}" not found`, {
    name: namespace,
    kind: 'namespaces',
  });
}

export function alreadyExists(info: ResourceInfo, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(info)} "${name}" already exists`,
    resourceDetails(info, name),
  );
}

export function conflict(info: ResourceInfo, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(info)} "${name}": ${why}`,
    resourceDetails(info, name),
  );
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export interface FieldError {
  type: 'Required' | 'Invalid' | 'Unsupported' | 'Forbidden';
  field: string;
  detail?: string;
  /** Already formatted as Go would print it (`"x"`, `[]string{"x"}`, ...). */
  value?: string;
}

const CAUSE_REASON: Record<FieldError['type'], string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  Unsupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
};

const TYPE_TEXT: Record<FieldError['type'], string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  Unsupported: 'Unsupported value',
  Forbidden: 'Forbidden',
};

function errorBody(e: FieldError): string {
  const typed = e.value === undefined ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${e.value}`;
  return e.detail ? `${typed}: ${e.detail}` : typed;
}

/**
 * 422 Invalid with one cause per field error, as apimachinery's `NewInvalid` builds it; the message
 * names each distinct error once (field.ErrorList ToAggregate drops repeated texts).
 */
export function invalid(
  groupKind: { group: string; kind: string },
  name: string,
  errors: FieldError[],
): StatusError {
  const qualifiedKind = groupKind.group === '' ? groupKind.kind : `${groupKind.kind}.${groupKind.group}`;
  const texts = [...new Set(errors.map((e) => `${e.field}: ${errorBody(e)}`))];
  const joined = texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    name,
    ...(groupKind.group === '' ? {} : { group: groupKind.group }),
    kind: groupKind.kind,
    causes: errors.map((e) => ({ reason: CAUSE_REASON[e.type], message: errorBody(e), field: e.field })),
  });
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(
  info: Pick<ResourceInfo, 'group' | 'name'>,
  name: string | undefined,
  user: string,
  verb: string,
  namespace: string | undefined,
  subresource?: string,
): StatusError {
  const resource = subresource ? `${info.name}/${subresource}` : info.name;
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  const why = `User "${user}" cannot ${verb} resource "${resource}" in API group "${info.group}" ${scope}`;
  const subject = name ? `${qualifiedResource(info)} "${name}"` : qualifiedResource(info);
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    ...(name ? { name } : {}),
    ...(info.group === '' ? {} : { group: info.group }),
    kind: info.name,
  });
}

export function forbiddenPath(user: string, verb: string, path: string): StatusError {
  return new StatusError(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"`, {});
}

export function successStatus(info: ResourceInfo, name: string, uid: string): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { ...resourceDetails(info, name), uid },
  };
}
