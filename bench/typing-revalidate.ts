// What reading the /openapi/v3 root again costs a long-lived Connection: when the server refuses
// an apply's dry run as untyped (a CRD got stricter), that create reads the root once more, and the
// refused group-version's document once by its path without a hash (the merged root may still list
// the old one), sends that dry run once more, and nothing else. kube-apiserver's merged root has no ETag, so that is a full GET:
// its bytes, the document's, and the simulator's time for the root are in the check's detail. The
// document read is conditional on the ETags of those the process holds: unchanged here (the
// refusal is a fault), it answers 304 with no body where it cost the whole document before
// (484,886 bytes for the simulator's api/v1, 1.45 MB on the real tier). The other trigger, the root's age bound (ROOT_MAX_AGE_MS, a minute), costs the root's GET alone and
// is not waited for here.
import { join } from 'node:path';
import type { Protocol } from '../simulator/index.ts';
import { countResponseBytes } from './response-bytes.ts';
import { minimumRequests } from './templates.ts';
import { benchSimulator, COUNTED, type CountCheck, isOpenApi, noErrors, totalCheck } from './typing.ts';
import { inFreshChild } from './typing-steps.ts';

const ROOT = '/openapi/v3';
const REFUSAL =
  'failed to create typed patch object (workers/cm-0; /v1, Kind=ConfigMap): .spec: field not declared in schema';

/** After the server's typing refusal: one GET of the root, one of the refused document, nothing else extra. */
export async function revalidationChecks(protocol: Protocol, dir: string): Promise<CountCheck[]> {
  const { n, d, template } = COUNTED;
  const checks: CountCheck[] = [];
  const sim = await benchSimulator(protocol);
  const counter = countResponseBytes(isOpenApi);
  const kubeconfig = join(dir, `revalidate-${protocol}.json`);
  const label = `${protocol} create after the server refused an apply as untyped`;
  try {
    await sim.writeKubeconfig(kubeconfig);
    await inFreshChild(async (child) => {
      await child.run({ step: 'connect', kubeconfig });
      checks.push(...noErrors(`${protocol} first create`, await child.run({ step: 'create', template })));
      sim.addFault({
        method: 'PATCH',
        nth: 1,
        action: { type: 'status', code: 500, reason: '', message: REFUSAL },
      });
      sim.clearLog();
      counter.clear();
      // The create the server refuses as untyped types that object again against the document read
      // anew and sends its dry run once more (never twice): it is written, with nothing else extra.
      checks.push(...noErrors(label, await child.run({ step: 'create', template })));
      sim.clearFaults();
      const check = totalCheck(`${label}: the root and the refused document read again`, [...sim.log], {
        root: 1,
        documents: 1,
        // The objects exist (each read to check it is the job's own), and one dry run is sent again.
        others: minimumRequests('setup-create', n, d) + n + 1,
      });
      const root = sim.log.find((e) => e.path === ROOT);
      const bytesOf = (wanted: (url: string) => boolean): number =>
        counter.bodies.filter((b) => wanted(b.url)).reduce((s, b) => s + b.bytes, 0);
      const ms = root === undefined ? 'n/a' : root.durationMs.toFixed(1);
      const byPath = (url: string): boolean => url !== ROOT && !url.includes('?');
      const direct = bytesOf(byPath);
      checks.push({
        ...check,
        detail: `${check.detail}; the root GET: ${bytesOf((url) => url === ROOT)} bytes, ${ms} ms at the simulator; the document by its path: ${direct} bytes`,
      });
      const answers = counter.bodies.filter((b) => byPath(b.url)).map((b) => b.status);
      checks.push({
        label: `${protocol} the refused document, unchanged, revalidated by its ETag: a 304 without a body`,
        ok: answers.length === 1 && answers[0] === 304 && direct === 0,
        detail: `answered ${answers.join(', ') || 'nothing'}, ${direct} bytes`,
      });
      await child.run({ step: 'delete', template });
    });
  } finally {
    counter.stop();
    await sim.close();
  }
  return checks;
}
