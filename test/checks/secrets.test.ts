// No token, parameter value or Secret data in any error, cause, stack or debug line.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);

test('sentinel secrets never appear, while errors and debug lines do', async () => {
  const { stdout, stderr } = await run(process.execPath, ['test/fixtures/secret-scenarios.ts'], {
    env: { ...process.env, NODE_DEBUG: 'openshift-templates' },
    maxBuffer: 32 * 1024 * 1024,
  });
  const seen = JSON.parse(stdout) as string[];
  const output = stdout + stderr;
  for (const sentinel of ['SENTINEL-TOKEN-7f3a9c', 'SENTINEL-PARAM-2b8e41', 'SENTINEL-SECRET-c0ffee']) {
    expect(output).not.toContain(sentinel);
    expect(output).not.toContain(Buffer.from(sentinel).toString('base64'));
  }
  // The scenarios really failed in the ways intended, and said so.
  const text = seen.join('\n');
  expect(text).toContain('Apply Secret "sec-secret" in namespace "workers": 422 Invalid');
  expect(text).toContain('[redacted]');
  expect(text).toContain('Process Template "secretive" in namespace "workers": 500: panic near [redacted]');
  expect(text).toContain(
    'Delete ConfigMap "sec-config" in namespace "workers": 409 Conflict: conflict over [redacted]',
  );
  expect(text).toContain('parameter "UNDECLARED" is not declared by the Template');
  expect(text).toContain('401 Unauthorized');
  expect(text).toContain('invalid YAML');
  expect(seen.filter((s) => s === 'ok')).toHaveLength(3);
  // Debug lines: method, path, status, duration, step and identity.
  expect(stderr).toMatch(
    /OPENSHIFT-TEMPLATES \d+: PATCH \/api\/v1\/namespaces\/workers\/secrets\/sec-secret 201 \d+ms Apply Secret "sec-secret" in namespace "workers"/,
  );
  expect(stderr).toMatch(
    /OPENSHIFT-TEMPLATES \d+: GET \/api\/v1 200 \d+ms Connect https:\/\/127\.0\.0\.1:\d+/,
  );
});
