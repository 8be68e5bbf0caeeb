// `npm run simulator -- [--kubeconfig-out FILE] [--port N] [--latency-ms N] [--no-openapi-v3]`: the simulator as a
// standalone server, for kubectl, the live suite and manual exploration. Runs until interrupted.
import { randomBytes } from 'node:crypto';
import { parseCommand, USAGE } from './cli.ts';
import { startSimulator } from './index.ts';
import { fileIdentities } from './seed.ts';

const command = parseCommand(process.argv.slice(2));
if ('help' in command) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if ('error' in command) {
  process.stderr.write(`simulator: ${command.error}\n\n${USAGE}`);
  process.exit(2);
}
const flags = command.run;

const simulator = await startSimulator({
  port: flags.port,
  latencyMs: flags.latencyMs,
  openapiV3: flags.openapiV3,
  // A context per identity of simulator/identities.json ("limited" may not delete: the live
  // suite's 403 check uses it), as the real tier of npm run cluster has them.
  tokens: Object.fromEntries(
    fileIdentities().map(({ user, rules }) => [
      `${user}-${randomBytes(12).toString('hex')}`,
      { user, rules },
    ]),
  ),
});
if (flags.kubeconfigOut) await simulator.writeKubeconfig(flags.kubeconfigOut);
process.stdout.write(
  `OpenShift API simulator listening on ${simulator.url}\n` +
    (flags.kubeconfigOut
      ? `kubeconfig written to ${flags.kubeconfigOut} (contexts "simulator", ${fileIdentities()
          .map((i) => `"${i.context}"`)
          .join(', ')})\n`
      : '') +
    'seeded: namespaces default, infra, workers, other; templates infra/worker-template, infra/generated-template\n',
);

const stop = (): void => {
  void simulator.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
