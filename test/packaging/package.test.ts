// The README's install path on a fresh clone, as printed: the clone's `npm ci` and `npm pack`, the
// Install section's and docs/repl.md's ts-node `npm install` lines in a project made by `npm init -y`,
// then the package used the ways users reach for it: ESM import, CommonJS require, tsx, the two REPL
// recipes of docs/repl.md, its here-doc and `.ts` file, an esbuild bundle, and an unsupported Node.
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/index.ts';
import { fetchNode } from '../node-versions.ts';

const run = promisify(execFile);
const EXPECTED = ['pkg-config', 'pkg-credentials', 'pkg'];

let sim: Simulator;
let root: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ots-package-'));
  const readme = await readFile(resolve('README.md'), 'utf8');
  const repl = await readFile(resolve(REPL_PAGE), 'utf8');
  await freshClone(join(root, 'openshift-template-client'));
  // The Install section's clone steps, run as printed from the folder the clone is in.
  await shell(cloneSteps(readme), root);
  project = join(root, 'consumer');
  await mkdir(project);
  // As a newcomer starts a project: npm's own package.json, which says "type": "commonjs".
  await shell('npm init -y > /dev/null', project);
  // The Install section's line, then the ts-node recipe's, exactly as printed, from the registry.
  await shell(installLine(readme, '## Install'), project);
  await shell(installLine(repl, '## From a REPL'), project);
  await shell('npm install --no-audit --no-fund --loglevel=error tsx@4 esbuild@0.28', project);
  sim = await startSimulator();
  await sim.writeKubeconfig(join(project, 'kubeconfig.json'));
  env = { ...process.env, KUBECONFIG: join(project, 'kubeconfig.json') };
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

/** What a clone of this working tree holds: the files git tracks or would track, no dist/, no node_modules. */
async function freshClone(into: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: resolve('.'),
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const path of stdout.split('\0').filter(Boolean)) {
    await cp(resolve(path), join(into, path), { force: true }).catch((error: unknown) => {
      // A file deleted in the working tree but not yet in git's index is not in a clone either.
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    });
  }
}

async function shell(script: string, cwd: string): Promise<void> {
  await run('sh', ['-e', '-c', script], { cwd, maxBuffer: 64 * 1024 * 1024 });
}

/** Where the REPL recipes, the here-doc and the `.ts` file are printed. */
const REPL_PAGE = 'docs/repl.md';

/** The Install section's first shell block without its `git clone` line, which the copy stands in for. */
function cloneSteps(readme: string): string {
  const block = shellBlocks(section(readme, '## Install'))[0] ?? '';
  const lines = block.split('\n').filter((l) => l.trim() !== '');
  expect(lines[0]).toMatch(/^git clone \S.* openshift-template-client$/);
  return lines.slice(1).join('\n');
}

/** The first `npm install` line of a section's shell blocks. */
function installLine(readme: string, heading: string): string {
  const lines = shellBlocks(section(readme, heading)).flatMap((b) => b.split('\n'));
  const line = lines.find((l) => l.startsWith('npm install '));
  if (!line) throw new Error(`section ${heading} has no npm install line`);
  return line;
}

function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const end = readme.indexOf('\n## ', start + heading.length + 2);
  return readme.slice(start, end < 0 ? undefined : end);
}

function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

const OPTIONS = "{ namespace: 'workers', templateNamespace: 'infra' }";

async function node(file: string, source: string, command: string[] = [process.execPath]): Promise<string[]> {
  await writeFile(join(project, file), source);
  const [bin = process.execPath, ...args] = command;
  const { stdout } = await run(bin, [...args, file], { cwd: project, env });
  return JSON.parse(stdout) as string[];
}

