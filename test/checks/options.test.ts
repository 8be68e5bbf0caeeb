// Untyped callers (a transpile-only REPL, plain JavaScript): every misspelled or misplaced option is
// refused before any request, by name, with the option that was probably meant.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
});
beforeEach(() => {
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

/** Calls an operation the way JavaScript would: no compile-time check of the options. */
const untyped = ocp as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
const call = (name: string, ...args: unknown[]): Promise<unknown> => {
  const operation = untyped[name];
  if (!operation) throw new Error(`no operation ${name}`);
  return operation(...args);
};

async function refusal(promise: Promise<unknown>): Promise<readonly string[]> {
  const error = instance(await rejection(promise), ocp.ValidationError);
  return error.issues;
}

describe('unknown options are refused before any request', () => {
  test('the typo that would really create objects: dryrun', async () => {
    const issues = await refusal(
      call('create', 'worker-template', { VM_NAME: 'typo' }, { ...WORKER, api, dryrun: true }),
    );
    expect(issues).toEqual(['dryrun: unknown option; did you mean dryRun?']);
    expect(h.sim.log).toEqual([]);
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'typo-config')).toBeUndefined();
  });

  test('connect() options given to an operation name the function they belong to', async () => {
    const issues = await refusal(
      call(
        'create',
        'worker-template',
        { VM_NAME: 'x' },
        { ...WORKER, kubeconfig: './kc.json', context: 'dev', dryrun: true },
      ),
    );
    expect(issues).toEqual([
      'kubeconfig is an option of connect(), not of create()',
      'context is an option of connect(), not of create()',
      'dryrun: unknown option; did you mean dryRun?',
    ]);
    expect(h.sim.log).toEqual([]);
  });

  test.each([
    [
      'process',
      ['worker-template', {}, { ...WORKER, fieldManager: 'me' }],
      'fieldManager is an option of create() or delete(), not of process()',
    ],
    [
      'get',
      ['worker-template', {}, { ...WORKER, propagationPolicy: 'Orphan' }],
      'propagationPolicy is an option of delete(), not of get()',
    ],
    [
      'delete',
      ['worker-template', {}, { ...WORKER, namespce: 'x' }],
      'namespce: unknown option; did you mean namespace?',
    ],
    [
      'delete',
      [{ namespace: 'workers', resources: [], fieldmanager: 'x' }],
      'fieldmanager: unknown option; fieldManager is an option of create() or template-mode delete(), not of delete()',
    ],
    [
      'get',
      [{ namespace: 'workers', resources: [], timeout: 5 }],
      'timeout: unknown option of get(); it takes namespace, api, requestTimeout, signal, onWarning, resources, missing',
    ],
    ['connect', [{ kubeConfig: '/x' }], 'kubeConfig: unknown option; did you mean kubeconfig?'],
    [
      'connect',
      [{ namespace: 'workers' }],
      'namespace is an option of process(), create(), get() or delete(), not of connect()',
    ],
  ])('%s: %j', async (name, args, expected) => {
    expect(await refusal(call(name, ...args))).toEqual([expected]);
    expect(h.sim.log).toEqual([]);
  });

  test.each(['one line', 'several lines'])(
    'kubeconfig content (%s) where a path belongs is refused without repeating it',
    async (form) => {
      const text = form === 'one line' ? JSON.stringify(h.sim.kubeconfig) : h.sim.kubeconfigText;
      const token = h.sim.kubeconfig.users[0]?.user.token ?? '';
      expect(token.length).toBeGreaterThan(8);
      const error = instance(await rejection(ocp.connect({ kubeconfig: text })), ocp.ValidationError);
      expect(error.issues).toEqual([
        'kubeconfig must be the path of a kubeconfig file, not its content (not repeated here)',
      ]);
      expect(`${error.message} ${String(error.stack)}`).not.toContain(token);
      expect(h.sim.log).toEqual([]);
    },
  );

  test('mixing the modes names the exclusive pair', async () => {
    expect(
      await refusal(call('get', { namespace: 'workers', resources: [], templateNamespace: 'infra' })),
    ).toEqual([
      'templateNamespace cannot be combined with resources (reference mode and template mode are exclusive)',
    ]);
    expect(await refusal(call('delete', 'worker-template', {}, { ...WORKER, resources: [] }))).toEqual([
      'resources cannot be combined with a template name (reference mode and template mode are exclusive)',
    ]);
  });

  test('a key whose value is undefined counts as absent, so template options spread into reference mode', async () => {
    const templateOptions = { namespace: 'workers', templateNamespace: undefined, api };
    const refs = await ocp.create(
      'worker-template',
      { VM_NAME: 'spread' },
      { ...templateOptions, templateNamespace: 'infra' },
    );
    const live = await ocp.get({ ...templateOptions, resources: refs });
    expect(live).toHaveLength(3);
    await ocp.delete({ ...templateOptions, resources: refs, dryRun: undefined });
    expect(h.sim.getObject('v1', 'ConfigMap', 'workers', 'spread-config')).toBeUndefined();
  });

  test('the types reject mixing the modes at compile time', () => {
    // @ts-expect-error resources is not a template-mode option
    const template: ocp.TemplateOptions = { namespace: 'w', resources: [] };
    // @ts-expect-error templateNamespace is not a reference-mode option
    const reference: ocp.ReferenceOptions = { namespace: 'w', resources: [], templateNamespace: 'infra' };
    expect([template, reference]).toHaveLength(2);
  });
});
