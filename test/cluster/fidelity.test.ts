// The simulator held to the real server: the same calls through the library on the simulator
// alone and on `npm run cluster` (OTS_CLUSTER_KUBECONFIG), compared by what the library exposes.
// A difference fails the test unless fidelity-known.json lists it with why (docs/fidelity.md).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { compactTypes } from '../../src/schema/index.ts';
import { corpusParameters } from '../../scripts/test-values.ts';
import { startSimulator, type Simulator } from '../../simulator/index.ts';
import { currentContext, type KubeClient } from '../../scripts/cluster/kube.ts';
import { differences, type Json, normalise, outcomeOf, unexplained } from './fidelity.ts';
import { OPENSHIFT_OBJECTS } from './fidelity-openshift.ts';
import { DEFAULTED_OBJECTS, REFUSALS } from './scenarios.ts';

const clusterKubeconfig = process.env.OTS_CLUSTER_KUBECONFIG;
/** The published Templates (npm run test:cluster passes the corpus folder beside the clone). */
const corpus = process.env.OTS_CORPUS;

interface Side {
  name: 'simulator' | 'real';
  api: ocp.Connection;
  client: KubeClient;
  /** Warning texts the server sent since the last `takeWarnings()`, with what they were about. */
  warnings: string[];
}

/** What the server warned about, in the order it came: compared like everything else. */
function takeWarnings(side: Side): string[] {
  return side.warnings.splice(0);
}

