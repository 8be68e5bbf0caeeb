// authorization.openshift.io Roles and RoleBindings in aggregated mode, read and written through
// kube-apiserver as openshift-apiserver's proxy does it: as the caller (an impersonating client,
// openshift-apiserver pkg/client/impersonatingclient), so kube-apiserver's RBAC, escalation
// check included, judges every call. The standalone proxy model (objects/legacy-rbac.ts) decides
// each answer and runs twice: first on a snapshot of what kube-apiserver holds, recording the one
// write it makes; that write is sent to kube-apiserver; then again with the write answered by
// kube-apiserver's result, so the client gets what kube-apiserver stored, or its refusal.
import type { JsonObject } from '../objects/fields.ts';
import type { RbacBackend, RbacCalls } from '../objects/legacy-rbac.ts';
import type { LegacyKind } from '../objects/rbac-conversion.ts';
import { StatusError } from '../objects/status.ts';
import type { DeleteOptions, WriteOptions } from '../objects/store.ts';
import type { Identity } from '../types.ts';
import type { Delegate, KubeAnswer } from './delegate.ts';

const PLURAL: Record<LegacyKind, string> = { Role: 'roles', RoleBinding: 'rolebindings' };

function rbacPath(kind: LegacyKind, namespace: string | undefined, name?: string): string {
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const named = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `/apis/rbac.authorization.k8s.io/v1${scope}/${PLURAL[kind]}${named}`;
}

/** kube-apiserver's answer as the RBAC storage's result: the object, or its Status as an error. */
function resultOf(answer: KubeAnswer): JsonObject {
  if (answer.status >= 200 && answer.status < 300) return answer.body as JsonObject;
  const status = (answer.body ?? {}) as {
    reason?: string;
    message?: string;
    details?: ConstructorParameters<typeof StatusError>[3];
  };
  throw new StatusError(answer.status, status.reason ?? '', status.message ?? '', status.details);
}

interface Write {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  query: URLSearchParams;
  body: unknown;
}

const writeQuery = (options: { fieldManager?: string; dryRun: boolean }): URLSearchParams => {
  const query = new URLSearchParams();
  if (options.fieldManager) query.set('fieldManager', options.fieldManager);
  if (options.dryRun) query.set('dryRun', 'All');
  return query;
};

/** What the model reads (fetched first, as the caller) and the write it makes, answered or not. */
class Exchange {
  readonly reads = new Map<string, KubeAnswer>();
  write: Write | undefined;
  answer: KubeAnswer | undefined;

  read(path: string): JsonObject {
    const answer = this.reads.get(path);
    if (!answer) throw new Error(`the RBAC proxy read ${path}, which was not fetched`);
    return resultOf(answer);
  }

  record(write: Write, placeholder: JsonObject): JsonObject {
    if (this.answer) return resultOf(this.answer);
    if (this.write) throw new Error('the RBAC proxy made a second write in one request');
    this.write = write;
    return placeholder;
  }

  backend(): RbacBackend {
    const calls: RbacCalls = {
      get: (kind, namespace, name) => this.read(rbacPath(kind, namespace, name)),
      list: (kind, namespace) => this.read(rbacPath(kind, namespace)),
      create: (kind, namespace, object, options: WriteOptions) =>
        this.record(
          { method: 'POST', path: rbacPath(kind, namespace), query: writeQuery(options), body: object },
          object,
        ),
      update: (kind, namespace, name, object, options: WriteOptions) =>
        this.record(
          { method: 'PUT', path: rbacPath(kind, namespace, name), query: writeQuery(options), body: object },
          object,
        ),
      delete: (kind, namespace, name, options: DeleteOptions) => {
        const body = {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          ...(options.uid === undefined && options.resourceVersion === undefined
            ? {}
            : { preconditions: { uid: options.uid, resourceVersion: options.resourceVersion } }),
          ...(options.propagationPolicy === undefined
            ? {}
            : { propagationPolicy: options.propagationPolicy }),
          ...(options.dryRun ? { dryRun: ['All'] } : {}),
        };
        this.record(
          { method: 'DELETE', path: rbacPath(kind, namespace, name), query: new URLSearchParams(), body },
          {},
        );
      },
    };
    return { as: () => calls };
  }
}

export interface ProxiedTarget {
  kind: LegacyKind;
  namespace: string;
  name: string | undefined;
  method: string;
}

/**
 * Answers a proxied request: `run` is the simulator's own answer for a given RBAC backend (the
 * standalone model, dispatch.ts), run at most twice.
 */
export async function throughKube<T>(
  delegate: Delegate,
  identity: Identity,
  target: ProxiedTarget,
  run: (backend: RbacBackend) => T,
): Promise<T> {
  const exchange = new Exchange();
  // What the model reads: the named object for a read, an apply and a delete; the list for a
  // collection GET. Fetched as the caller, so a 403 there is kube-apiserver's.
  if (target.name !== undefined || target.method === 'GET') {
    const path = rbacPath(target.kind, target.namespace || undefined, target.name);
    exchange.reads.set(path, await delegate.request('GET', path, undefined, identity));
  }
  const first = run(exchange.backend());
  const write = exchange.write;
  if (!write) return first;
  const path = write.query.size > 0 ? `${write.path}?${write.query.toString()}` : write.path;
  exchange.answer = await delegate.request(write.method, path, write.body, identity);
  return run(exchange.backend());
}
