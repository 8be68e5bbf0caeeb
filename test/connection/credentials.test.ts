// Credentials that change while a Connection lives: an exec plugin's rotating client certificate
// (the server accepts only one valid now) and the tokens of exec plugins and token files, which
// must never reach an error, a cause or a debug line. Runs test/fixtures/dynamic-credentials.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, expect, test } from 'vitest';

const run = promisify(execFile);
const SENTINELS = ['SENTINEL-EXEC-1e5b07', 'SENTINEL-EXEC-2c7d90', 'SENTINEL-FILE-9a4f22'];

let result: Record<string, unknown>;
let output: string;
beforeAll(async () => {
  const { stdout, stderr } = await run(process.execPath, ['test/fixtures/dynamic-credentials.ts'], {
    env: { ...process.env, NODE_DEBUG: 'openshift-templates' },
    timeout: 60_000,
    killSignal: 'SIGKILL',
    maxBuffer: 32 * 1024 * 1024,
  });
  result = (JSON.parse(stdout) as { result: Record<string, unknown> }).result;
  output = stdout + stderr;
}, 90_000);

test('a rotated exec client certificate replaces the connections made with the old one', () => {
  expect(result.beforeExpiry).toBe('ok');
  expect(result.afterExpiry).toBe('ok');
  expect(result.pluginRuns).toBe(2);
  // Every request the server saw was authenticated by a certificate that was valid at the time.
  expect(result.certificateUsers).toEqual(['rotating-user']);
});

test('close() ends a request still in flight on an HTTP/1.1 pool that a rotation retired', () => {
  expect(result.rotatedWhileInFlight).toBe('ok');
  expect(result.inFlightAtClose).toBe(
    'Get Template "worker-template" in namespace "infra": the Connection was closed',
  );
});

test('tokens from exec plugins and token files never appear, while the failures are told', () => {
  for (const sentinel of SENTINELS) expect(output).not.toContain(sentinel);
  expect(result.execQuoted).toBe(
    'Get Template "worker-template" in namespace "infra": 403 Forbidden: token [redacted] may not',
  );
  expect(result.execRefreshFailed).toMatch(
    /Get Template .*: could not get credentials, so nothing was sent: exec credential plugin ".*" failed with exit code 1: refresh failed: \[redacted\] was revoked$/,
  );
  expect(result.execRefreshed).toBe('ok');
  expect(result.fileQuoted).toMatch(
    /^Process Template "worker-template" in namespace "workers": 401 Unauthorized: token \[redacted\] expired/,
  );
  expect(result.fileUser).toBe('file-user');
  expect(output).toMatch(
    /OPENSHIFT-TEMPLATES \d+: POST \S+processedtemplates 401 \d+ms Process .*token \[redacted\] expired/,
  );
});
