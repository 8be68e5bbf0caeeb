// The layout shows the architecture: src/ one folder per layer with imports running down, the
// simulator one folder per concern, no import circle anywhere (not even of types), every file small
// enough to read at once; and the checker itself on folders made for it.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkLayout } from './layout.ts';

const simulator = fileURLToPath(new URL('../simulator/', import.meta.url));
const src = fileURLToPath(new URL('../src/', import.meta.url));
const bench = fileURLToPath(new URL('../bench/', import.meta.url));

/** The error classes and public types: leaves every layer may import (AGENTS.md, Code). */
const LEAVES = new Set([
  'src/errors.ts',
  'src/types/index.ts',
  'src/types/problems.ts',
  'src/types/refs.ts',
  'src/types/warnings.ts',
]);
/**
 * src/'s layers, lowest first: a file imports from its own folder, a lower layer, or a leaf. The top
 * (the five functions, rendering, the checks before mutation) and operations/ (each verb's steps)
 * are one layer.
 */
const LAYERS = ['util', 'checks|schema', 'wire', 'connection', '|operations'];
const TOP = LAYERS.length - 1;

function layerOf(path: string): number {
  const folder = path.split('/').length > 2 ? (path.split('/')[1] ?? '') : '';
  // src/types/ holds the public types: leaves, named in LEAVES.
  return LAYERS.findIndex((layer) => layer.split('|').includes(folder));
}

describe('src/', () => {
  const report = checkLayout(src);

  test('no import circle, type-only imports included', () => {
    expect(report.cycles).toEqual([]);
  });

  test('no file over 400 lines', () => {
    expect(report.oversized).toEqual([]);
  });

  test('at most eight files on top: the functions, rendering, the checks before mutation, errors', () => {
    const top = readdirSync(src).filter((entry) => entry.endsWith('.ts'));
    expect(top.length).toBeLessThanOrEqual(8);
    expect(top).toEqual(expect.arrayContaining(['index.ts', 'render.ts', 'validate.ts', 'errors.ts']));
  });

  test('the operations by verb', () => {
    const verbs = readdirSync(join(src, 'operations')).filter((entry) => entry.endsWith('.ts'));
    expect(verbs).toEqual(expect.arrayContaining(['create.ts', 'delete.ts', 'read.ts']));
  });

  test('imports run down: the top, connection/, wire/, checks/ and schema/, util/; leaves from anywhere', () => {
    const upward = report.edges.filter(([from, to]) => {
      if (LEAVES.has(to)) return false;
      if (LEAVES.has(from)) return !to.startsWith('src/util/');
      const [a, b] = [layerOf(from), layerOf(to)];
      return a < 0 || b < 0 || b > a || (b === a && a !== TOP && dirname(from) !== dirname(to));
    });
    expect(upward).toEqual([]);
  });
});

describe('bench/', () => {
  test('no import circle', () => {
    expect(checkLayout(bench).cycles).toEqual([]);
  });
});

describe('simulator/', () => {
  test('no import circle, type-only imports included', () => {
    expect(checkLayout(simulator).cycles).toEqual([]);
  });

  test('no file over 400 lines outside generated data/', () => {
    expect(checkLayout(simulator).oversized).toEqual([]);
  });
});

describe('checkLayout', () => {
  let root: string;
  const write = async (path: string, text: string): Promise<void> => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };

  beforeAll(async () => {
    root = join(await mkdtemp(join(tmpdir(), 'ots-layout-')), 'pkg');
    await write('a.ts', "import type { B } from './inner/b.ts';\nexport type A = B;\n");
    await write('inner/b.ts', "import {\n  type C,\n} from '../c.ts';\nexport type B = C;\n");
    await write('c.ts', "export type { A as C } from './a.ts';\n");
    await write('d.ts', "import 'node:fs';\nimport { x } from 'vitest';\nimport './e.ts';\n");
    await write('e.ts', "// import from './d.ts' in a comment is no import\nexport const e = './d.ts';\n");
    await write('big.ts', 'export const n = 1;\n'.repeat(401));
    await write('data/generated.ts', 'export const n = 1;\n'.repeat(500));
  });
  afterAll(async () => {
    await rm(dirname(root), { recursive: true, force: true });
  });

  test('names each circle once, through type-only and multi-line imports and re-exports', () => {
    expect(checkLayout(root).cycles).toEqual(['pkg/a.ts -> pkg/inner/b.ts -> pkg/c.ts -> pkg/a.ts']);
  });

  test('names files over the limit, except under a data/ folder', () => {
    expect(checkLayout(root).oversized).toEqual(['pkg/big.ts (401 lines)']);
    expect(checkLayout(root, { maxLines: 500 }).oversized).toEqual([]);
  });
});
