// SOCKS5 CONNECT (RFC 1928, username and password by RFC 1929) on the TCP connection tunnel.ts
// opened to the proxy. The `socks` package speaks the protocol; what a failure says is ours, read
// from the bytes the proxy answered, so it names the stage the proxy stopped at. Its own error is
// never kept: it carries the client's options, the proxy password among them.
import type { Socket } from 'node:net';
import { authority, type Proxy } from './proxy.ts';
import { ProxyError } from './wire-errors.ts';

export interface SocksSettings {
  proxy: Proxy;
  /** The API server: a host name travels as a name and the proxy resolves it. */
  target: { host: string; port: number };
  /** The connect limit, which the caller's signal enforces; the package's own timer must not come first. */
  connectTimeout: number;
}

/** SOCKS5 reply codes (RFC 1928 section 6). */
const SOCKS_REPLIES: Record<number, string> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

/** The method choice (2), the authentication verdict (2) and the CONNECT reply's version and code. */
const ANSWER_BYTES_READ = 6;

/** Why the handshake failed, from the proxy's answer so far; `cause` is the package's message. */
function failure(seen: Buffer, settings: SocksSettings, cause: Error): ProxyError {
  const { proxy } = settings;
  const target = authority(settings.target);
  const fail = (what: string): ProxyError => new ProxyError(proxy, what, cause);
  const withCredentials = proxy.username !== undefined || proxy.password !== undefined;
  if (seen.length < 2) return fail('it closed the connection during the SOCKS5 greeting');
  const method = seen[1];
  const replyAt = method === 2 ? 4 : 2;
  if (seen[0] !== 5) return fail('it does not speak SOCKS5');
  if (method !== 0 && !(method === 2 && withCredentials))
    return fail(
      withCredentials
        ? 'it accepts none of the authentication methods offered'
        : 'it requires authentication: give a username and password in its URL (socks5://user:password@host:port)',
    );
  if (seen.length < replyAt) return fail('it closed the connection during SOCKS5 authentication');
  if (method === 2 && seen[3] !== 0) return fail('it refused the username and password in its URL');
  if (seen.length < replyAt + 2) return fail(`it closed the connection before answering CONNECT ${target}`);
  if (seen[replyAt] !== 5) return fail('it does not speak SOCKS5');
  const reply = seen[replyAt + 1] ?? -1;
  if (reply !== 0) return fail(`CONNECT ${target} failed: ${SOCKS_REPLIES[reply] ?? `reply ${reply}`}`);
  return fail(`it closed the connection in the middle of its answer to CONNECT ${target}`);
}

/**
 * Opens the SOCKS5 tunnel on `socket`, offering "no authentication", plus username/password when
 * the URL has credentials, as Go's SOCKS dialer does. Every failure is a ProxyError naming the
 * proxy (never its credentials); ending the socket ends the handshake.
 */
export async function socksTunnel(socket: Socket, settings: SocksSettings): Promise<void> {
  const { proxy, target } = settings;
  // A name SOCKS5 cannot carry in its one length byte (golang.org/x/net internal/socks/client.go:
  // "FQDN too long"). The package refuses it too, before any byte, in words that name nothing.
  if (Buffer.byteLength(target.host) > 255)
    throw new ProxyError(proxy, `the server's host name is longer than the 255 bytes SOCKS5 can carry`);
  // Loaded here, not at import: only a Connection through a SOCKS5 proxy needs it.
  const { SocksClient } = await import('socks');
  // The first bytes the proxy answers say how far the handshake came.
  let seen = Buffer.alloc(0);
  const watch = (chunk: Buffer): void => {
    if (seen.length < ANSWER_BYTES_READ) seen = Buffer.concat([seen, chunk]).subarray(0, ANSWER_BYTES_READ);
  };
  socket.on('data', watch);
  try {
    await SocksClient.createConnection({
      command: 'connect',
      proxy: {
        host: proxy.host,
        port: proxy.port,
        type: 5,
        ...(proxy.username === undefined ? {} : { userId: proxy.username }),
        ...(proxy.password === undefined ? {} : { password: proxy.password }),
      },
      destination: target,
      existing_socket: socket,
      timeout: settings.connectTimeout,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw failure(seen, settings, new Error(message));
  } finally {
    socket.off('data', watch);
  }
}
