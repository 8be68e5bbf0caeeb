// A Connection's life has no loose ends: each scenario runs in a child process (test/fixtures/
// loose-ends.ts) that must end by itself, with status 0. An unhandled rejection or an unhandled
// 'error' event ends it with status 1; a socket or timer left open keeps it alive until the
// deadline kills it. The simulator's request log proves that nothing is sent after close().
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);

async function scenario(name: string, protocol: 'h2' | 'http1', deadlineMs = 30_000): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['test/fixtures/loose-ends.ts', name, protocol], {
    timeout: deadlineMs,
    killSignal: 'SIGKILL',
  });
  return JSON.parse(stdout) as unknown;
}

describe.each(['h2', 'http1'] as const)('over %s', (protocol) => {
  test('aborts at every moment against a server that went away end cleanly', async () => {
    const seen = (await scenario('abort-gone', protocol)) as Record<string, string>;
    expect(Object.keys(seen).length).toBeGreaterThan(100);
    // Aborted, or refused by the server before the abort came: never a success.
    for (const outcome of Object.values(seen))
      expect(['AbortError', 'OperationError', 'RequestError']).toContain(outcome);
  }, 60_000);

  test('close() during a 429 wait: nothing is sent after it and the wait ends', async () => {
    const result = (await scenario('close-429', protocol)) as Record<string, unknown>;
    expect(result.outcome).toMatch(/the Connection was closed/);
    expect(result.requestsAfterClose).toBe(0);
    expect(result.connectionsAfterClose).toBe(0);
  }, 60_000);

  test('close() during a handshake: the request waiting for it is never sent', async () => {
    const result = (await scenario('close-handshake', protocol)) as Record<string, unknown>;
    expect(result.outcome).toMatch(/the Connection was closed/);
    expect(result.requestsAfterClose).toBe(0);
  }, 60_000);

  test('close() during a burst: every unfinished operation says the Connection was closed', async () => {
    const result = (await scenario('close-burst', protocol)) as Record<string, unknown>;
    expect(result).toEqual({
      closedErrors: true,
      someFailed: true,
      requestsAfterClose: 0,
      connectionsAfterClose: 0,
    });
  }, 60_000);

  test('an aborted connect() closes the handshake it started', async () => {
    const result = (await scenario('abort-connect', protocol)) as Record<string, unknown>;
    expect(result.outcome).toMatch(/^TimeoutError: Connect .*timed out/);
    expect(result).toMatchObject({ accepted: true, serverSawClose: true });
  }, 60_000);
});
