// `npm run cluster -- --kubeconfig-out FILE [--openshift-apiserver-source PATH | --openshift=simulator] ...`:
// a real kube-apiserver and etcd on loopback with openshift-apiserver aggregated behind it, until
// interrupted (Ctrl-C stops them and removes their data). Built with Go on first use.
import { parseArgs } from 'node:util';
import { ClusterError } from './cluster/build.ts';
import { chooseBackend } from './cluster/openshift-build.ts';
import { startCluster } from './cluster/run.ts';

const USAGE = `Usage: npm run cluster -- --kubeconfig-out FILE [options]

Starts etcd and kube-apiserver (Kubernetes 1.34, built from test/cluster with Go on first use) on
127.0.0.1, with openshift-apiserver serving the OpenShift groups behind kube-apiserver's
aggregator: the real one, built from the source you supply on first use, or the simulator when
asked for by name. Runs until interrupted (Ctrl-C, SIGTERM), then stops them and removes their data.
docs/real-tier.md says where each server comes from and what it costs.

Options:
  --kubeconfig-out FILE    write a kubeconfig (contexts "cluster", "limited", "namespace-admin", "no-secret-create")
  --openshift-apiserver-source PATH
                           openshift-apiserver's source: a directory or the tarball of its pinned
                           commit (default: $OPENSHIFT_APISERVER_SOURCE); required unless --openshift=simulator
  --openshift KIND         openshift-apiserver (default) or simulator (the project's own, in its place)
  --port N                 kube-apiserver's port (default: any free port)
  --http2-max-streams N    kube-apiserver's HTTP/2 streams per connection (default 100; OpenShift 2000)
  --max-inflight N,M       kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight,
                           the seats API Priority and Fairness shares out (default 400,200; OpenShift 3000,1000)
  --start-timeout-ms N     one deadline for the whole start, build excluded (default 180000)
  -h, --help               show this text
`;

function fail(line: string, code = 1): never {
  process.stderr.write(`${line}\n`);
  process.exit(code);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      'kubeconfig-out': { type: 'string' },
      'openshift-apiserver-source': { type: 'string' },
      openshift: { type: 'string' },
      port: { type: 'string' },
      'http2-max-streams': { type: 'string' },
      'max-inflight': { type: 'string' },
      'start-timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail(`cluster: ${(error as Error).message.replace(/\. To specify .*$/s, '')}\n\n${USAGE}`, 2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const whole = (flag: string, text: string | undefined, max: number): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > max)
    fail(`cluster: ${flag} must be a whole number up to ${max}, not "${text}"`, 2);
  return Number(text);
};
const port = whole('--port', values.port, 65535);
const http2MaxStreams = whole('--http2-max-streams', values['http2-max-streams'], 1_000_000);
const inflight = values['max-inflight']?.split(',');
if (inflight && inflight.length !== 2)
  fail(`cluster: --max-inflight must be two whole numbers N,M, not "${values['max-inflight'] ?? ''}"`, 2);
const maxRequestsInflight = whole('--max-inflight', inflight?.[0], 1_000_000);
const maxMutatingRequestsInflight = whole('--max-inflight', inflight?.[1], 1_000_000);
const startTimeoutMs = whole('--start-timeout-ms', values['start-timeout-ms'], 3_600_000);
if (!values['kubeconfig-out']) fail(`cluster: --kubeconfig-out FILE is required\n\n${USAGE}`, 2);
let openshift;
try {
  openshift = chooseBackend(values.openshift, values['openshift-apiserver-source']);
} catch (error) {
  if (error instanceof ClusterError) fail(error.message, 2);
  throw error;
}

const interrupt = new AbortController();
let stopping: (() => Promise<void>) | undefined;
const onSignal = (): void => {
  if (stopping) {
    void stopping().then(() => process.exit(0));
    stopping = undefined;
    return;
  }
  interrupt.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const started = Date.now();
try {
  const cluster = await startCluster({
    openshift,
    ...(port === undefined ? {} : { port }),
    ...(http2MaxStreams === undefined ? {} : { http2MaxStreams }),
    ...(maxRequestsInflight === undefined ? {} : { maxRequestsInflight }),
    ...(maxMutatingRequestsInflight === undefined ? {} : { maxMutatingRequestsInflight }),
    ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }),
    signal: interrupt.signal,
  });
  await cluster.writeKubeconfig(values['kubeconfig-out']);
  stopping = () => cluster.stop();
  process.stdout.write(
    `kube-apiserver ${cluster.url} ready in ${((Date.now() - started) / 1000).toFixed(1)} s, ${cluster.backend === 'simulator' ? 'the simulator' : 'openshift-apiserver'} aggregated behind it\n` +
      `kubeconfig written to ${values['kubeconfig-out']}; audit log ${cluster.auditLogPath}\n` +
      'Ctrl-C stops them and removes their data\n',
  );
} catch (error) {
  if (error instanceof ClusterError) fail(error.message);
  throw error;
}
