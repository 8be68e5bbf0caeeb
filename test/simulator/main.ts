// `npm run simulator -- --kubeconfig-out FILE [--port N] [--latency-ms N]`: the simulator as a
// standalone server, for kubectl, the live suite and manual exploration. Runs until interrupted.
import { parseArgs } from 'node:util';
import { startSimulator } from './index.ts';

const { values } = parseArgs({
  options: {
    'kubeconfig-out': { type: 'string' },
    port: { type: 'string', default: '0' },
    'latency-ms': { type: 'string', default: '0' },
  },
});

const simulator = await startSimulator({
  port: Number(values.port),
  latencyMs: Number(values['latency-ms']),
});
if (values['kubeconfig-out']) await simulator.writeKubeconfig(values['kubeconfig-out']);
process.stdout.write(
  `OpenShift API simulator listening on ${simulator.url}\n` +
    (values['kubeconfig-out']
      ? `kubeconfig written to ${values['kubeconfig-out']} (context "simulator")\n`
      : '') +
    'seeded: namespaces default, infra, workers, other; templates infra/worker-template, infra/generated-template\n',
);

const stop = (): void => {
  void simulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
