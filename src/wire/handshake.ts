// TCP + TLS to the API server, offering protocols by ALPN, bounded by the connect limit and by a
// signal (a closing Connection), never leaving a socket behind when it fails or is stopped.
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Proxy } from './proxy.ts';
import { openTunnel, type TunnelSettings, whenReady } from './tunnel.ts';
import { ConnectTimeoutError } from './wire-errors.ts';

export interface HandshakeSettings {
  /** `https://host:port` */
  origin: string;
  tls: Record<string, unknown>;
  connectTimeout: number;
  protocols: string[];
  /** A TLS session ticket to resume, which saves the certificate signature. */
  ticket: Buffer | undefined;
  /** Each new ticket the server sends on this connection (TLS 1.3 sends them after the handshake). */
  onTicket: (ticket: Buffer) => void;
  signal: AbortSignal;
  /** The proxy to tunnel through; absent for a direct connection. */
  through?: HandshakeProxy | undefined;
}

/** Proxy: the tunnel the TLS handshake runs over; its own TLS is verified by `tls`. */
export interface HandshakeProxy {
  proxy: Proxy;
  tls: TunnelSettings['proxyTls'];
  userAgent: string;
}

export async function handshake(settings: HandshakeSettings): Promise<TLSSocket> {
  settings.signal.throwIfAborted();
  // Loaded here, not at import: node:tls costs milliseconds to load.
  const { connect: connectTls } = await import('node:tls');
  const url = new URL(settings.origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  // SNI names a host, never an IP address (RFC 6066 section 3).
  const { servername = isIP(host) === 0 ? host : undefined } = settings.tls as { servername?: string };
  const through = settings.through;
  // One limit for the whole way: tunnel, then TLS. A stall names the proxy and the stage it was in.
  const limit = new AbortController();
  let stage = through ? `proxy ${through.proxy.label} had not opened the tunnel` : undefined;
  const timer = setTimeout(() => {
    limit.abort(new ConnectTimeoutError(settings.connectTimeout, stage));
  }, settings.connectTimeout);
  const signal = AbortSignal.any([settings.signal, limit.signal]);
  try {
    signal.throwIfAborted();
    const tunnel = through
      ? await openTunnel({
          proxy: through.proxy,
          target: { host, port },
          proxyTls: through.tls,
          userAgent: through.userAgent,
          connectTimeout: settings.connectTimeout,
          signal,
        })
      : undefined;
    if (through) stage = `the TLS handshake through proxy ${through.proxy.label} had not finished`;
    const socket = connectTls({
      ...settings.tls,
      ...(tunnel ? { socket: tunnel } : { host, port }),
      ...(servername === undefined ? {} : { servername }),
      ALPNProtocols: settings.protocols,
      ...(settings.ticket ? { session: settings.ticket } : {}),
    });
    socket.on('session', settings.onTicket);
    // Small requests and frames must not wait for the previous segment's acknowledgement (Nagle).
    socket.setNoDelay(true);
    await whenReady(socket, 'secureConnect', signal);
    // Keep-alive probes travel on the TCP connection: to the proxy when there is one.
    (tunnel ?? socket).setKeepAlive(true, 30_000);
    return socket;
  } finally {
    clearTimeout(timer);
  }
}