describe('the packed tarball', () => {
  test('packed on a fresh clone, it holds the built dist/', async () => {
    const clone = join(root, 'openshift-template-client');
    const { version } = JSON.parse(await readFile(join(clone, 'package.json'), 'utf8')) as {
      version: string;
    };
    const { stdout } = await run('tar', ['-tzf', join(clone, `openshift-template-client-${version}.tgz`)]);
    const paths = stdout.split('\n').filter(Boolean);
    expect(paths).toContain('package/dist/index.js');
    expect(paths).toContain('package/dist/index.d.ts');
  });

  test('contains only what users need', async () => {
    // `--ignore-scripts`: the build already ran, and its output would come before the JSON.
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: resolve('.'),
    });
    const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const paths = (info?.files ?? []).map((f) => f.path);
    // Compiled files only, in dist/ and the layer folders below it; nothing else of the tree.
    const shipped = /^(dist\/([\w-]+\/)*[\w-]+\.(js|js\.map|d\.ts)|README\.md|LICENSE|package\.json)$/;
    expect(paths.filter((p) => !shipped.test(p))).toEqual([]);
    expect(paths).toContain('dist/wire/transport.js');
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

  // docs/repl.md's REPL recipes, typed line by line as a person would: each line after the prompt.
  const RENDERED = 'ConfigMap/repl-001-config Secret/repl-001-credentials VirtualMachine/repl-001';

  test('the ts-node REPL recipe: transpile-only, CommonJS, top-level await', async () => {
    const [setup, lines] = await readmeRecipe('npx ts-node');
    const options = '{"module":"commonjs","moduleResolution":"node10","target":"es2022"}';
    expect(setup).toContain(`TS_NODE_TRANSPILE_ONLY=true TS_NODE_COMPILER_OPTIONS='${options}' npx ts-node`);
    const tsNode = { TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_COMPILER_OPTIONS: options };
    // `-i`: a terminal gets the REPL by itself; through a pipe ts-node would read a script instead.
    const output = await replSession([join(project, 'node_modules/.bin/ts-node'), '-i'], lines, tsNode);
    expect(output).toContain(RENDERED);
    // The same in a project whose tsconfig.json resolves modules as nodenext and sets no target
    // (TS5110 without the recipe's moduleResolution, ES5 without its target).
    const nodenext = join(project, 'nodenext');
    await mkdir(nodenext, { recursive: true });
    await writeFile(
      join(nodenext, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }),
    );
    const there = await replSession(
      [join(project, 'node_modules/.bin/ts-node'), '-i'],
      lines,
      tsNode,
      nodenext,
    );
    expect(there).toContain(RENDERED);
  });

  test("docs/repl.md's here-doc form: plain node reads standard input as one module", async () => {
    const script = await readmeBlock('### From a here-doc', 'sh', "node <<'EOF'");
    const { stdout } = await run('bash', ['-c', script], { cwd: project, env });
    expect(stdout).toContain(RENDERED);
  });

  test('docs/repl.md\'s job.mts, and job.ts under "type": "module", run by Node itself on 24 and on 22', async () => {
    const source = await readmeBlock('### From a here-doc', 'ts', 'import');
    // npm init -y's "type": "commonjs" holds for job.mts too: the extension decides.
    expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))).toMatchObject({
      type: 'commonjs',
    });
    await writeFile(join(project, 'job.mts'), source);
    const typed = join(project, 'typed-module');
    await mkdir(typed, { recursive: true });
    await writeFile(join(typed, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(typed, 'job.ts'), source);
    const FILE = 'ConfigMap/file-001-config Secret/file-001-credentials VirtualMachine/file-001';
    for (const node of [process.execPath, await fetchNode('22')]) {
      const { stdout } = await run(node, ['job.mts'], { cwd: project, env });
      expect(stdout).toContain(FILE);
      const there = await run(node, ['job.ts'], { cwd: typed, env });
      expect(there.stdout).toContain(FILE);
    }
  });

  test('the plain node REPL recipe: await import()', async () => {
    const [setup, lines] = await readmeRecipe('node');
    expect(setup.trim()).toBe('node');
    const output = await replSession([process.execPath, '-i'], lines);
    expect(output).toContain(RENDERED);
  });

  test.each([
    ['the default CommonJS output', 'bundle.cjs', []],
    [
      'ESM output with a require shim',
      'bundle.mjs',
      [
        '--format=esm',
        "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      ],
    ],
  ])('an esbuild bundle (%s) runs without node_modules', async (_label, outfile, flags) => {
    await writeFile(
      join(project, 'bundled.cjs'),
      `const ocp = require('openshift-template-client');
(async () => {
  const api = await ocp.connect();
  const objects = await ocp.process('worker-template', { VM_NAME: 'pkg' }, { ...${OPTIONS}, api });
  await api.close();
  console.log(JSON.stringify(objects.map((o) => o.metadata.name)));
})();`,
    );
    const out = await mkdtemp(join(tmpdir(), 'ots-bundle-'));
    try {
      await run(
        join(project, 'node_modules/.bin/esbuild'),
        [
          'bundled.cjs',
          '--bundle',
          '--platform=node',
          `--outfile=${join(out, outfile)}`,
          '--log-level=error',
          ...flags,
        ],
        { cwd: project },
      );
      // Run from a folder with no node_modules: everything must be inside the bundle.
      const { stdout } = await run(process.execPath, [join(out, outfile)], { cwd: out, env });
      expect(JSON.parse(stdout)).toEqual(EXPECTED);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  test('on a Node.js older than 22.19, connect() rejects with a catchable error naming both versions', async () => {
    const oldNode = await fetchNode('20');
    const { stdout } = await run(
      oldNode,
      [
        '--input-type=module',
        '-e',
        `import * as ocp from 'openshift-template-client';
try {
  await ocp.connect();
  console.log('connected?');
} catch (error) {
  console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message, version: process.versions.node }));
}`,
      ],
      { cwd: project, env },
    );
    const result = JSON.parse(stdout) as { name: string; code: string; message: string; version: string };
    expect(result.version).toMatch(/^20\./);
    expect(result.name).toBe('ValidationError');
    // The environment's problem, not the call's: its code says so.
    expect(result.code).toBe('OTC_NODE_VERSION');
    expect(result.message).toContain(`Node.js ${result.version} is running`);
    expect(result.message).toContain('needs Node.js >= 22.19');
  });
});

/** docs/repl.md's REPL recipe whose shell block ends with `command`: that block and the typed lines. */
async function readmeRecipe(command: string): Promise<[string, string[]]> {
  const readme = await readFile(resolve(REPL_PAGE), 'utf8');
  const section = readme.slice(readme.indexOf('## From a REPL'));
  for (const match of section.matchAll(/```sh\n([\s\S]*?)```\s*```text\n([\s\S]*?)```/g)) {
    const setup = match[1] ?? '';
    if (!setup.trim().endsWith(command)) continue;
    const lines = (match[2] ?? '')
      .split('\n')
      .filter((l) => l.startsWith('> '))
      .map((l) => l.slice(2));
    return [setup, lines];
  }
  throw new Error(`${REPL_PAGE} has no REPL recipe ending in ${command}`);
}

/** The first `lang` code block of docs/repl.md's section `heading` whose text starts with `start`. */
async function readmeBlock(heading: string, lang: string, start: string): Promise<string> {
  const readme = await readFile(resolve(REPL_PAGE), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  for (const match of section.matchAll(new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``, 'g'))) {
    if ((match[1] ?? '').startsWith(start)) return match[1] ?? '';
  }
  throw new Error(`${REPL_PAGE} section ${heading} has no ${lang} block starting with ${start}`);
}

/** Types each line after the REPL's prompt, as a person would, and returns everything printed. */
async function replSession(
  command: string[],
  lines: string[],
  extraEnv: NodeJS.ProcessEnv = {},
  cwd = project,
): Promise<string> {
  const [bin = process.execPath, ...args] = command;
  const repl = spawn(bin, args, { cwd, env: { ...env, ...extraEnv } });
  let output = '';
  repl.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  repl.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  const prompts = async (count: number): Promise<void> => {
    while ((output.match(/> /g) ?? []).length < count && Date.now() < deadline && repl.exitCode === null) {
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  for (const [i, line] of lines.entries()) {
    await prompts(i + 1);
    repl.stdin.write(`${line}\n`);
  }
  await prompts(lines.length + 1);
  repl.stdin.end('.exit\n');
  return output;
}

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
