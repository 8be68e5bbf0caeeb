// The simulator's layout: one folder per concern, no import circle (not even of types), and every
// file small enough to read at once; and the checker itself on folders made for it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkLayout } from './layout.ts';

const simulator = fileURLToPath(new URL('../simulator/', import.meta.url));

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
