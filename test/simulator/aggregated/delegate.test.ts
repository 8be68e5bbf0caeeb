// The aggregated simulator's SubjectAccessReviews retry as k8s.io/apiserver's delegating
// authorizer does: a throttled or failing review is sent again with backoff, and only the last
// failure reaches the caller. Its decisions are kept 10 s per review, as that authorizer's are. The kube-apiserver here is a loopback HTTPS server that answers each
// review from a script, so the number of reviews sent is exact.
import { createServer, type Server } from 'node:https';
import { afterEach, expect, test, vi } from 'vitest';
import { Delegate } from '../../../simulator/aggregated/delegate.ts';
import { generateTlsMaterial } from '../../../simulator/certs.ts';

const user = { user: 'alice', groups: ['system:authenticated'], extra: {} };
const attributes = {
  verb: 'create',
  group: 'template.openshift.io',
  version: 'v1',
  resource: 'processedtemplates',
  subresource: '',
  namespace: 'workers',
  name: '',
};

let server: Server | undefined;
let delegate: Delegate | undefined;

afterEach(async () => {
  vi.useRealTimers();
  delegate?.close();
  const running = server;
  if (running)
    await new Promise<void>((resolve) =>
      running.close(() => {
        resolve();
      }),
    );
  server = undefined;
  delegate = undefined;
});

/** A kube-apiserver whose n-th review is answered with `statuses[n]` (201 allows). */
async function reviewsAnswered(statuses: number[]): Promise<{ delegate: Delegate; sent: () => number }> {
  const tls = generateTlsMaterial('kube-apiserver');
  let sent = 0;
  server = createServer({ cert: tls.serverCert, key: tls.serverKey }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const status = statuses[Math.min(sent, statuses.length - 1)] ?? 500;
      sent += 1;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(status === 201 ? { status: { allowed: true } } : { kind: 'Status', code: status }),
      );
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  delegate = new Delegate({ url: `https://127.0.0.1:${port}`, caCert: tls.caCert, token: 'simulator-token' });
  return { delegate, sent: () => sent };
}

test('a review answered 429 twice is sent again and its third answer decides', async () => {
  const { delegate, sent } = await reviewsAnswered([429, 429, 201]);
  await expect(delegate.authorize(user, attributes)).resolves.toEqual({ allowed: true, reason: '' });
  expect(sent()).toBe(3);
}, 30_000);

test('a review failing every time is sent 5 times, and then its failure names the status', async () => {
  const { delegate, sent } = await reviewsAnswered([500]);
  await expect(delegate.authorize(user, attributes)).rejects.toThrow(/SubjectAccessReview answered 500/);
  expect(sent()).toBe(5);
}, 30_000);

test('a review refused for another reason is not sent again', async () => {
  const { delegate, sent } = await reviewsAnswered([403, 201]);
  await expect(delegate.authorize(user, attributes)).rejects.toThrow(/SubjectAccessReview answered 403/);
  expect(sent()).toBe(1);
}, 30_000);

test('a decision is kept 10 s for the same review, then asked again', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const { delegate, sent } = await reviewsAnswered([201]);
  for (let i = 0; i < 3; i++) await delegate.authorize(user, attributes);
  expect(sent()).toBe(1);
  vi.advanceTimersByTime(9_999);
  await delegate.authorize(user, attributes);
  expect(sent()).toBe(1);
  vi.advanceTimersByTime(1);
  await delegate.authorize(user, attributes);
  expect(sent()).toBe(2);
});

test('another user, group or attribute is a review of its own', async () => {
  const { delegate, sent } = await reviewsAnswered([201]);
  await delegate.authorize(user, attributes);
  await delegate.authorize({ ...user, user: 'bob' }, attributes);
  await delegate.authorize({ ...user, groups: [] }, attributes);
  await delegate.authorize(user, { ...attributes, name: 'one' });
  expect(sent()).toBe(4);
});

test('a failed review is not kept: the next request asks again', async () => {
  const { delegate, sent } = await reviewsAnswered([403, 201]);
  await expect(delegate.authorize(user, attributes)).rejects.toThrow(/answered 403/);
  await expect(delegate.authorize(user, attributes)).resolves.toEqual({ allowed: true, reason: '' });
  expect(sent()).toBe(2);
});
