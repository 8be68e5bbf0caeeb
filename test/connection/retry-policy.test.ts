// How long a 429 is waited out: API Priority and Fairness doubles its Retry-After up to 32 s while
// a priority level keeps refusing, and a 500-job burst on the real tier met exactly that run.
import { expect, test } from 'vitest';
import { overloadHint, shouldRetry } from '../../src/connection/retry.ts';

/** The waits APF asks for in a row while it keeps refusing: 1, 2, 4, 8, 16, then 32 s each time. */
const apfRun = [1, 2, 4, 8, 16, 32, 32, 32, 32].map((s) => s * 1000);

test("a full doubling run of API Priority and Fairness's Retry-After is waited out", () => {
  let waited = 0;
  apfRun.forEach((delay, retries) => {
    expect(shouldRetry(delay, retries, waited), `retry ${retries + 1} after ${delay} ms`).toBe(true);
    waited += delay;
  });
});

test('ten retries at most, a single wait of a minute at most, three minutes in all', () => {
  expect(shouldRetry(0, 10, 0)).toBe(false);
  expect(shouldRetry(60_000, 0, 0)).toBe(true);
  expect(shouldRetry(60_001, 0, 0)).toBe(false);
  expect(shouldRetry(32_000, 9, 159_000)).toBe(false);
  expect(shouldRetry(undefined, 0, 0)).toBe(false);
});

test('the error says why a 429 was not waited for', () => {
  expect(overloadHint(0, 0, 3_600_000)).toBe(
    'the server asked to wait 3600000 ms, more than the 60000 ms this library waits at once; not retried',
  );
  expect(overloadHint(0, 0, undefined)).toBe('the server sent no Retry-After, so it was not retried');
  expect(overloadHint(3, 7000, 32_000)).toContain('retried 3 times over 7000 ms');
});
