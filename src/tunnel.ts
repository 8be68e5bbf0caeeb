// A tunnel through a proxy to the API server, over which the Connection's own TLS runs end to end:
// HTTP CONNECT over TCP (`http://`) or over TLS to the proxy (`https://`), or SOCKS5 (RFC 1928,
// username/password by RFC 1929). One tunnel is one connection to the server; the proxy never
// sees anything but ciphertext after the tunnel is open.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Proxy } from './proxy.ts';
import { type ProxyFailure, ProxyError } from './wire-errors.ts';

export interface TunnelSettings {
  proxy: Proxy;
  /** The API server, as the proxy must reach it. */
  target: { host: string; port: number };
  /** Verification of an `https://` proxy's own certificate. */
  proxyTls: { ca: (string | Buffer)[]; rejectUnauthorized: boolean };
  userAgent: string;
  /** Ends the tunnel under way (the connect limit, or a closing Connection). */
  signal: AbortSignal;
}

/** The most a CONNECT answer's head may take before it is not an HTTP proxy talking. */
const MAX_HEAD_BYTES = 16 * 1024;

/** Reads exact amounts from a socket until the tunnel is open, then hands the socket on untouched. */
class Reader {
  #buffered = Buffer.alloc(0);
  #wake: (() => void) | undefined;
  #ended: Error | undefined;
  readonly #socket: Duplex;
  readonly #onData = (chunk: Buffer): void => {
    this.#buffered = Buffer.concat([this.#buffered, chunk]);
    this.#wake?.();
  };
  readonly #onEnd = (): void => {
    this.#ended ??= new Error('closed');
    this.#wake?.();
  };

  constructor(socket: Duplex) {
    this.#socket = socket;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onEnd);
  }

  /** Resolves once `ready(buffer)` gives a length to take; rejects when the socket ends first. */
  async #until(ready: (buffer: Buffer) => number | undefined): Promise<Buffer> {
    for (;;) {
      const length = ready(this.#buffered);
      if (length !== undefined) {
        const taken = this.#buffered.subarray(0, length);
        this.#buffered = this.#buffered.subarray(length);
        return taken;
      }
      if (this.#ended) throw this.#ended;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  bytes(count: number): Promise<Buffer> {
    return this.#until((buffer) => (buffer.length >= count ? count : undefined));
  }

  head(): Promise<Buffer> {
    return this.#until((buffer) => {
      const end = buffer.indexOf('\r\n\r\n');
      if (end >= 0) return end + 4;
      if (buffer.length > MAX_HEAD_BYTES)
        throw new Error(`sent more than ${MAX_HEAD_BYTES} bytes without ending its answer`);
      return undefined;
    });
  }

  /** Stops reading; bytes the proxy sent beyond its answer go back to the socket for TLS. */
  release(): void {
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('close', this.#onEnd);
    this.#socket.pause();
    if (this.#buffered.length > 0) this.#socket.unshift(this.#buffered);
  }
}

function authority(target: { host: string; port: number }): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

/** TCP (and TLS for an `https://` proxy) to the proxy itself. */
async function reachProxy(settings: TunnelSettings): Promise<Socket> {
  const { proxy, signal } = settings;
  // Loaded here, not at import, as handshake.ts does: only a proxied Connection needs them.
  const [net, tls] = await Promise.all([import('node:net'), import('node:tls')]);
  signal.throwIfAborted();
  const secure = proxy.scheme === 'https';
  const socket: Socket = secure
    ? tls.connect({
        host: proxy.host,
        port: proxy.port,
        ...(net.isIP(proxy.host) === 0 ? { servername: proxy.host } : {}),
        // Node's trusted CAs (with NODE_EXTRA_CA_CERTS and, if enabled, the system store) and the cluster's.
        ca: [...tls.getCACertificates('default'), ...settings.proxyTls.ca],
        rejectUnauthorized: settings.proxyTls.rejectUnauthorized,
        ALPNProtocols: ['http/1.1'],
      })
    : net.connect({ host: proxy.host, port: proxy.port });
  // Small HTTP/2 frames must not wait for the previous segment's acknowledgement (Nagle).
  socket.setNoDelay(true);
  let reached = false;
  socket.once('connect', () => (reached = true));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      socket.destroy();
      reject(signal.reason as Error);
    };
    const onError = (error: Error): void => {
      signal.removeEventListener('abort', onAbort);
      // Reached but not secured: the proxy's own certificate (or TLS) is what failed.
      const what = reached
        ? `the TLS handshake with it failed: ${error.message}`
        : `it could not be reached: ${error.message}`;
      reject(new ProxyError(proxy, what, 'unreachable', error));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/** What a proxy's refusal means for the user, by status (RFC 9110 sections 15.5.4, 15.5.8, 15.6). */
function refusal(code: number, hasCredentials: boolean): { advice: string; kind: ProxyFailure } {
  if (code === 407)
    return {
      kind: 'authentication',
      advice: hasCredentials
        ? 'the proxy refused the credentials in its URL'
        : 'the proxy requires credentials: give them in its URL (http://user:password@host:port)',
    };
  if (code === 403) return { kind: 'refused', advice: 'the proxy does not allow a tunnel to this server' };
  if (code >= 500) return { kind: 'upstream', advice: 'the proxy could not open a connection to the server' };
  return { kind: 'refused', advice: 'the proxy did not open the tunnel' };
}

/** HTTP CONNECT (RFC 9110 section 9.3.6): any 2xx opens the tunnel. */
async function connectTunnel(socket: Duplex, settings: TunnelSettings): Promise<void> {
  const { proxy } = settings;
  const target = authority(settings.target);
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`, `User-Agent: ${settings.userAgent}`];
  if (proxy.password !== undefined || proxy.username !== undefined) {
    const pair = `${proxy.username ?? ''}:${proxy.password ?? ''}`;
    lines.push(`Proxy-Authorization: Basic ${Buffer.from(pair).toString('base64')}`);
  }
  const reader = new Reader(socket);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const head = await reader.head().catch((error: unknown) => {
    throw new ProxyError(
      proxy,
      `it closed the connection before answering CONNECT ${target}`,
      'closed',
      error,
    );
  });
  const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(head.toString('latin1'));
  if (!status) throw new ProxyError(proxy, `it did not answer CONNECT ${target} in HTTP`, 'refused');
  const code = Number(status[1]);
  if (code < 200 || code > 299) {
    const { advice, kind } = refusal(code, proxy.password !== undefined || proxy.username !== undefined);
    const reason = (status[2] ?? '').trim();
    throw new ProxyError(
      proxy,
      `CONNECT ${target} was answered ${code}${reason ? ` ${reason}` : ''}: ${advice}`,
      kind,
      undefined,
      code,
    );
  }
  reader.release();
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

/** The SOCKS5 address of the server: a host name travels as a name and the proxy resolves it. */
async function socksAddress(host: string): Promise<Buffer> {
  const { isIP } = await import('node:net');
  const family = isIP(host);
  if (family === 4) return Buffer.from([1, ...host.split('.').map(Number)]);
  if (family === 6) return Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  const name = Buffer.from(host);
  return Buffer.concat([Buffer.from([3, name.length]), name]);
}

/** The 16 bytes of an IPv6 address in any textual form (RFC 4291 section 2.2). */
function ipv6Bytes(text: string): Buffer {
  // A trailing dotted IPv4 part (::ffff:192.0.2.1) is two groups.
  const address = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    [
      [a, b],
      [c, d],
    ]
      .map(([x, y]) => ((Number(x) << 8) | Number(y)).toString(16))
      .join(':'),
  );
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = groups(tail);
  const all = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

/** SOCKS5 CONNECT with no authentication or username/password, as Go's SOCKS dialer offers. */
async function socksTunnel(socket: Duplex, settings: TunnelSettings): Promise<void> {
  const { proxy } = settings;
  const target = authority(settings.target);
  const reader = new Reader(socket);
  const closed =
    (stage: string) =>
    (error: unknown): never => {
      throw new ProxyError(proxy, `it closed the connection ${stage}`, 'closed', error);
    };
  const withPassword = proxy.username !== undefined || proxy.password !== undefined;
  socket.write(Buffer.from(withPassword ? [5, 2, 0, 2] : [5, 1, 0]));
  const [version, method] = await reader.bytes(2).catch(closed('during the SOCKS5 greeting'));
  if (version !== 5) throw new ProxyError(proxy, 'it does not speak SOCKS5', 'refused');
  if (method === 2 && withPassword) {
    const user = Buffer.from(proxy.username ?? '');
    const password = Buffer.from(proxy.password ?? '');
    socket.write(
      Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([password.length]), password]),
    );
    const [, verdict] = await reader.bytes(2).catch(closed('during SOCKS5 authentication'));
    if (verdict !== 0)
      throw new ProxyError(proxy, 'it refused the username and password in its URL', 'authentication');
  } else if (method !== 0) {
    const advice = withPassword
      ? 'it accepts none of the authentication methods offered'
      : 'it requires authentication: give a username and password in its URL (socks5://user:password@host:port)';
    throw new ProxyError(proxy, advice, 'authentication');
  }
  const port = Buffer.alloc(2);
  port.writeUInt16BE(settings.target.port);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), await socksAddress(settings.target.host), port]));
  const [, reply, , type] = await reader.bytes(4).catch(closed(`before answering CONNECT ${target}`));
  if (reply !== 0) {
    const what = SOCKS_REPLIES[reply ?? -1] ?? `reply ${reply}`;
    throw new ProxyError(proxy, `CONNECT ${target} failed: ${what}`, reply === 2 ? 'refused' : 'upstream');
  }
  // The address the proxy bound, which nothing here needs: IPv4, a name, or IPv6, then a port.
  const length = type === 1 ? 4 : type === 4 ? 16 : ((await reader.bytes(1))[0] ?? 0);
  await reader.bytes(length + 2);
  reader.release();
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
    if (settings.signal.aborted) throw settings.signal.reason as Error;
    throw error;
  } finally {
    settings.signal.removeEventListener('abort', onAbort);
    socket.off('error', swallow);
  }
}
