// NO_PROXY and proxy addresses by the rules of golang.org/x/net/http/httpproxy, which client-go
// uses through net/http: the cases below are the ones its own tests (proxy_test.go, UseProxyTests
// and proxyForURLTests) check, restated here.
import { describe, expect, test } from 'vitest';
import { bypassesProxy, proxyFor } from '../../src/wire/proxy.ts';

const NO_PROXY =
  'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, ' +
  '2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';

describe('NO_PROXY', () => {
  test.each([
    ['localhost', false],
    ['127.0.0.1', false],
    ['127.0.0.2', false],
    ['[::1]', false],
    ['[::2]', true],
    ['192.168.1.1', false],
    ['192.168.1.2', true],
    ['192.168.1.3', false],
    ['192.168.1.4', true],
    ['10.0.0.2', false],
    ['[2001:db8::52:0:1]', false],
    ['[2001:db8::52:0:2]', true],
    ['[2001:db8::52:0:3]', false],
    ['[2002:db8:a::123]', false],
    ['[fe80::424b:c8be:1643:a1b6]', true],
    ['barbaz.net', true],
    ['www.barbaz.net', false],
    ['foobar.com', false],
    ['www.foobar.com', false],
    ['foofoobar.com', true],
    ['baz.com', true],
    ['localhost.net', true],
    ['local.localhost', true],
    ['barbarbaz.net', true],
    ['wildcard.io', true],
    ['nested.wildcard.io', false],
    ['awildcard.io', true],
  ])('%s:80 proxied: %s', (host, proxied) => {
    expect(bypassesProxy(new URL(`https://${host}:80`), NO_PROXY)).toBe(!proxied);
  });

  test.each([
    ['example.com', 'example.com', false],
    ['.example.com', 'example.com', true],
    ['ample.com', 'example.com', true],
    ['example.com', 'foo.example.com', false],
    ['.foo.com', 'example.com', true],
    ['.示例.com', 'www.示例.com', false],
    ['xn--fsq092h.com', 'www.示例.com', false],
    ['示例.com', 'www.xn--fsq092h.com', false],
    ['*', 'anything.example', false],
    ['', 'example.com', true],
    // An IPv4-mapped IPv6 address is its IPv4 address (Go's net.IP.Equal and IPNet.Contains).
    ['10.1.2.3', '[::ffff:10.1.2.3]', false],
    ['::ffff:10.1.2.3', '10.1.2.3', false],
    ['[::ffff:10.1.2.3]:443', '10.1.2.3', false],
    ['10.0.0.0/8', '[::ffff:10.1.2.3]', false],
    ['::ffff:10.0.0.0/104', '10.1.2.3', false],
    ['::ffff:0:0/96', '10.1.2.3', false],
    ['::ffff:10.0.0.0/104', '11.1.2.3', true],
    ['10.1.2.3', '[::ffff:10.1.2.4]', true],
    ['::/0', '10.1.2.3', true],
    ['0.0.0.0/0', '[2001:db8::1]', true],
  ])('NO_PROXY=%s, server %s proxied: %s', (noProxy, host, proxied) => {
    expect(bypassesProxy(new URL(`https://${host}`), noProxy)).toBe(!proxied);
  });
});

describe('which proxy', () => {
  const cluster = { name: 'c' };
  const server = 'https://api.example.com:6443';
  test.each([
    [{ HTTPS_PROXY: 'cache.corp.example.com:1234' }, 'http://cache.corp.example.com:1234'],
    [{ HTTPS_PROXY: 'cache.corp.example.com' }, 'http://cache.corp.example.com:80'],
    [{ HTTPS_PROXY: 'https://cache.corp.example.com' }, 'https://cache.corp.example.com:443'],
    [{ HTTPS_PROXY: 'socks5://127.0.0.1' }, 'socks5://127.0.0.1:1080'],
    [{ HTTPS_PROXY: 'socks5h://proxy.corp' }, 'socks5://proxy.corp:1080'],
    [{ https_proxy: 'http://lower:3128' }, 'http://lower:3128'],
    [{ HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128' }, 'http://upper:3128'],
    [{ HTTP_PROXY: 'http://plain:3128' }, undefined],
    [{ HTTPS_PROXY: 'http://[2001:db8::1]:3128' }, 'http://[2001:db8::1]:3128'],
    [{ HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'example.com' }, undefined],
    [{ HTTPS_PROXY: 'http://p:3128', no_proxy: '.example.com' }, undefined],
  ])('%j → %s', (env, label) => {
    const proxy = proxyFor(server, cluster, env);
    expect(typeof proxy === 'object' ? proxy.label : proxy).toBe(label);
  });

  test('proxy-url: credentials decoded and kept out of the label; other schemes refused', () => {
    const proxy = proxyFor(server, { name: 'c', proxyUrl: 'http://me:p%40ss@proxy:3128' }, {});
    expect(proxy).toMatchObject({ label: 'http://proxy:3128', username: 'me', password: 'p@ss' });
    expect(proxyFor(server, { name: 'c', proxyUrl: 'socks5h://proxy' }, {})).toBe(
      'the proxy-url of cluster "c" has the scheme "socks5h"; it must be http, https, socks5',
    );
    expect(
      proxyFor(server, { name: 'c', proxyUrl: 'http://proxy:3128' }, { HTTPS_PROXY: 'http://env:1' }),
    ).toMatchObject({
      label: 'http://proxy:3128',
    });
  });
});
