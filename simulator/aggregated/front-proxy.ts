// Who a request forwarded by kube-apiserver's aggregator comes from. The aggregator proves itself
// with a client certificate of the front-proxy CA and names the user in X-Remote-* headers; those
// headers count only over such a certificate whose common name is allowed, as k8s.io/apiserver's
// request-header authenticator decides (pkg/authentication/request/headerrequest).
import type { TLSSocket } from 'node:tls';
import type { Request } from '../http/answer.ts';

export interface RemoteUser {
  user: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** What the front proxy's certificate said: no such certificate, one without a user, or the user. */
export type FrontProxyVerdict = { proxied: false } | { proxied: true; remote: RemoteUser | undefined };

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function socketOf(request: Request): TLSSocket | undefined {
  return ('stream' in request ? request.stream.session?.socket : request.socket) as TLSSocket | undefined;
}

/** The certificate is checked at every request (the chain by TLS, the name and validity here). */
export function frontProxyUser(request: Request, allowedNames: readonly string[]): FrontProxyVerdict {
  const socket = socketOf(request);
  if (!socket?.authorized) return { proxied: false };
  const peer = socket.getPeerCertificate();
  const now = Date.now();
  if (!(Date.parse(peer.valid_from) <= now && now < Date.parse(peer.valid_to))) return { proxied: false };
  if (allowedNames.length > 0 && !allowedNames.includes(String(peer.subject.CN))) return { proxied: false };
  const user = headerValues(request.headers['x-remote-user'])[0];
  if (user === undefined) return { proxied: true, remote: undefined };
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!name.startsWith('x-remote-extra-')) continue;
    extra[decodeURIComponent(name.slice('x-remote-extra-'.length))] = headerValues(value);
  }
  return { proxied: true, remote: { user, groups: headerValues(request.headers['x-remote-group']), extra } };
}
