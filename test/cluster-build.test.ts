// The real tier's binary is cached by a hash of what its build reads, so a change to the Go code
// builds a new binary instead of silently reusing one built from the old code.
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { binaryPath, MODULE_DIR, moduleSources } from '../scripts/cluster/build.ts';

let copy: string;
const CACHE = '/cache';

beforeEach(() => {
  // A copy of the module's sources only: the real tree is never changed.
  copy = mkdtempSync(join(tmpdir(), 'otc-cluster-build-'));
  for (const path of moduleSources(MODULE_DIR)) {
    mkdirSync(join(copy, path, '..'), { recursive: true });
    copyFileSync(join(MODULE_DIR, path), join(copy, path));
  }
});
afterEach(() => {
  rmSync(copy, { recursive: true, force: true });
});

test('the sources are go.mod, go.sum and every .go file, sorted', () => {
  const sources = moduleSources(MODULE_DIR);
  expect(sources.slice(0, 2)).toEqual(['go.mod', 'go.sum']);
  expect(sources).toContain('main.go');
  expect(sources.slice(2)).toEqual(sources.slice(2).toSorted());
  expect(sources.slice(2).every((path) => path.endsWith('.go'))).toBe(true);
});

test('the same sources give the same path; the real tree and its copy agree', () => {
  expect(binaryPath(copy, CACHE)).toBe(binaryPath(MODULE_DIR, CACHE));
  expect(binaryPath(copy, CACHE)).toMatch(/^\/cache\/bin-[0-9a-f]{16}\/test-cluster$/);
});

test("a changed .go file's content changes the path", () => {
  const before = binaryPath(copy, CACHE);
  appendFileSync(join(copy, 'main.go'), '\n// changed\n');
  expect(binaryPath(copy, CACHE)).not.toBe(before);
});

test('a new .go file, also in a folder, and a changed go.mod change the path', () => {
  const paths = [binaryPath(copy, CACHE)];
  mkdirSync(join(copy, 'internal'));
  writeFileSync(join(copy, 'internal', 'extra.go'), 'package internal\n');
  paths.push(binaryPath(copy, CACHE));
  appendFileSync(join(copy, 'go.mod'), '\n');
  paths.push(binaryPath(copy, CACHE));
  expect(new Set(paths).size).toBe(3);
});

test('a file the build does not read leaves the path as it is', () => {
  const before = binaryPath(copy, CACHE);
  writeFileSync(join(copy, 'notes.md'), 'not Go\n');
  expect(binaryPath(copy, CACHE)).toBe(before);
});
