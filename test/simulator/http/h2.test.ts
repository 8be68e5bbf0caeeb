// HTTP/2 as kube-apiserver offers it: h2 first by ALPN with HTTP/1.1 beside it, or HTTP/1.1 alone.
// Each test starts its own simulator with the protocol it is about, since OTS_SIMULATOR_PROTOCOL
// may make HTTP/1.1 the default.
import { describe, expect, test } from 'vitest';
import { call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

describe('HTTP/2 as kube-apiserver offers it', () => {
  async function h2Get(target: Simulator, path: string): Promise<{ status: number; alpn: string | false }> {
    const { connect } = await import('node:http2');
    const session = connect(target.url, { ca: target.caCert });
    try {
      return await new Promise((resolve, reject) => {
        session.on('error', reject);
        const stream = session.request({ ':path': path, authorization: `Bearer ${target.token}` });
        let status = 0;
        stream.on('response', (headers) => {
          status = Number(headers[':status']);
        });
        stream.on('error', reject);
        stream.resume();
        stream.on('end', () => {
          resolve({ status, alpn: session.alpnProtocol ?? false });
        });
      });
    } finally {
      session.close();
    }
  }

  test('h2 is negotiated first by ALPN; HTTP/1.1 clients are still served; streams are counted', async () => {
    const h2 = await startSimulator({ protocol: 'h2', seedExamples: false });
    try {
      const before = h2.stats();
      expect(await h2Get(h2, '/api/v1')).toEqual({ status: 200, alpn: 'h2' });
      expect((await call(h2, 'GET', '/api/v1')).status).toBe(200);
      const after = h2.stats();
      expect(after.h2 - before.h2).toBe(1);
      expect(after.http1 - before.http1).toBe(1);
    } finally {
      await h2.close();
    }
  });

  test('an HTTP/1.1-only server never negotiates h2', async () => {
    const plain = await startSimulator({ protocol: 'http1', seedExamples: false });
    try {
      expect(plain.protocol).toBe('http1');
      await expect(h2Get(plain, '/api/v1')).rejects.toThrow();
      expect((await call(plain, 'GET', '/api/v1')).status).toBe(200);
      expect(plain.stats().h2).toBe(0);
    } finally {
      await plain.close();
    }
  });
  test('dropping connections again before the sessions have closed does not throw', async () => {
    const own = await startSimulator({ protocol: 'h2', seedExamples: false });
    const { connect } = await import('node:http2');
    const client = connect(own.url, { ca: own.caCert });
    client.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) =>
        client.once('remoteSettings', () => {
          resolve();
        }),
      );
      // The first drop destroys the session; it stays known until its 'close' event, a tick later.
      own.dropConnections();
      expect(() => {
        own.dropConnections();
      }).not.toThrow();
    } finally {
      client.destroy();
      await own.close();
    }
  });
});
