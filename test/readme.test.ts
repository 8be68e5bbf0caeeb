// Every TypeScript snippet in the README and in docs/ is type-checked against the real exports and
// then run as printed, on Node 22 and Node 24, against the simulator with KUBECONFIG set to the
// kubeconfig the simulator writes (the Quickstart's path), so neither can drift from the code.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fetchNode } from './node-versions.ts';
import { runInPod } from './pod.ts';
import { type Simulator, startSimulator } from '../simulator/index.ts';

const run = promisify(execFile);
const ENTRY = resolve('src/index.ts');

/** The README and every page of docs/, the README first. */
async function pages(): Promise<string[]> {
  const docs = (await readdir('docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => join('docs', name))];
}

/** Each TypeScript snippet with the page it is on, in page order. */
async function snippets(): Promise<{ page: string; source: string }[]> {
  const found = await Promise.all(
    (await pages()).map(async (page) => {
      const text = await readFile(page, 'utf8');
      return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => ({ page, source: m[1] ?? '' }));
    }),
  );
  return found.flat();
}

function typeErrors(files: Map<string, string>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', 'lib.esnext.disposable.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    paths: { 'openshift-template-client': [ENTRY] },
  };
  const host = ts.createCompilerHost(options);
  const readFileFromDisk = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files.get(name) ?? readFileFromDisk(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.has(d.file.fileName))
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('README and docs/', () => {
  let sim: Simulator;
  let dir: string;
  let code: { page: string; source: string }[];

  beforeAll(async () => {
    code = await snippets();
    sim = await startSimulator();
    sim.addToken('readme-sa-token', { user: 'system:serviceaccount:workers:scheduler' });
    // Inside the checkout, so that the snippets' imports (the OpenTelemetry recipe's) resolve.
    dir = await mkdtemp(resolve('test/.readme-'));
    await sim.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('has TypeScript snippets, and every one type-checks against the real exports', () => {
    expect(code.length).toBeGreaterThanOrEqual(19);
    const files = new Map(code.map(({ source }, i) => [resolve(`readme-snippet-${i + 1}.ts`), source]));
    expect(typeErrors(files)).toEqual([]);
  });

  test.each(['24', '22'])(
    'every snippet runs as printed on Node %s against the simulator',
    async (major) => {
      const node = major === process.versions.node.split('.')[0] ? process.execPath : await fetchNode(major);
      sim.clearLog();
      for (const [i, { page, source }] of code.entries()) {
        // Only the package name is mapped to this checkout; nothing else of a snippet is changed.
        const runnable = source.replaceAll("'openshift-template-client'", JSON.stringify(ENTRY));
        const file = join(dir, `snippet-${major}-${i + 1}.ts`);
        await writeFile(file, runnable);
        const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
        if (source.includes('inCluster: true')) {
          await runInPod(sim, 'readme-sa-token', file, node);
        } else {
          const { stderr } = await run(node, [file], { env });
          // Node 22 announces type stripping once; anything else on stderr is a failure.
          expect(
            stderr.replace(/^.*ExperimentalWarning: Type Stripping.*\n.*--trace-warnings.*\n/m, ''),
            `snippet ${i + 1} (${page})`,
          ).toBe('');
        }
      }
      // The snippets created and deleted what they said they would.
      const applied = sim.log.filter((e) => e.method === 'PATCH').length;
      const deleted = sim.log.filter((e) => e.method === 'DELETE').length;
      expect(applied).toBeGreaterThan(0);
      expect(deleted).toBeGreaterThan(0);
      expect(
        sim.log.some((e) => e.user === 'system:serviceaccount:workers:scheduler' && e.method === 'DELETE'),
      ).toBe(true);
      // Each snippet is its own Node process, one after another: about 30 s on an idle machine.
    },
    300_000,
  );
});

describe('README: the way in', () => {
  test('at most 500 lines, none over 200 characters outside code blocks', async () => {
    const readme = await readFile('README.md', 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(500);
    const prose = readme.replace(/```[\s\S]*?```/g, '');
    expect(prose.split('\n').filter((line) => line.length > 200)).toEqual([]);
  });

  test('links only to docs/ pages that exist', async () => {
    const readme = await readFile('README.md', 'utf8');
    const linked = new Set(
      [...readme.matchAll(/\]\((docs\/[\w.-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? ''),
    );
    expect(linked.size).toBeGreaterThanOrEqual(10);
    for (const page of linked) await expect(readFile(page, 'utf8')).resolves.toBeTypeOf('string');
  });
});

describe('README table of contents', () => {
  /** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, each space a `-`. */
  const anchor = (title: string): string =>
    title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');

  test('lists every section and subsection in order, each linked to its anchor', async () => {
    const readme = await readFile('README.md', 'utf8');
    const prose = readme.replace(/```[\s\S]*?```/g, '');
    const headings = [...prose.matchAll(/^(##|###) (.+)$/gm)]
      .map((m) => ({ depth: m[1] ?? '', title: m[2] ?? '' }))
      .filter((h) => h.title !== 'Contents');
    const contents = /^## Contents\n\n((?:\s*- .+\n)+)/m.exec(prose)?.[1] ?? '';
    const expected = headings.map(
      (h) => `${h.depth === '###' ? '  ' : ''}- [${h.title}](#${anchor(h.title)})`,
    );
    expect(contents.trimEnd().split('\n')).toEqual(expected);
  });
});
