// Who sent a request: a bearer token, else a client certificate.
import type { TLSSocket } from 'node:tls';
import type { Identity } from '../types.ts';
import type { Request } from './answer.ts';

/**
 * A bearer token, else a client certificate, as kube-apiserver's authenticators do: the
 * certificate must chain to the client CA and be valid now (checked at every request, so a
 * connection that outlives its certificate is refused with 401); its common name is the user.
 */
export function authenticate(request: Request, tokens: ReadonlyMap<string, Identity>): Identity | undefined {
  const token = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (token !== undefined) return tokens.get(token);
  const socket = ('stream' in request ? request.stream.session?.socket : request.socket) as
    TLSSocket | undefined;
  if (!socket?.authorized) return undefined;
  const peer = socket.getPeerCertificate();
  const now = Date.now();
  if (!(Date.parse(peer.valid_from) <= now && now < Date.parse(peer.valid_to))) return undefined;
  const user = peer.subject.CN;
  if (typeof user !== 'string' || user === '') return undefined;
  return [...tokens.values()].find((identity) => identity.user === user) ?? { user };
}
