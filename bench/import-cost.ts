// Import cost in fresh processes: this package (client-node deferred to the first connect()),
// client-node alone, and this package plus its first connect()'s load of client-node.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ImportCost {
  packageMs: number;
  clientNodeMs: number;
  samples: number;
}

async function timeImport(specifier: string, samples: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: resolve('.'),
    });
    times.push(Number(stdout.trim()));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

export async function importCost(samples = 7): Promise<ImportCost> {
  return {
    packageMs: await timeImport(pathToFileURL(resolve('dist/index.js')).href, samples),
    clientNodeMs: await timeImport('@kubernetes/client-node', samples),
    samples,
  };
}
