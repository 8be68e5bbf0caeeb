// The packed tarball, installed into a fresh project, used the four ways users reach for it:
// ESM import, CommonJS require (Node >= 22.12), tsx, and a ts-node REPL session.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/index.ts';

const run = promisify(execFile);
const EXPECTED = ['pkg-config', 'pkg-credentials', 'pkg'];

let sim: Simulator;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'ots-package-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', project], {
    cwd: resolve('.'),
  });
  const tarball = join(project, stdout.trim().split('\n').at(-1) ?? '');
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }),
  );
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
      'tsx@4',
      'ts-node@10',
      'typescript@5.9',
      '@types/node@24',
    ],
    {
      cwd: project,
    },
  );
  sim = await startSimulator();
  await sim.writeKubeconfig(join(project, 'kubeconfig.json'));
  env = { ...process.env, KUBECONFIG: join(project, 'kubeconfig.json') };
});
afterAll(async () => {
  await sim.close();
  await rm(project, { recursive: true, force: true });
});

const OPTIONS = "{ namespace: 'workers', templateNamespace: 'infra' }";

async function node(file: string, source: string, command: string[] = [process.execPath]): Promise<string[]> {
  await writeFile(join(project, file), source);
  const [bin = process.execPath, ...args] = command;
  const { stdout } = await run(bin, [...args, file], { cwd: project, env });
  return JSON.parse(stdout) as string[];
}

describe('the packed tarball', () => {
  test('contains only what users need', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: resolve('.') });
    const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const paths = (info?.files ?? []).map((f) => f.path);
    expect(
      paths.every((p) => /^(dist\/[\w-]+\.(js|js\.map|d\.ts)|README\.md|LICENSE|package\.json)$/.test(p)),
    ).toBe(true);
    expect(paths).toContain('dist/index.js');
    expect(paths).toContain('dist/index.d.ts');
  });

  test('ESM import in plain Node', async () => {
    const names = await node(
      'esm.mjs',
      `import * as ocp from 'openshift-template-client';
const objects = await ocp.process('worker-template', { VM_NAME: 'pkg' }, ${OPTIONS});
console.log(JSON.stringify(objects.map((o) => o.metadata.name)));`,
    );
    expect(names).toEqual(EXPECTED);
  });

  test('CommonJS require()', async () => {
    const names = await node(
      'cjs.cjs',
      `const ocp = require('openshift-template-client');
ocp.process('worker-template', { VM_NAME: 'pkg' }, ${OPTIONS}).then((objects) => {
  console.log(JSON.stringify(objects.map((o) => o.metadata.name)));
});`,
    );
    expect(names).toEqual(EXPECTED);
  });

  test('tsx', async () => {
    const names = await node(
      'typed.mts',
      `import * as ocp from 'openshift-template-client';
const options: ocp.TemplateOptions = ${OPTIONS};
const objects: ocp.KubernetesObject[] = await ocp.process('worker-template', { VM_NAME: 'pkg' }, options);
console.log(JSON.stringify(objects.map((o) => o.metadata?.name)));`,
      [join(project, 'node_modules/.bin/tsx')],
    );
    expect(names).toEqual(EXPECTED);
  });

  test('a ts-node REPL session', async () => {
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true },
      }),
    );
    // ts-node 10.9.2 type-checks each REPL line against a preamble that declares every Node
    // builtin, and Node >= 22 lists `node:sea`, which that preamble cannot express: so the
    // session is transpile-only, as users run it on current Node.
    const repl = spawn(join(project, 'node_modules/.bin/ts-node'), ['-i'], {
      cwd: project,
      env: { ...env, TS_NODE_TRANSPILE_ONLY: 'true' },
    });
    let output = '';
    repl.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    repl.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const typed = [
      "import * as ocp from 'openshift-template-client'",
      "const options: ocp.TemplateOptions = { namespace: 'workers', templateNamespace: 'infra' }",
      "ocp.process('worker-template', { VM_NAME: 'pkg' }, options).then((objects) => console.log('RENDERED ' + JSON.stringify(objects.map((o) => o.metadata?.name))))",
    ];
    for (const line of typed) repl.stdin.write(`${line}\n`);
    const deadline = Date.now() + 60_000;
    while (!output.includes('RENDERED') && Date.now() < deadline && repl.exitCode === null) {
      await new Promise((r) => setTimeout(r, 50));
    }
    repl.stdin.end('.exit\n');
    expect(output).toContain(`RENDERED ${JSON.stringify(EXPECTED)}`);
  });
});

describe('package lint', () => {
  test('publint reports nothing', async () => {
    const { stdout } = await run(join(resolve('.'), 'node_modules/.bin/publint'), ['--strict'], {
      cwd: resolve('.'),
    });
    expect(stdout).toContain('All good!');
  });

  test('are-the-types-wrong is clean for the ESM entry', async () => {
    // attw exits non-zero on any problem; the ESM-only profile skips the node10 and CommonJS checks.
    const { stdout } = await run(
      join(resolve('.'), 'node_modules/.bin/attw'),
      ['--pack', '.', '--profile', 'esm-only', '--format', 'json'],
      {
        cwd: resolve('.'),
      },
    );
    const report = JSON.parse(stdout) as { analysis: { problems: { resolutionKind?: string }[] } };
    const esmProblems = report.analysis.problems.filter(
      (p) => p.resolutionKind === 'node16-esm' || p.resolutionKind === 'bundler',
    );
    expect(esmProblems).toEqual([]);
    // What the profile leaves out is only the expected note that require() reaches an ES module.
    expect(report.analysis.problems.map((p) => p.resolutionKind)).toEqual(['node16-cjs']);
  });
});
