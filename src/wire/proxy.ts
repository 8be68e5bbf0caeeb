// Which proxy, if any, a Connection goes through, as client-go chooses it: the cluster's
// `proxy-url`, else HTTPS_PROXY with NO_PROXY by golang.org/x/net http/httpproxy's rules
// (docs/wire-reference.md section 8; undici's EnvHttpProxyAgent decides otherwise, section 8.1).
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

export type ProxyScheme = 'http' | 'https' | 'socks5';

export interface Proxy {
  scheme: ProxyScheme;
  /** Host name or IP address, without brackets. */
  host: string;
  port: number;
  username: string | undefined;
  password: string | undefined;
  /** `scheme://host:port`, never the credentials: what errors and debug lines name. */
  label: string;
  /** Where the proxy was configured: `proxy-url of cluster "c"` or `HTTPS_PROXY`. */
  source: string;
}

/** Go's default ports per proxy scheme (httpproxy's portMap). */
const DEFAULT_PORTS: Record<ProxyScheme, number> = { http: 80, https: 443, socks5: 1080 };

/** The two spellings of a variable Go reads, upper case first; the first non-empty one wins. */
function fromEnvironment(env: NodeJS.ProcessEnv, upper: string): { name: string; value: string } | undefined {
  for (const name of [upper, upper.toLowerCase()]) {
    const value = env[name];
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/**
 * A proxy address as Go parses it: one without a scheme or a host (`proxy.corp:3128`) is read
 * as `http://` + the address. Returns the reason it cannot be used instead of a proxy.
 */
function parseProxy(value: string, source: string, schemes: readonly string[]): Proxy | string {
  let url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || url.host === '')
    url = URL.canParse(`http://${value}`) ? new URL(`http://${value}`) : undefined;
  // The address may hold a password: a reason never quotes it.
  if (url === undefined) return `${source} is not a URL`;
  const scheme = url.protocol.slice(0, -1);
  const normalized = scheme === 'socks5h' ? 'socks5' : scheme;
  if (!schemes.includes(scheme) || !(normalized in DEFAULT_PORTS))
    return `${source} has the scheme "${scheme}"; it must be ${schemes.join(', ')}`;
  const known = normalized as ProxyScheme;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return `${source} names no host`;
  const port = url.port === '' ? DEFAULT_PORTS[known] : Number(url.port);
  const credentials = userInfo(url, source);
  if (typeof credentials === 'string') return credentials;
  const tooLong = known === 'socks5' ? socksCredentialTooLong(credentials, source) : undefined;
  if (tooLong !== undefined) return tooLong;
  const shownHost = isIP(host) === 6 ? `[${host}]` : host;
  return { scheme: known, host, port, ...credentials, label: `${known}://${shownHost}:${port}`, source };
}

type Credentials = Pick<Proxy, 'username' | 'password'>;

/**
 * The URL's username and password, percent-decoded. WHATWG URL parsing keeps a `%` that starts no
 * escape (`50%off`), which decodeURIComponent then throws on; Go's url.Parse refuses such an
 * address too ("invalid URL escape"), so it is a reason here, which never quotes the credentials.
 */
function userInfo(url: URL, source: string): Credentials | string {
  const decode = (text: string): string | undefined => (text === '' ? undefined : decodeURIComponent(text));
  try {
    return { username: decode(url.username), password: decode(url.password) };
  } catch {
    return `${source} has a username or password that is not percent-encoded UTF-8: write a "%" in it as %25`;
  }
}

/** RFC 1929 gives the SOCKS5 username and password one length byte each. */
const SOCKS5_CREDENTIAL_BYTES = 255;

/**
 * A SOCKS5 username or password that cannot be sent, refused before any connection, as Go's SOCKS
 * dialer refuses it (golang.org/x/net internal/socks/socks.go, UsernamePassword.Authenticate).
 */
function socksCredentialTooLong(credentials: Credentials, source: string): string | undefined {
  for (const which of ['username', 'password'] as const) {
    const value = credentials[which];
    if (value !== undefined && Buffer.byteLength(value) > SOCKS5_CREDENTIAL_BYTES)
      return `${source} has a SOCKS5 ${which} longer than ${SOCKS5_CREDENTIAL_BYTES} bytes, the most RFC 1929 allows`;
  }
  return undefined;
}

interface NoProxyRule {
  /** Matches the server's host (lower case, ASCII) and port, and its address when it is an IP. */
  matches(host: string, port: string, ip: boolean): boolean;
}

/**
 * An IP address as Go compares it: IPv6 in its canonical form (`0:0::1` is `::1`), and an
 * IPv4-mapped one (`::ffff:10.1.2.3`) as its IPv4 address, as net.IP.Equal and IPNet.Contains
 * treat it (Go's To4). Anything else, a host name included, is returned as it is.
 */
function unmapped(address: string): string {
  const url = `http://[${address}]`;
  if (isIP(address) !== 6 || !URL.canParse(url)) return address;
  const canonical = new URL(url).hostname.slice(1, -1);
  const mapped = /^::ffff:([\da-f]{1,4}):([\da-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const [high, low] = [parseInt(mapped[1] ?? '', 16), parseInt(mapped[2] ?? '', 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** `10.0.0.0/8`, `fd00::/8`; `::ffff:10.0.0.0/104` is `10.0.0.0/8`, as in Go's IPNet.Contains. */
function cidrRule(entry: string): NoProxyRule | undefined {
  const slash = entry.indexOf('/');
  if (slash < 0) return undefined;
  const written = entry.slice(0, slash);
  const bits = entry.slice(slash + 1);
  const writtenFamily = isIP(written);
  if (writtenFamily === 0 || !/^\d+$/.test(bits) || Number(bits) > (writtenFamily === 4 ? 32 : 128))
    return undefined;
  // A shorter mapped prefix masks part of the ::ffff: marker away: an IPv6 range, as in Go.
  const address = Number(bits) >= 96 ? unmapped(written) : written;
  const family = isIP(address);
  const prefix = family === writtenFamily ? Number(bits) : Number(bits) - 96;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  list.addSubnet(address, prefix, type);
  // Node's BlockList would also match an IPv4 address against an IPv6 range (::/0); Go never does.
  return {
    matches: (host, _port, ip) => ip && isIP(host) === family && list.check(host, type),
  };
}

/** Splits `host:port` and `[v6]:port` as Go's net.SplitHostPort does; a bare host has no port. */
function splitHostPort(entry: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\]:(\d*)$/.exec(entry);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ?? '' };
  const colon = entry.lastIndexOf(':');
  // More than one colon without brackets is an IPv6 address, not host:port.
  if (colon < 0 || entry.indexOf(':') !== colon) return { host: entry, port: '' };
  return { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
}

/** One NO_PROXY entry by httpproxy's rules: `*`, CIDR, IP[:port], domain[:port], `.domain`, `*.domain`. */
function noProxyRule(entry: string): NoProxyRule | 'all' | undefined {
  if (entry === '*') return 'all';
  const cidr = cidrRule(entry);
  if (cidr) return cidr;
  const { host: written, port } = splitHostPort(entry);
  if (written === '') return undefined;
  const rawHost = unmapped(written);
  if (isIP(rawHost) !== 0)
    return { matches: (host, hostPort, ip) => ip && host === rawHost && (port === '' || port === hostPort) };
  const wildcard = rawHost.startsWith('*.') ? rawHost.slice(1) : rawHost;
  const matchHost = !wildcard.startsWith('.');
  const suffix = toAscii(matchHost ? `.${wildcard}` : wildcard);
  return {
    matches: (host, hostPort, ip) =>
      !ip &&
      (host.endsWith(suffix) || (matchHost && host === suffix.slice(1))) &&
      (port === '' || port === hostPort),
  };
}

function toAscii(host: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(host)) return host;
  return domainToASCII(host) || host;
}

/** Whether a request to the server goes through the environment's proxy (httpproxy's useProxy). */
export function bypassesProxy(server: URL, noProxy: string): boolean {
  const host = unmapped(server.hostname.replace(/^\[|\]$/g, '').toLowerCase());
  const port = server.port === '' ? '443' : server.port;
  const family = isIP(host);
  const ip = family !== 0;
  const loopback = host === '::1' || (family === 4 && host.startsWith('127.'));
  if (host === 'localhost' || loopback) return true;
  for (const raw of noProxy.split(',')) {
    const rule = noProxyRule(raw.trim().toLowerCase());
    if (rule === 'all') return true;
    if (rule?.matches(host, port, ip)) return true;
  }
  return false;
}

/**
 * The proxy for a Connection to `server`, or undefined for a direct connection, or the reason
 * the configuration cannot be used. `proxy-url` applies to every server, loopback included, as
 * client-go's `http.ProxyURL` does; the environment's proxy is subject to NO_PROXY and never
 * applies to localhost or a loopback address. Go accepts any scheme from the environment and
 * would tunnel through an `ftp://` proxy as if it were `http://`; this refuses it instead.
 */
export function proxyFor(
  server: string,
  cluster: { name: string; proxyUrl?: string | undefined },
  env: NodeJS.ProcessEnv,
): Proxy | string | undefined {
  if (cluster.proxyUrl !== undefined && cluster.proxyUrl !== '')
    return parseProxy(cluster.proxyUrl, `the proxy-url of cluster "${cluster.name}"`, [
      'http',
      'https',
      'socks5',
    ]);
  if (!URL.canParse(server)) return undefined;
  const url = new URL(server);
  if (url.protocol !== 'https:') return undefined;
  const configured = fromEnvironment(env, 'HTTPS_PROXY');
  if (configured === undefined) return undefined;
  if (bypassesProxy(url, fromEnvironment(env, 'NO_PROXY')?.value ?? '')) return undefined;
  return parseProxy(configured.value, configured.name, ['http', 'https', 'socks5', 'socks5h']);
}

/** `host:port` as a proxy is asked for it, an IPv6 address in brackets. */
export function authority(target: { host: string; port: number }): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

/** What a proxy's credentials look like on the wire, so none of them is ever printed. */
export function proxySecrets(proxy: Proxy | undefined): string[] {
  if (proxy?.password === undefined) return [];
  const pair = `${proxy.username ?? ''}:${proxy.password}`;
  return [proxy.password, encodeURIComponent(proxy.password), pair, Buffer.from(pair).toString('base64')];
}
