// Which proxy a Connection takes (HTTPS_PROXY and NO_PROXY as client-go reads them), and every way
// one can fail: a setting that cannot be used is a ValidationError from connect() before any
// connection; a tunnel that does not open names the proxy by scheme://host:port, where it was
// configured and what it said, and says nothing was sent. No credential is ever shown.
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  onTestFinished,
  test,
  vi,
} from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, instance, rejection, settles, WORKER } from '../helpers.ts';
import type { TestProxy } from '../proxies.ts';
import {
  closeProxies,
  cut,
  expectNoSecret,
  HIDDEN,
  KINDS,
  kubeconfigAt,
  PARAMS,
  PASSWORD,
  proxy,
  shown,
  USER,
} from '../proxy-world.ts';

afterEach(closeProxies);

/** One simulator for the failure and environment tests (both use the default protocol). */
let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

describe('proxy failures are named, and nothing is sent', () => {
  async function connectError(url: string, trusted?: TestProxy): Promise<ocp.RequestError> {
    h.sim.clearLog();
    const error = await rejection(
      ocp.connect({
        kubeconfig: await kubeconfigAt(h, HIDDEN, url, trusted),
        requestTimeout: { connect: 1_000, read: 1_000 },
      }),
    );
    expect(h.sim.log).toHaveLength(0);
    const failure = instance(error, ocp.RequestError);
    expect(failure.step).toBe('Connect');
    expectNoSecret(shown(failure));
    return failure;
  }

  test.each(['http', 'https'] as const)(
    '%s proxy: 407 without credentials, 407 with wrong ones',
    async (kind) => {
      const p = await proxy(kind);
      const none = instance(
        await rejection(ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, p.url, p) })),
        ocp.RequestError,
      );
      expect(none.message).toBe(
        `Connect ${h.sim.kubeconfig.clusters[0]?.cluster.server.replace('127.0.0.1', HIDDEN)}: proxy ${p.url} ` +
          `(the proxy-url of cluster "simulator"): CONNECT ${HIDDEN}:${new URL(h.sim.url).port} was answered ` +
          '407 Proxy Authentication Required: the proxy requires credentials: give them in its URL ' +
          '(http://user:password@host:port); nothing was sent',
      );
      const wrong = p.urlWithCredentials.replace(encodeURIComponent(PASSWORD), 'not-it');
      const refused = instance(
        await rejection(ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, wrong, p) })),
        ocp.RequestError,
      );
      expect(refused.message).toContain(
        '407 Proxy Authentication Required: the proxy refused the credentials in its URL',
      );
    },
  );

  test('socks5 proxy: no credentials, wrong credentials', async () => {
    const p = await proxy('socks5');
    expect((await connectError(p.url)).message).toContain(
      `proxy ${p.url} (the proxy-url of cluster "simulator"): it requires authentication: give a username and password in its URL`,
    );
    const wrong = p.urlWithCredentials.replace(encodeURIComponent(PASSWORD), 'not-it');
    expect((await connectError(wrong)).message).toContain('it refused the username and password in its URL');
  });

  test.each([
    ['http', 403, 'was answered 403 Forbidden: the proxy does not allow a tunnel to this server'],
    ['http', 502, 'was answered 502 Bad Gateway: the proxy could not open a connection to the server'],
    ['socks5', 403, 'failed: connection not allowed by ruleset'],
    ['socks5', 502, 'failed: connection refused'],
  ] as const)('%s proxy refusing with %d', async (kind, status, words) => {
    const p = await proxy(kind);
    p.behave({ type: 'refuse', status });
    const failure = await connectError(p.urlWithCredentials);
    expect(failure.message).toContain(
      `proxy ${p.url} (the proxy-url of cluster "simulator"): CONNECT ${HIDDEN}:`,
    );
    expect(failure.message).toContain(words);
  });

  test.each(KINDS)(
    '%s proxy that stalls: a connect timeout that says the tunnel never opened',
    async (kind) => {
      const p = await proxy(kind);
      p.behave({ type: 'stall' });
      const failure = await connectError(p.urlWithCredentials, p);
      expect(failure.name).toBe('TimeoutError');
      expect(failure.message).toContain(
        `connect timed out after 1000 ms (proxy ${p.url} had not opened the tunnel)`,
      );
    },
  );

  test.each(['http', 'socks5'] as const)(
    '%s proxy that hangs up, and one that is not there',
    async (kind) => {
      const p = await proxy(kind);
      p.behave({ type: 'close' });
      expect((await connectError(p.urlWithCredentials)).message).toMatch(
        new RegExp(
          `proxy ${p.url} .*: it closed the connection (before answering CONNECT|during the SOCKS5 greeting)`,
        ),
      );
      const gone = p.url;
      await p.close();
      expect((await connectError(gone)).message).toContain(
        `proxy ${gone} (the proxy-url of cluster "simulator"): it could not be reached: connect ECONNREFUSED`,
      );
    },
  );

  test('an https proxy whose certificate nobody vouches for is refused; verifySsl: false accepts it', async () => {
    const p = await proxy('https');
    expect((await connectError(p.urlWithCredentials)).message).toContain(
      `proxy ${p.url} (the proxy-url of cluster "simulator"): the TLS handshake with it failed: unable to verify the first certificate`,
    );
    const api = await ocp.connect({
      kubeconfig: await kubeconfigAt(h, HIDDEN, p.urlWithCredentials),
      verifySsl: false,
    });
    await api.close();
    expect(p.tunnels).toHaveLength(1);
  });

  test('a proxy-url with another scheme is a ValidationError that names the cluster and no password', async () => {
    const error = instance(
      await rejection(
        ocp.connect({
          kubeconfig: await kubeconfigAt(
            h,
            HIDDEN,
            `ftp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:21`,
          ),
        }),
      ),
      ocp.ValidationError,
    );
    expect(error.issues).toEqual([
      'the proxy-url of cluster "simulator" has the scheme "ftp"; it must be http, https, socks5',
    ]);
    expectNoSecret(shown(error));
  });

  test.each([
    ['the proxy-url of cluster "simulator"', 'proxy-url'],
    ['HTTPS_PROXY', 'HTTPS_PROXY'],
  ])(
    'an unescaped percent sign in a proxy password is a ValidationError naming %s, not the password',
    async (source, where) => {
      for (const name of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) vi.stubEnv(name, '');
      onTestFinished(() => {
        vi.unstubAllEnvs();
      });
      const url = `http://${USER}:50%off@127.0.0.1:3128`;
      if (where === 'HTTPS_PROXY') vi.stubEnv('HTTPS_PROXY', url);
      const error = instance(
        await rejection(
          ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, where === 'proxy-url' ? url : undefined) }),
        ),
        ocp.ValidationError,
      );
      expect(error.issues).toEqual([
        `${source} has a username or password that is not percent-encoded UTF-8: write a "%" in it as %25`,
      ]);
      expect(shown(error)).not.toContain('50%off');
    },
  );

  test.each([
    ['password', USER, 'é'.repeat(128)],
    ['username', 'u'.repeat(256), PASSWORD],
  ])(
    'a SOCKS5 %s over 255 bytes is refused before connecting; 255 bytes go through',
    async (which, user, password) => {
      const long = await proxy('socks5', { username: user, password });
      const error = instance(
        await rejection(ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, long.urlWithCredentials) })),
        ocp.ValidationError,
      );
      expect(error.issues).toEqual([
        `the proxy-url of cluster "simulator" has a SOCKS5 ${which} longer than 255 bytes, the most RFC 1929 allows`,
      ]);
      expect(long.accepted()).toBe(0);
      expect(shown(error)).not.toContain(password);
      const fits = await proxy('socks5', {
        username: user.slice(0, 255),
        password: which === 'password' ? `${'é'.repeat(127)}a` : password,
      });
      const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, fits.urlWithCredentials) });
      await api.close();
      expect(fits.tunnels).toHaveLength(1);
    },
  );

  test('a server name longer than SOCKS5 can carry is refused by the proxy error, nothing sent', async () => {
    const p = await proxy('socks5');
    const long = `${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.test`;
    h.sim.clearLog();
    const failure = instance(
      await rejection(
        ocp.connect({
          kubeconfig: await kubeconfigAt(h, long, p.urlWithCredentials),
          requestTimeout: { connect: 5_000, read: 1_000 },
        }),
      ),
      ocp.RequestError,
    );
    expect(failure.message).toContain(
      `proxy ${p.url} (the proxy-url of cluster "simulator"): the server's host name is longer than the 255 bytes SOCKS5 can carry; nothing was sent`,
    );
    expect([p.tunnels, h.sim.log]).toEqual([[], []]);
  });

  test.each(['http', 'socks5'] as const)(
    'close() ends a handshake stalled in an %s proxy at once',
    async (kind) => {
      const p = await proxy(kind);
      const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN, p.urlWithCredentials) });
      await cut(p);
      p.behave({ type: 'stall' });
      const processing = rejection(ocp.process('worker-template', PARAMS, { ...WORKER, api }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await api.close();
      expect((await processing).message).toContain('the Connection was closed');
      await settles(() => p.open(), 0);
    },
  );
});

