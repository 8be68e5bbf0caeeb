// `npm run test:live -- --kubeconfig PATH [--context NAME] --namespace NS [--template-namespace NS2]
// [--limited-context NAME]`: the live suite against a real cluster (or the standalone simulator).
// Refuses to run without an explicit kubeconfig or context, prints where it runs, and ends with
// a results table to paste into an issue.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';

const env = process.env;
const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: env.OTS_LIVE_KUBECONFIG },
    context: { type: 'string', default: env.OTS_LIVE_CONTEXT },
    namespace: { type: 'string', default: env.OTS_LIVE_NAMESPACE },
    'template-namespace': { type: 'string', default: env.OTS_LIVE_TEMPLATE_NAMESPACE },
    'limited-context': { type: 'string', default: env.OTS_LIVE_LIMITED_CONTEXT },
    prefix: { type: 'string', default: env.OTS_LIVE_PREFIX },
  },
});

function refuse(message: string): never {
  process.stderr.write(`test:live: ${message}\n`);
  process.exit(2);
}

if (!values.kubeconfig && !values.context) {
  refuse(
    'refusing to run without an explicit --kubeconfig PATH or --context NAME (or OTS_LIVE_KUBECONFIG / OTS_LIVE_CONTEXT): ' +
      'the live suite creates and deletes objects and never picks up the current context by accident',
  );
}
if (!values.namespace) refuse('--namespace NS (or OTS_LIVE_NAMESPACE) is required');
if (values.kubeconfig && !existsSync(values.kubeconfig)) refuse(`no kubeconfig at ${values.kubeconfig}`);

const kc = new k8s.KubeConfig();
if (values.kubeconfig) kc.loadFromFile(values.kubeconfig);
else kc.loadFromDefault();
if (values.context) {
  if (!kc.getContextObject(values.context)) refuse(`context "${values.context}" is not in the kubeconfig`);
  kc.setCurrentContext(values.context);
}
const templateNamespace = values['template-namespace'] ?? values.namespace;
process.stdout.write(
  `live suite against ${kc.getCurrentCluster()?.server ?? '(no server)'} (context ${kc.getCurrentContext()})\n` +
    `  Template namespace: ${templateNamespace}\n  target namespace:   ${values.namespace}\n` +
    `  limited context:    ${values['limited-context'] ?? '(none: the 403 check is skipped)'}\n`,
);

const dir = mkdtempSync(join(tmpdir(), 'ots-live-'));
const results = join(dir, 'results.jsonl');
const childEnv: NodeJS.ProcessEnv = {
  ...env,
  OTS_LIVE_KUBECONFIG: values.kubeconfig ?? '',
  OTS_LIVE_CONTEXT: values.context ?? '',
  OTS_LIVE_NAMESPACE: values.namespace,
  OTS_LIVE_TEMPLATE_NAMESPACE: templateNamespace,
  OTS_LIVE_LIMITED_CONTEXT: values['limited-context'] ?? '',
  OTS_LIVE_RESULTS: results,
  ...(values.prefix ? { OTS_LIVE_PREFIX: values.prefix } : {}),
};
const run = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.live.config.ts'], {
  stdio: 'inherit',
  env: childEnv,
});

const outcomes = existsSync(results)
  ? readFileSync(results, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { check: string; status: string; detail: string })
  : [];
rmSync(dir, { recursive: true, force: true });

const count = (status: string): number => outcomes.filter((o) => o.status === status).length;
process.stdout.write('\n| check | result | detail |\n| --- | --- | --- |\n');
for (const o of outcomes)
  process.stdout.write(`| ${o.check} | ${o.status} | ${o.detail.replaceAll('|', '\\|')} |\n`);
process.stdout.write(
  `\nlive: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped\n`,
);
process.exit(run.status !== 0 || count('failed') > 0 || outcomes.length === 0 ? 1 : 0);
