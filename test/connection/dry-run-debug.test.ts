// NODE_DEBUG=openshift-templates says which request was a dry run: a create's pre-flight apply, a
// dry-run create's and a dry-run delete's (whose dryRun is in the body) each end in "(dry run)",
// and a real apply or delete never does. The simulator's request log is the referee.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { closedAfterAll, harness, WORKER } from '../helpers.ts';

const run = promisify(execFile);
const opened = closedAfterAll();

test('each dry run of create and delete is marked in its debug line, and no write is', async () => {
  const h = opened(await harness());
  h.sim.seedTemplate(
    'one-config',
    [],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'debug-marked' }, data: { a: 'b' } }],
  );
  h.sim.clearLog();
  const script = `
    const ocp = await import(${JSON.stringify(new URL('../../src/index.ts', import.meta.url).href)});
    const options = { ...${JSON.stringify(WORKER)}, api: await ocp.connect({ kubeconfig: process.env.KC }) };
    await ocp.create('one-config', {}, { ...options, dryRun: true });
    await ocp.create('one-config', {}, options);
    await ocp.delete('one-config', {}, { ...options, dryRun: true });
    await ocp.delete('one-config', {}, options);
    await options.api.close();
  `;
  const { stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_DEBUG: 'openshift-templates', KC: h.kubeconfig },
  });
  const said = stderr
    .split('\n')
    .map((line) => /^OPENSHIFT-TEMPLATES \d+: (PATCH|DELETE) .*?( \(dry run\))?$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => `${match[1] ?? ''}${match[2] ? ' dry run' : ''}`);
  const sent = h.sim.log
    .filter((e) => e.method === 'PATCH' || e.method === 'DELETE')
    .map((e) => {
      const dry = [e.query.dryRun].flat().includes('All') || e.body.includes('"dryRun":["All"]');
      return `${e.method}${dry ? ' dry run' : ''}`;
    });
  expect(sent).toEqual(['PATCH dry run', 'PATCH dry run', 'PATCH', 'DELETE dry run', 'DELETE']);
  expect(said).toEqual(sent);
});
