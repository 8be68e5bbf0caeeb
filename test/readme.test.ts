// Every TypeScript snippet in the README is type-checked against the real exports and then run
// against the simulator, so the README cannot drift from the code.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runInPod } from './pod.ts';
import { type Simulator, startSimulator } from '../simulator/index.ts';

const run = promisify(execFile);
const ENTRY = resolve('src/index.ts');

async function snippets(): Promise<string[]> {
  const readme = await readFile('README.md', 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
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

describe('README', () => {
  let sim: Simulator;
  let dir: string;
  let code: string[];

  beforeAll(async () => {
    code = await snippets();
    sim = await startSimulator();
    sim.addToken('readme-sa-token', { user: 'system:serviceaccount:workers:scheduler' });
    dir = await mkdtemp(join(tmpdir(), 'ots-readme-'));
    const config = structuredClone(sim.kubeconfig);
    config.contexts.push({
      name: 'dev',
      context: { cluster: 'simulator', user: 'admin', namespace: 'workers' },
    });
    await writeFile(join(dir, 'kubeconfig'), JSON.stringify(config));
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('has TypeScript snippets, and every one type-checks against the real exports', () => {
    expect(code.length).toBeGreaterThanOrEqual(6);
    const files = new Map(code.map((source, i) => [resolve(`readme-snippet-${i + 1}.ts`), source]));
    expect(typeErrors(files)).toEqual([]);
  });

  test('every snippet runs as written against the simulator', async () => {
    for (const [i, source] of code.entries()) {
      const runnable = source
        .replaceAll("'openshift-template-client'", JSON.stringify(ENTRY))
        .replaceAll('/path/to/kubeconfig', join(dir, 'kubeconfig'));
      const file = join(dir, `snippet-${i + 1}.ts`);
      await writeFile(file, runnable);
      const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
      if (source.includes('inCluster: true')) {
        await runInPod(sim, 'readme-sa-token', file);
      } else {
        const { stderr } = await run(process.execPath, [file], { env });
        expect(stderr, `snippet ${i + 1}`).toBe('');
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
  });
});
