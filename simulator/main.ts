// `npm run simulator -- --kubeconfig-out FILE [--port N] [--latency-ms N] [--no-openapi-v3]`: the simulator as a
// standalone server, for kubectl, the live suite and manual exploration. Runs until interrupted.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { startSimulator } from './index.ts';
import { limitedRules } from './seed.ts';

const { values } = parseArgs({
  options: {
    'kubeconfig-out': { type: 'string' },
    port: { type: 'string', default: '0' },
    'latency-ms': { type: 'string', default: '0' },
    // A server without /openapi/v3 (it answers 404): before Kubernetes 1.24 it was off by default.
    'no-openapi-v3': { type: 'boolean', default: false },
  },
});

const simulator = await startSimulator({
  port: Number(values.port),
  latencyMs: Number(values['latency-ms']),
  openapiV3: !values['no-openapi-v3'],
  // A second context, "limited", that may not delete: the live suite's 403 check uses it.
  tokens: { [`limited-${randomBytes(12).toString('hex')}`]: { user: 'limited', rules: limitedRules() } },
});
if (values['kubeconfig-out']) await simulator.writeKubeconfig(values['kubeconfig-out']);
process.stdout.write(
  `OpenShift API simulator listening on ${simulator.url}\n` +
    (values['kubeconfig-out']
      ? `kubeconfig written to ${values['kubeconfig-out']} (contexts "simulator" and "limited")\n`
      : '') +
    'seeded: namespaces default, infra, workers, other; templates infra/worker-template, infra/generated-template\n',
);

const stop = (): void => {
  void simulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
