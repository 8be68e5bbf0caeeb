// Checks of a source folder's layout: no import circle among its files (type-only imports count,
// since a circle of types is still a circle a reader must untangle) and no file over a size limit.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface LayoutOptions {
  /** Lines a file may have at most. Default 400. */
  maxLines?: number;
  /** Folder names whose files are exempt from the size limit (generated data). Default `data`. */
  exemptFolders?: readonly string[];
}

export interface LayoutReport {
  /** Each circle once, as `a.ts -> b.ts -> a.ts`, paths from the folder's parent. */
  cycles: string[];
  /** Files over the limit, as `path (N lines)`. */
  oversized: string[];
  /** Every relative import as `[importer, imported]`, paths from the folder's parent. */
  edges: [string, string][];
}

// Static imports and re-exports (`import type` and `export type` included) at the start of a line,
// up to their `from`; and bare `import '...'`. Dynamic `import()` is not part of the layout.
const FROM_IMPORT = /^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm;
const BARE_IMPORT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The files under the root that `file` imports by a relative path. */
export function relativeImports(file: string, source: string, files: ReadonlySet<string>): string[] {
  const targets = [...source.matchAll(FROM_IMPORT), ...source.matchAll(BARE_IMPORT)]
    .map((match) => match[1] ?? '')
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(dirname(file), specifier));
  return [...new Set(targets.filter((target) => files.has(target)))];
}

/** Every circle in the graph, each named once starting from its smallest path. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    const at = stack.indexOf(node);
    if (at >= 0) {
      const cycle = stack.slice(at);
      const start = cycle.indexOf([...cycle].sort()[0] ?? node);
      const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
      cycles.set(rotated.join('\n'), rotated);
      return;
    }
    if (done.has(node)) return;
    stack.push(node);
    for (const next of graph.get(node) ?? []) visit(next);
    stack.pop();
    done.add(node);
  };
  for (const node of [...graph.keys()].sort()) visit(node);
  return [...cycles.values()];
}

/**
 * The layout problems of the `.ts` files under `root`: import circles and files over the size limit.
 *
 * @example
 * const { cycles, oversized } = checkLayout(fileURLToPath(new URL('../src/', import.meta.url)));
 */
export function checkLayout(root: string, options: LayoutOptions = {}): LayoutReport {
  const maxLines = options.maxLines ?? 400;
  const exempt = options.exemptFolders ?? ['data'];
  const folder = resolve(root);
  const name = (path: string): string => relative(dirname(folder), path).split(sep).join('/');
  const files = typeScriptFiles(folder).sort();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const oversized: string[] = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    graph.set(file, relativeImports(file, source, known));
    const lines = source.split('\n').length - (source.endsWith('\n') ? 1 : 0);
    const isExempt = relative(folder, file)
      .split(sep)
      .slice(0, -1)
      .some((part) => exempt.includes(part));
    if (lines > maxLines && !isExempt) oversized.push(`${name(file)} (${lines} lines)`);
  }
  const cycles = findCycles(graph).map((cycle) => [...cycle, cycle[0] ?? ''].map(name).join(' -> '));
  const edges = [...graph].flatMap(([from, targets]) =>
    targets.map((to): [string, string] => [name(from), name(to)]),
  );
  return { cycles, oversized, edges };
}
