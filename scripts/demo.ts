// `npm run demo`: the whole workflow through the public API. With no arguments it starts the
// embedded OpenShift API simulator in-process; with --kubeconfig it runs against that cluster.
import { parseArgs } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ocp from '../src/index.ts';
import { startSimulator } from '../simulator/index.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'current-kubeconfig': { type: 'boolean', default: false },
    namespace: { type: 'string', default: 'workers' },
    'template-namespace': { type: 'string', default: 'infra' },
    template: { type: 'string', default: 'worker-template' },
    param: { type: 'string', multiple: true, default: ['VM_NAME=worker-001', 'IMAGE_TAG=1.2.3'] },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`usage: npm run demo [-- --kubeconfig PATH [--context NAME] | --current-kubeconfig]
                     [--namespace NS] [--template-namespace NS] [--template NAME] [--param K=V ...]
Without --kubeconfig or --current-kubeconfig the embedded simulator is used; a real cluster is
only touched when you name it.`);
  process.exit(0);
}

const say = (text: string): void => {
  console.log(text);
};
const line = (ref: ocp.ResourceRef): string =>
  `  ${ref.kind}/${ref.name}${ref.uid ? `  uid ${ref.uid}` : ''}`;

const parameters = Object.fromEntries(
  values.param.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--param expects NAME=VALUE, got ${JSON.stringify(pair)}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
const options = { namespace: values.namespace, templateNamespace: values['template-namespace'] };

let cleanup = (): Promise<void> => Promise.resolve();
let connectOptions: ocp.ConnectOptions;
if (values.kubeconfig !== undefined || values['current-kubeconfig']) {
  connectOptions = {
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
  };
  say(
    'Using the cluster from ' +
      (values.kubeconfig ?? 'the current kubeconfig') +
      (values.context ? `, context ${values.context}` : ''),
  );
} else {
  const sim = await startSimulator();
  const dir = await mkdtemp(join(tmpdir(), 'ots-demo-'));
  const kubeconfig = join(dir, 'kubeconfig.json');
  await sim.writeKubeconfig(kubeconfig);
  connectOptions = { kubeconfig };
  cleanup = async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  };
  say(`Using the embedded OpenShift API simulator at ${sim.url} (no cluster is touched)`);
}

try {
  say(
    `Template ${values['template-namespace']}/${values.template} → namespace ${values.namespace}, parameters: ${Object.keys(parameters).join(', ')}`,
  );
  {
    await using api = await ocp.connect(connectOptions);
    say(`\n1. connect: ${api.server}`);

    const objects = await ocp.process(values.template, parameters, { ...options, api });
    say(`\n2. process: the server rendered ${objects.length} objects`);
    for (const o of objects) say(`  ${o.kind ?? '?'}/${o.metadata?.name ?? '?'}`);

    const refs = await ocp.create(values.template, parameters, { ...options, api });
    say(`\n3. create: server-side applied ${refs.length} objects`);
    for (const ref of refs) say(line(ref));

    const live = await ocp.get(values.template, parameters, { ...options, api });
    say(`\n4. get: read ${live.length} live objects`);
    for (const o of live) {
      const status = o.status === undefined ? 'no status' : `status ${JSON.stringify(o.status)}`;
      say(
        `  ${o.kind ?? '?'}/${o.metadata?.name ?? '?'}  resourceVersion ${String(o.metadata?.resourceVersion)}  ${status}`,
      );
    }
  }
  say('\n   (connection closed: as after a restart, nothing from create is kept)');

  {
    await using api = await ocp.connect(connectOptions);
    const deleted = await ocp.delete(values.template, parameters, { ...options, api });
    say(
      `\n5. delete with a brand-new connection, from the same inputs: ${deleted.length} objects, in reverse order`,
    );
    for (const ref of deleted) say(line(ref));
  }
  {
    await using api = await ocp.connect(connectOptions);
    const again = await ocp.delete(values.template, parameters, { ...options, api });
    say(`\n6. delete again: ${again.length} objects already absent (404 counts as deleted)`);
  }
  say('\nDone.');
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
