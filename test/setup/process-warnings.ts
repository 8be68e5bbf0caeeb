// Each test file's own process: a server warning that reaches no onWarning handler becomes a Node.js
// process warning of type ServerWarning, the library's documented fallback. Most tests do not look
// at warnings, so they meet that fallback all the time; printed by Node's own handler, each would be
// a `(node:PID) ... ServerWarning` line in a passing run, read as a failure. Node's printer is
// replaced here by one that lets those pass in silence (tests that check them listen themselves)
// and fails the test file on any other process warning, which no test expects.
import { afterAll, expect } from 'vitest';

const unexpected: string[] = [];

/** A warning the library emits: type ServerWarning, with one of its OTC_ codes. */
function fromTheLibrary(warning: Error & { code?: unknown }): boolean {
  return (
    warning.name === 'ServerWarning' && typeof warning.code === 'string' && warning.code.startsWith('OTC_')
  );
}

// Node's printer is the one listener Node itself adds; this file's own replaces it.
for (const listener of process.listeners('warning')) process.off('warning', listener);
process.on('warning', (warning: Error & { code?: unknown }) => {
  if (!fromTheLibrary(warning)) unexpected.push(`${warning.name}: ${warning.message}`);
});

afterAll(() => {
  expect(unexpected, 'process warnings no test expects').toEqual([]);
});
