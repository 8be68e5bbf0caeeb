// docs/real-tier.md's table of kube-apiserver flags must list every flag npm run cluster passes,
// with its value where the value is not a file of the run.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { apiserverFlags } from '../scripts/cluster/control-plane.ts';
import type { Material } from '../scripts/cluster/material.ts';

const PER_RUN_PORT = new Set(['--etcd-servers', '--secure-port']);
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('every kube-apiserver flag of npm run cluster is in docs/real-tier.md, with its value', () => {
  const readme = readFileSync(new URL('../docs/real-tier.md', import.meta.url), 'utf8');
  const files = new Proxy({}, { get: (_target, name) => `RUN/${String(name)}` }) as Material['files'];
  const flags = apiserverFlags('RUN', { files } as Material, {
    apiserver: 0,
    etcdClient: 0,
    etcdPeer: 0,
    etcdFault: 0,
    simulator: 0,
  });
  const missing = flags
    .map(([flag, value]) => {
      const shown = PER_RUN_PORT.has(flag)
        ? '(a free port)'
        : value.startsWith('RUN')
          ? '(a file of the run)'
          : `\`${value}\``;
      return [flag, shown] as const;
    })
    .filter(([flag, shown]) => !new RegExp(`\\| \`${flag}\` +\\| ${escape(shown)} +\\|`).test(readme))
    .map(([flag]) => flag);
  expect(missing).toEqual([]);
});