describe('HTTPS_PROXY and NO_PROXY, as client-go reads them', () => {
  // Whatever the machine's own environment says, each test starts with none of them set.
  beforeEach(() => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy', 'HTTP_PROXY', 'http_proxy'])
      vi.stubEnv(name, '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  test.each(['HTTPS_PROXY', 'https_proxy'])(
    '%s carries a Connection to a server only the proxy reaches',
    async (name) => {
      const p = await proxy('http');
      vi.stubEnv(name, p.urlWithCredentials);
      const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN) });
      await ocp.process('worker-template', PARAMS, { ...WORKER, api });
      await api.close();
      expect(p.tunnels).toHaveLength(1);
    },
  );

  test('an address without a scheme is an http proxy; HTTPS_PROXY wins over https_proxy', async () => {
    const p = await proxy('http', false);
    const other = await proxy('http', false);
    vi.stubEnv('HTTPS_PROXY', new URL(p.url).host);
    vi.stubEnv('https_proxy', other.url);
    const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN) });
    await api.close();
    expect([p.tunnels.length, other.tunnels.length]).toEqual([1, 0]);
  });

  test('the kubeconfig proxy-url wins over HTTPS_PROXY and applies even to loopback', async () => {
    const chosen = await proxy('socks5');
    const environment = await proxy('http');
    vi.stubEnv('HTTPS_PROXY', environment.urlWithCredentials);
    const api = await ocp.connect({
      kubeconfig: await kubeconfigAt(h, '127.0.0.1', chosen.urlWithCredentials),
    });
    await api.close();
    expect([chosen.tunnels, environment.tunnels.length]).toEqual([
      [`127.0.0.1:${new URL(h.sim.url).port}`],
      0,
    ]);
  });

  test.each([
    ['NO_PROXY', 'cluster.test'],
    ['no_proxy', '.test'],
    ['NO_PROXY', '*.cluster.test'],
    ['NO_PROXY', `other.example, ${HIDDEN}:PORT`],
    ['NO_PROXY', '*'],
  ])('%s=%s sends the Connection direct (and the name does not resolve)', async (name, value) => {
    const p = await proxy('http');
    vi.stubEnv('HTTPS_PROXY', p.urlWithCredentials);
    vi.stubEnv(name, value.replace('PORT', new URL(h.sim.url).port));
    const error = instance(
      await rejection(ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN) })),
      ocp.RequestError,
    );
    expect(error.message).toContain('ENOTFOUND');
    expect(p.tunnels).toHaveLength(0);
  });

  test.each(['127.0.0.1', 'localhost'])(
    'a server at %s is never proxied from the environment',
    async (host) => {
      const p = await proxy('http');
      vi.stubEnv('HTTPS_PROXY', p.urlWithCredentials);
      const api = await ocp.connect({ kubeconfig: await kubeconfigAt(h, host) });
      await api.close();
      expect(p.tunnels).toHaveLength(0);
    },
  );

  test('HTTP_PROXY alone does not apply to an https server', async () => {
    const p = await proxy('http');
    vi.stubEnv('HTTP_PROXY', p.urlWithCredentials);
    const error = await rejection(ocp.connect({ kubeconfig: await kubeconfigAt(h, HIDDEN) }));
    expect(error.message).toContain('ENOTFOUND');
    expect(p.tunnels).toHaveLength(0);
  });
});
