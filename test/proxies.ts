// Proxies for the test world: an HTTP CONNECT proxy over TCP or TLS, and a SOCKS5 proxy. Each
// counts its tunnels, can ask for credentials, refuse, stall or cut its tunnels, and can reach
// host names nobody else can resolve (the API server "behind" it).
import { createServer as createTcpServer, connect, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { generateTlsMaterial } from '../simulator/certs.ts';

export type ProxyKind = 'http' | 'https' | 'socks5';

export interface ProxyOptions {
  /** Credentials the proxy demands: Basic for CONNECT, username/password for SOCKS5. */
  credentials?: { username: string; password: string };
  /** Names only this proxy can reach, e.g. `api.cluster.test` → the simulator's port on 127.0.0.1. */
  hosts?: Record<string, string>;
}

export type ProxyBehaviour =
  | { type: 'forward' }
  /** Answers CONNECT with this status (SOCKS5: reply 2 for 403, 5 otherwise). */
  | { type: 'refuse'; status: number }
  /** Accepts the TCP connection and never answers. */
  | { type: 'stall' }
  /** Closes the connection as soon as the request arrives. */
  | { type: 'close' }
  /** SOCKS5: answers the CONNECT request with the first 6 of the reply's 10 bytes, then closes. */
  | { type: 'truncate' };

export interface TestProxy {
  kind: ProxyKind;
  /** `scheme://127.0.0.1:port`, without credentials. */
  url: string;
  /** With the credentials in it, when the proxy demands some. */
  urlWithCredentials: string;
  /** PEM of the CA that signed an `https` proxy's certificate. */
  caCert: string;
  /** Tunnels opened to a target, in order. */
  readonly tunnels: string[];
  /** Every credential header or SOCKS5 username/password the proxy received. */
  readonly credentialsSeen: string[];
  /** Tunnels open now. */
  open(): number;
  /** TCP connections the proxy accepted, tunnel or not. */
  accepted(): number;
  behave(behaviour: ProxyBehaviour): void;
  /** Ends every open tunnel at once, as a proxy restart does. */
  cutAll(): void;
  close(): Promise<void>;
}

const CRLF = '\r\n';
const REASONS: Record<number, string> = {
  403: 'Forbidden',
  407: 'Proxy Authentication Required',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

function parseTarget(authority: string): { host: string; port: number } {
  const bracketed = /^\[(.*)\]:(\d+)$/.exec(authority);
  if (bracketed) return { host: bracketed[1] ?? '', port: Number(bracketed[2]) };
  const colon = authority.lastIndexOf(':');
  return { host: authority.slice(0, colon), port: Number(authority.slice(colon + 1)) };
}

/** Starts a proxy of the given kind on 127.0.0.1, port 0. */
export async function startProxy(kind: ProxyKind, options: ProxyOptions = {}): Promise<TestProxy> {
  let behaviour: ProxyBehaviour = { type: 'forward' };
  const tunnels: string[] = [];
  const credentialsSeen: string[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const upstreams = new Set<Socket>();
  const material = kind === 'https' ? generateTlsMaterial('test-proxy') : undefined;

  const resolve = (host: string, port: number): { host: string; port: number } => {
    const mapped = options.hosts?.[host];
    return mapped === undefined
      ? { host, port }
      : parseTarget(mapped.includes(':') ? mapped : `${mapped}:${port}`);
  };

  const pipe = (
    client: Socket,
    target: { host: string; port: number },
    label: string,
    onOpen: () => void,
  ): void => {
    const upstream = connect({ port: target.port, host: target.host, noDelay: true });
    sockets.add(upstream);
    upstreams.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      upstreams.delete(upstream);
    });
    upstream.once('connect', () => {
      tunnels.push(label);
      onOpen();
      client.pipe(upstream).pipe(client);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    client.on('error', end);
    client.on('close', end);
  };

  const handleConnect = (client: Socket): void => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split(CRLF);
      const rest = head.subarray(end + 4);
      const [method, authority = ''] = (lines[0] ?? '').split(' ');
      const auth = lines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]*:\s*/, '');
      if (auth !== undefined) credentialsSeen.push(auth);
      if (behaviour.type === 'stall') return;
      if (behaviour.type === 'close') {
        client.destroy();
        return;
      }
      const expected = options.credentials
        ? `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
        : undefined;
      const answer = (status: string, extra = ''): void => {
        client.end(`HTTP/1.1 ${status}${CRLF}${extra}Content-Length: 0${CRLF}${CRLF}`);
      };
      if (method !== 'CONNECT') {
        answer('405 Method Not Allowed');
        return;
      }
      if (expected !== undefined && auth !== expected) {
        answer('407 Proxy Authentication Required', `Proxy-Authenticate: Basic realm="test"${CRLF}`);
        return;
      }
      if (behaviour.type === 'refuse') {
        answer(`${behaviour.status} ${REASONS[behaviour.status] ?? 'Refused'}`);
        return;
      }
      const target = parseTarget(authority);
      pipe(client, resolve(target.host, target.port), authority, () => {
        client.write(`HTTP/1.1 200 Connection Established${CRLF}${CRLF}`);
        if (rest.length > 0) client.unshift(rest);
      });
    };
    client.on('data', onData);
  };

  const handleSocks = (client: Socket): void => {
    let buffer = Buffer.alloc(0);
    let state: 'greeting' | 'auth' | 'request' = 'greeting';
    const reply = (code: number): void => {
      client.end(Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]));
    };
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      if (behaviour.type === 'stall') return;
      if (behaviour.type === 'close') {
        client.destroy();
        return;
      }
      if (state === 'greeting') {
        if (buffer.length < 2 || buffer.length < 2 + (buffer[1] ?? 0)) return;
        const methods = [...buffer.subarray(2, 2 + (buffer[1] ?? 0))];
        buffer = buffer.subarray(2 + (buffer[1] ?? 0));
        const wanted = options.credentials ? 2 : 0;
        if (!methods.includes(wanted)) {
          client.end(Buffer.from([5, 0xff]));
          return;
        }
        client.write(Buffer.from([5, wanted]));
        state = options.credentials ? 'auth' : 'request';
      }
      if (state === 'auth') {
        const userLength = buffer[1] ?? 0;
        if (buffer.length < 3 + userLength || buffer.length < 3 + userLength + (buffer[2 + userLength] ?? 0))
          return;
        const user = buffer.subarray(2, 2 + userLength).toString();
        const passwordLength = buffer[2 + userLength] ?? 0;
        const password = buffer.subarray(3 + userLength, 3 + userLength + passwordLength).toString();
        buffer = buffer.subarray(3 + userLength + passwordLength);
        credentialsSeen.push(`${user}:${password}`);
        const ok = user === options.credentials?.username && password === options.credentials.password;
        if (!ok) {
          client.end(Buffer.from([1, 1]));
          return;
        }
        client.write(Buffer.from([1, 0]));
        state = 'request';
      }
      if (buffer.length < 5) return;
      const type = buffer[3];
      const addressLength = type === 1 ? 4 : type === 4 ? 16 : 1 + (buffer[4] ?? 0);
      if (buffer.length < 4 + addressLength + 2) return;
      client.off('data', onData);
      const address = buffer.subarray(4, 4 + addressLength);
      const host =
        type === 1
          ? [...address].join('.')
          : type === 4
            ? (address.toString('hex').match(/.{4}/g) ?? []).join(':')
            : address.subarray(1).toString();
      const port = buffer.readUInt16BE(4 + addressLength);
      const rest = buffer.subarray(4 + addressLength + 2);
      if (behaviour.type === 'refuse') {
        reply(behaviour.status === 403 ? 2 : 5);
        return;
      }
      if (behaviour.type === 'truncate') {
        client.end(Buffer.from([5, 0, 0, 1, 127, 0]));
        return;
      }
      pipe(client, resolve(host, port), `${host}:${port}`, () => {
        client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
        if (rest.length > 0) client.unshift(rest);
      });
    };
    client.on('data', onData);
  };

  const onClient = (client: Socket): void => {
    client.setNoDelay(true);
    accepted++;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (kind === 'socks5') handleSocks(client);
    else handleConnect(client);
  };
  const server: Server = material
    ? createTlsServer({ cert: material.serverCert, key: material.serverKey }, onClient)
    : createTcpServer(onClient);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `${kind}://127.0.0.1:${port}`;
  const credentials = options.credentials
    ? `${encodeURIComponent(options.credentials.username)}:${encodeURIComponent(options.credentials.password)}@`
    : '';
  return {
    kind,
    url,
    urlWithCredentials: `${kind}://${credentials}127.0.0.1:${port}`,
    caCert: material?.caCert ?? '',
    tunnels,
    credentialsSeen,
    open: () => upstreams.size,
    accepted: () => accepted,
    behave: (next) => {
      behaviour = next;
    },
    cutAll: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) =>
        server.close(() => {
          done();
        }),
      );
    },
  };
}
