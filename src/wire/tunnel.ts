// A tunnel through a proxy to the API server, over which the Connection's own TLS runs end to end:
// HTTP CONNECT over TCP (`http://`) or TLS (`https://`) to the proxy, or SOCKS5 (socks5.ts). One
// tunnel is one connection; why not undici's ProxyAgent: docs/wire-reference.md section 8.1.
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { authority, type Proxy } from './proxy.ts';
import { socksTunnel } from './socks5.ts';
import { abortReason, ProxyError } from './wire-errors.ts';

export interface TunnelSettings {
  proxy: Proxy;
  /** The API server, as the proxy must reach it. */
  target: { host: string; port: number };
  /** Verification of an `https://` proxy's own certificate. */
  proxyTls: { ca: (string | Buffer)[]; rejectUnauthorized: boolean };
  userAgent: string;
  /** The connect limit, in ms, which `signal` enforces. */
  connectTimeout: number;
  /** Ends the tunnel under way (the connect limit, or a closing Connection). */
  signal: AbortSignal;
}

/** The most a CONNECT answer's head may take before it is not an HTTP proxy talking. */
const MAX_HEAD_BYTES = 16 * 1024;

/**
 * Resolves with a CONNECT answer's head; bytes the proxy sent beyond it go back to the paused
 * socket for TLS. Rejects when the socket ends first or the head passes MAX_HEAD_BYTES.
 */
function readHead(socket: Duplex): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const stop = (): void => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
    };
    const onEnd = (): void => {
      stop();
      reject(new Error('closed'));
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0 && buffered.length <= MAX_HEAD_BYTES) return;
      stop();
      if (end < 0) {
        reject(new Error(`sent more than ${MAX_HEAD_BYTES} bytes without ending its answer`));
        return;
      }
      socket.pause();
      if (buffered.length > end + 4) socket.unshift(buffered.subarray(end + 4));
      resolve(buffered.subarray(0, end + 4));
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
  });
}

/**
 * Resolves with `socket` once it emits `ready`; rejects with its first error, as `failed` words it,
 * or, destroying it, with the signal's reason when `signal` fires first.
 */
export function whenReady<S extends Socket>(
  socket: S,
  ready: 'connect' | 'secureConnect',
  signal: AbortSignal,
  failed: (error: Error) => Error = (error) => error,
): Promise<S> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      socket.destroy();
      reject(abortReason(signal));
    };
    const onError = (error: Error): void => {
      signal.removeEventListener('abort', onAbort);
      reject(failed(error));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once(ready, () => {
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/** TCP (and TLS for an `https://` proxy) to the proxy itself. */
async function reachProxy(settings: TunnelSettings): Promise<Socket> {
  const { proxy, signal } = settings;
  // Loaded here, not at import, as handshake.ts does: only a proxied Connection needs it.
  const tls = await import('node:tls');
  signal.throwIfAborted();
  const secure = proxy.scheme === 'https';
  const socket: Socket = secure
    ? tls.connect({
        host: proxy.host,
        port: proxy.port,
        ...(isIP(proxy.host) === 0 ? { servername: proxy.host } : {}),
        // Node's trusted CAs (with NODE_EXTRA_CA_CERTS and, if enabled, the system store) and the cluster's.
        ca: [...tls.getCACertificates('default'), ...settings.proxyTls.ca],
        rejectUnauthorized: settings.proxyTls.rejectUnauthorized,
        ALPNProtocols: ['http/1.1'],
      })
    : connect({ host: proxy.host, port: proxy.port });
  // Small HTTP/2 frames must not wait for the previous segment's acknowledgement (Nagle).
  socket.setNoDelay(true);
  let reached = false;
  socket.once('connect', () => (reached = true));
  return whenReady(socket, secure ? 'secureConnect' : 'connect', signal, (error) => {
    // Reached but not secured: the proxy's own certificate (or TLS) is what failed.
    const what = reached ? 'the TLS handshake with it failed' : 'it could not be reached';
    return new ProxyError(proxy, `${what}: ${error.message}`, error);
  });
}

/** What a proxy's refusal means for the user, by status (RFC 9110 sections 15.5.4, 15.5.8, 15.6). */
function refusal(code: number, hasCredentials: boolean): string {
  if (code === 407)
    return hasCredentials
      ? 'the proxy refused the credentials in its URL'
      : 'the proxy requires credentials: give them in its URL (http://user:password@host:port)';
  if (code === 403) return 'the proxy does not allow a tunnel to this server';
  return code >= 500
    ? 'the proxy could not open a connection to the server'
    : 'the proxy did not open the tunnel';
}

/** HTTP CONNECT (RFC 9110 section 9.3.6): any 2xx opens the tunnel. */
async function connectTunnel(socket: Duplex, settings: TunnelSettings): Promise<void> {
  const { proxy } = settings;
  const target = authority(settings.target);
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`, `User-Agent: ${settings.userAgent}`];
  const withCredentials = proxy.password !== undefined || proxy.username !== undefined;
  if (withCredentials) {
    const pair = `${proxy.username ?? ''}:${proxy.password ?? ''}`;
    lines.push(`Proxy-Authorization: Basic ${Buffer.from(pair).toString('base64')}`);
  }
  const answer = readHead(socket);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const head = await answer.catch((error: unknown) => {
    throw new ProxyError(proxy, `it closed the connection before answering CONNECT ${target}`, error);
  });
  const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(head.toString('latin1'));
  if (!status) throw new ProxyError(proxy, `it did not answer CONNECT ${target} in HTTP`);
  const code = Number(status[1]);
  if (code < 200 || code > 299) {
    const reason = (status[2] ?? '').trim();
    const answered = `CONNECT ${target} was answered ${code}${reason ? ` ${reason}` : ''}`;
    throw new ProxyError(proxy, `${answered}: ${refusal(code, withCredentials)}`);
  }
}

/**
 * A socket to the API server through the proxy, ready for TLS. Every failure is a ProxyError
 * naming the proxy (never its credentials), or the signal's reason when it ended the tunnel.
 */
export async function openTunnel(settings: TunnelSettings): Promise<Socket> {
  const socket = await reachProxy(settings);
  const onAbort = (): void => {
    socket.destroy();
  };
  settings.signal.addEventListener('abort', onAbort, { once: true });
  // A reset while the proxy answers reaches the reader as an end; it must not crash the process.
  const swallow = (): void => undefined;
  socket.on('error', swallow);
  try {
    await (settings.proxy.scheme === 'socks5'
      ? socksTunnel(socket, settings)
      : connectTunnel(socket, settings));
    return socket;
  } catch (error) {
    socket.destroy();
    if (settings.signal.aborted) throw abortReason(settings.signal);
    throw error;
  } finally {
    settings.signal.removeEventListener('abort', onAbort);
    socket.off('error', swallow);
  }
}
