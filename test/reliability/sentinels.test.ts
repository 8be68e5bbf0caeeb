// The library suite, the fault matrix and the load suite again, under NODE_DEBUG=openshift-templates,
// with a sentinel bearer token for every connection and a sentinel password in every proxy URL of
// the proxy tests. The fault matrix also uses a sentinel value
// for its Secret-bound parameter and prints every error it sees (stack and causes); the other
// suites contribute debug lines and vitest's output. Neither sentinel appears anywhere.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { report } from './report.ts';

const run = promisify(execFile);
const TOKEN = 'SENTINEL-BEARER-91d2c7e4';
const PARAM = 'SENTINEL-PARAMETER-5f0a3b';
/** The password in every proxy URL of the proxy tests. */
const PROXY_PASSWORD = 'SENTINEL-PROXY-7c41e9';

test('no sentinel anywhere in the output of every scenario', async () => {
  const { stdout, stderr } = await run(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      'test/operations',
      'test/checks',
      'test/connection',
      'test/wire',
      'test/reliability/fault-matrix.test.ts',
      'test/reliability/credential-plugins.test.ts',
      'test/reliability/lies-and-load.test.ts',
      '--reporter=verbose',
    ],
    {
      env: {
        ...process.env,
        NODE_DEBUG: 'openshift-templates',
        OTS_SENTINEL_TOKEN: TOKEN,
        OTS_SENTINEL_PARAM: PARAM,
        OTS_SENTINEL_PROXY_PASSWORD: PROXY_PASSWORD,
        OTS_PRINT_ERRORS: '1',
        OTS_REPORT_FILE: '',
      },
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  // Without the terminal colours vitest adds.
  const output = (stdout + stderr).replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
  // The run really happened, with debug lines and printed errors.
  expect(output).toMatch(/Tests\s+\d+ passed \(\d+\)/);
  expect(output).toContain('OPENSHIFT-TEMPLATES');
  expect(output).toContain('OperationError');
  for (const sentinel of [TOKEN, PARAM, PROXY_PASSWORD]) {
    expect(output).not.toContain(sentinel);
    expect(output).not.toContain(Buffer.from(sentinel).toString('base64'));
  }
  // The proxy tests' Proxy-Authorization values (user "scheduler" and the suite harness's "suite").
  for (const user of ['scheduler', 'suite'])
    expect(output).not.toContain(Buffer.from(`${user}:${PROXY_PASSWORD}`).toString('base64'));
  expect(output).toContain('proxy http://127.0.0.1:');
  report('sentinels', {
    bytesScanned: output.length,
    debugLines: output.split('OPENSHIFT-TEMPLATES').length - 1,
  });
  // It runs a large part of the suite a second time, beside the rest of `npm test`: on a 2-core
  // machine with both cores kept busy by other work that takes well over ten minutes.
}, 1_500_000);
