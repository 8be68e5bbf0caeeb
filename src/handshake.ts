// TCP + TLS to the API server, offering protocols by ALPN, bounded by the connect limit and by a
// signal (a closing Connection), never leaving a socket behind when it fails or is stopped.
import type { TLSSocket } from 'node:tls';
import { abortReason, ConnectTimeoutError } from './wire-errors.ts';

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
}

/** Where to connect and the SNI to send: host names only, never an IP address (RFC 6066 section 3). */
export async function endpointOf(
  origin: string,
  tls: Record<string, unknown>,
): Promise<{ host: string; port: number; servername: string | undefined }> {
  const { isIP } = await import('node:net');
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const servername =
    typeof tls.servername === 'string' ? tls.servername : isIP(host) === 0 ? host : undefined;
  return { host, port: Number(url.port || 443), servername };
}

export async function handshake(settings: HandshakeSettings): Promise<TLSSocket> {
  const { signal } = settings;
  signal.throwIfAborted();
  // Loaded here, not at import: node:tls costs milliseconds to load.
  const [{ connect: connectTls }, endpoint] = await Promise.all([
    import('node:tls'),
    endpointOf(settings.origin, settings.tls),
  ]);
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const socket = connectTls({
      ...settings.tls,
      host: endpoint.host,
      port: endpoint.port,
      ...(endpoint.servername === undefined ? {} : { servername: endpoint.servername }),
      ALPNProtocols: settings.protocols,
      ...(settings.ticket ? { session: settings.ticket } : {}),
    });
    socket.on('session', settings.onTicket);
    const timer = setTimeout(() => {
      socket.destroy(new ConnectTimeoutError(settings.connectTimeout));
    }, settings.connectTimeout);
    const onAbort = (): void => {
      socket.destroy(abortReason(signal));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      done();
      socket.setKeepAlive(true, 30_000);
      resolve(socket);
    });
  });
}
