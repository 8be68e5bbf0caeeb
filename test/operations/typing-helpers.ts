// What the create() typing tests (field-validation*.test.ts) share: the writes a server saw, the
// warnings an operation drew, and a wait past the bound on reading the schema root again.
import type * as ocp from '../../src/index.ts';
import type { LogEntry } from '../../simulator/index.ts';
import type { Harness } from '../helpers.ts';

/** Requests that change an object: every mutation except the processing POST. */
export const objectMutations = (h: Harness): LogEntry[] =>
  h.sim.mutations().filter((e) => !e.path.endsWith('/processedtemplates'));

/** A warning handler and what it received. */
export function collect(): { seen: ocp.ServerWarning[]; handler: ocp.WarningHandler } {
  const seen: ocp.ServerWarning[] = [];
  return { seen, handler: (warning) => seen.push(warning) };
}

export const sorted = (lines: readonly string[]): string[] => [...lines].sort();

/** Discovery and the schema root are read again only when their answer is at least 500 ms old. */
export const outlast = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 600));