describe.skipIf(!clusterKubeconfig)('the simulator against the real kube-apiserver', () => {
  let sim: Simulator;
  const simKubeconfig = join(tmpdir(), `fidelity-${process.pid}.json`);
  const sides: Side[] = [];
  const found: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.writeKubeconfig(simKubeconfig);
    for (const [name, kubeconfig] of [
      ['simulator', simKubeconfig],
      ['real', clusterKubeconfig ?? ''],
    ] as const) {
      const warnings: string[] = [];
      const onWarning = (warning: ocp.ServerWarning): void => {
        warnings.push(
          `${warning.operation} ${warning.target?.kind ?? ''}/${warning.target?.name ?? ''}: ${warning.text}`,
        );
      };
      const api = await ocp.connect({ kubeconfig, onWarning });
      sides.push({ name, api, client: currentContext(kubeconfig).client, warnings });
    }
  });

  afterAll(async () => {
    for (const side of sides) {
      side.client.close();
      await side.api.close();
    }
    await sim.close();
    rmSync(simKubeconfig, { force: true });
    // Every difference, explained ones included, for whoever updates fidelity-known.json; a name of
    // its own, as another user's or a parallel run's file may already be in the temporary folder.
    if (found.length > 0) {
      const file = join(tmpdir(), `fidelity-differences-${process.pid}.txt`);
      writeFileSync(file, `${found.join('\n')}\n`);
      console.log(`fidelity: ${found.length} differences, each explained, listed in ${file}`);
    }
  });

  const both = <T>(run: (side: Side) => Promise<T>): Promise<[T, T]> => {
    const [simulator, real] = sides;
    if (!simulator || !real) throw new Error('both servers must be connected first');
    return Promise.all([run(simulator), run(real)]);
  };
  const expectExplained = (diffs: string[]): void => {
    found.push(...diffs);
    expect(unexplained(diffs)).toEqual([]);
  };

  const rootPaths = async (side: Side): Promise<Record<string, string>> => {
    const answer = await side.client.send('GET', '/openapi/v3');
    const paths = (answer.body as { paths: Record<string, { serverRelativeURL: string }> }).paths;
    return Object.fromEntries(Object.entries(paths).map(([path, entry]) => [path, entry.serverRelativeURL]));
  };

  test('/openapi/v3: the root by its path list, each group-version as the compact type table typing uses', async () => {
    const [simulatorRoot, realRoot] = await both(rootPaths);
    const diffs = [
      ...Object.keys(simulatorRoot)
        .filter((path) => !(path in realRoot))
        .map((path) => `openapi root ${path}: simulator only`),
      ...Object.keys(realRoot)
        .filter((path) => !(path in simulatorRoot))
        .map((path) => `openapi root ${path}: real only`),
    ];
    for (const path of Object.keys(simulatorRoot).filter((p) => p in realRoot)) {
      const [a, b] = await both(async (side) => {
        const url = (side.name === 'simulator' ? simulatorRoot : realRoot)[path] ?? '';
        return compactTypes((await side.client.send('GET', url)).body);
      });
      for (const name of [...new Set([...Object.keys(a.types), ...Object.keys(b.types)])].sort())
        diffs.push(
          ...differences(`openapi ${path} type ${name}`, a.types[name] as Json, b.types[name] as Json),
        );
      diffs.push(...differences(`openapi ${path} kinds`, a.kinds, b.kinds));
    }
    expectExplained(diffs);
  });

  test('server defaults by field path, per kind: the stored object after a create', async () => {
    const diffs: string[] = [];
    for (const object of [...DEFAULTED_OBJECTS, ...OPENSHIFT_OBJECTS]) {
      const template: ocp.TemplateObject = {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        metadata: { name: `fidelity-${object.kind.toLowerCase()}` },
        objects: [object],
      };
      const [a, b] = await both(async (side) => {
        const options = { namespace: 'workers', api: side.api } as const;
        const created = await outcomeOf(() =>
          ocp.create(template, {}, { ...options, fieldManager: 'fidelity' }),
        );
        const live = await outcomeOf(() => ocp.get(template, {}, options));
        // Background: with the default policy a ReplicationController or Job gets the `orphan`
        // finalizer, which only the garbage collector (not running on the tier) removes.
        // By name: a delete by another field manager than the create's, or of an object applied
        // with no field of its own (a ServiceAccount), leaves it alone, and the next run on the
        // same tier would find it there.
        await ocp.delete(template, {}, { ...options, ownership: 'any', propagationPolicy: 'Background' });
        return { created, live, warnings: takeWarnings(side) };
      });
      // Both must have created it: equal failures would hide every default.
      expect(Object.keys(a.created as object)).toEqual(['ok']);
      diffs.push(...differences(`defaults ${object.kind}`, a, b));
    }
    expectExplained(diffs);
  });

  test('refusals: status code, reason, code, outcome and causes as the library reports them', async () => {
    const diffs: string[] = [];
    for (const scenario of REFUSALS) {
      const [a, b] = await both(async (side) => ({
        outcome: await outcomeOf(() => scenario.run(side.api)),
        warnings: takeWarnings(side),
      }));
      diffs.push(...differences(`refusal ${scenario.name}`, normalise(a), normalise(b)));
    }
    expectExplained(diffs);
  });

  test.skipIf(!corpus)(
    'the published Templates: each created under Warn on both, read back and compared',
    async () => {
      const diffs: string[] = [];
      for (const file of readdirSync(corpus ?? '').filter((f) => f.endsWith('.json'))) {
        const template = JSON.parse(readFileSync(join(corpus ?? '', file), 'utf8')) as ocp.TemplateObject;
        const parameters = corpusParameters(template);
        const [a, b] = await both(async (side) => {
          const options = { namespace: 'workers', api: side.api } as const;
          const created = await outcomeOf(() =>
            ocp.create(template, parameters, { ...options, fieldValidation: 'Warn' }),
          );
          const live = await outcomeOf(() => ocp.get(template, parameters, options));
          await ocp
            .delete(template, parameters, { ...options, propagationPolicy: 'Background' })
            .catch(() => undefined);
          return { created, live, warnings: takeWarnings(side) };
        });
        diffs.push(...differences(`corpus ${file}`, a, b));
      }
      expectExplained(diffs);
    },
  );
});
