// KUBECONFIG as a list, read as kubectl (client-go's loading rules) reads it: missing files are
// skipped, the first file to set a value or name an entry wins, and an explicit path must exist.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
let dir: string;
let full: string;
beforeAll(async () => {
  h = await harness({ tokens: { 'second-user-token': { user: 'second' } } });
  dir = await mkdtemp(join(tmpdir(), 'ots-kubeconfig-list-'));
  full = await h.kubeconfigWith(() => undefined);
});
beforeEach(() => {
  h.sim.clearLog();
});
afterEach(() => {
  process.env.KUBECONFIG = h.kubeconfig;
});
afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

const list = (...paths: string[]): string => paths.join(delimiter);

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return path;
}

/** The user the simulator saw on the connect check. */
function connectedAs(): string | undefined {
  return h.sim.log.find((e) => e.path === '/api/v1')?.user;
}

describe('KUBECONFIG lists several files', () => {
  test('a missing file of the list is skipped, as kubectl skips it', async () => {
    process.env.KUBECONFIG = list(join(dir, 'nonexistent'), full);
    await using api = await ocp.connect();
    const objects = await ocp.process('worker-template', { VM_NAME: 'listed' }, { ...WORKER, api });
    expect(objects).toHaveLength(3);
    expect(connectedAs()).toBe('admin');
  });

  test('the operations without an api load the same list', async () => {
    process.env.KUBECONFIG = list(join(dir, 'nonexistent'), '', full, full);
    const objects = await ocp.process('worker-template', { VM_NAME: 'listed' }, WORKER);
    expect(objects).toHaveLength(3);
  });

  test('the first file to set current-context wins', async () => {
    const first = await file('current.json', {
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'second',
    });
    process.env.KUBECONFIG = list(first, full);
    await (await ocp.connect()).close();
    expect(connectedAs()).toBe('second');
  });

  test('the first file to name a user wins with its whole entry; the later one is not merged in', async () => {
    const first = await file('user.json', {
      apiVersion: 'v1',
      kind: 'Config',
      users: [{ name: 'second', user: { token: 'stale-token-value' } }],
    });
    process.env.KUBECONFIG = list(first, full);
    const error = instance(await rejection(ocp.connect({ context: 'second' })), ocp.RequestError);
    expect(error.statusCode).toBe(401);
    expect(error.message).not.toContain('stale-token-value');
    expect(h.sim.log.map((e) => e.status)).toEqual([401]);
  });

  test('an empty file contributes nothing, as in client-go', async () => {
    process.env.KUBECONFIG = list(await file('empty.yaml', ''), full);
    await (await ocp.connect()).close();
    expect(connectedAs()).toBe('admin');
  });

  test('relative paths in a listed file resolve against that file’s folder', async () => {
    const nested = await mkdtemp(join(dir, 'nested-'));
    const config = JSON.parse(await readFile(full, 'utf8')) as {
      clusters: { cluster: Record<string, unknown> }[];
    };
    const cluster = config.clusters[0]?.cluster ?? {};
    const bundle = Buffer.from(String(cluster['certificate-authority-data']), 'base64').toString();
    await writeFile(join(nested, 'ca.pem'), bundle);
    delete cluster['certificate-authority-data'];
    cluster['certificate-authority'] = 'ca.pem';
    await writeFile(join(nested, 'config.json'), JSON.stringify(config));
    process.env.KUBECONFIG = list(join(dir, 'nonexistent'), join(nested, 'config.json'));
    await (await ocp.connect()).close();
    expect(connectedAs()).toBe('admin');
  });
});

describe('what cannot be loaded is named, never quoted', () => {
  test('every file missing: a RequestError naming each one, and nothing sent', async () => {
    const a = join(dir, 'absent-a');
    const b = join(dir, 'absent-b');
    process.env.KUBECONFIG = list(a, b);
    const error = instance(await rejection(ocp.connect()), ocp.RequestError);
    expect(error.message).toBe(`Connect KUBECONFIG: none of the files it lists exists: "${a}", "${b}"`);
    expect(h.sim.log).toEqual([]);
  });

  test('a KUBECONFIG of separators only lists nothing: a RequestError saying so', async () => {
    process.env.KUBECONFIG = list('', '');
    const error = instance(await rejection(ocp.connect()), ocp.RequestError);
    expect(error.message).toBe('Connect KUBECONFIG: it lists no file');
  });

  test('a listed file that does not parse names that file and not its content', async () => {
    const broken = await file('broken.yaml', 'users:\n- name: x\n  user: {token: "leaked-token-123"\n');
    process.env.KUBECONFIG = list(full, broken);
    const error = instance(await rejection(ocp.connect()), ocp.RequestError);
    expect(error.message).toContain(`kubeconfig "${broken}" (listed in KUBECONFIG)`);
    expect(error.message).not.toContain('leaked-token-123');
    expect((error.cause as Error).message).not.toContain('leaked-token-123');
    expect(h.sim.log).toEqual([]);
  });

  test('a listed folder is an error naming it, not a skipped file', async () => {
    process.env.KUBECONFIG = list(dir, full);
    const error = instance(await rejection(ocp.connect()), ocp.RequestError);
    expect(error.message).toContain(`kubeconfig "${dir}" (listed in KUBECONFIG)`);
    expect(error.cause).toMatchObject({ code: 'EISDIR' });
  });

  test('an explicit kubeconfig must exist, and KUBECONFIG is then not read', async () => {
    process.env.KUBECONFIG = list(full);
    const absent = join(dir, 'explicit-absent');
    const error = instance(await rejection(ocp.connect({ kubeconfig: absent })), ocp.RequestError);
    expect(error.cause).toMatchObject({ code: 'ENOENT', path: absent });
    process.env.KUBECONFIG = list(await file('unread.yaml', 'not: [a kubeconfig'));
    await (await ocp.connect({ kubeconfig: full })).close();
    expect(connectedAs()).toBe('admin');
  });
});
