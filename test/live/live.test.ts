// The live suite: the contract's checks against whatever cluster the kubeconfig reaches. Run it
// with `npm run test:live -- --kubeconfig PATH --namespace NS ...` (see docs/live-testing.md).
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, test, type TestContext } from 'vitest';
import * as ocp from '../../src/index.ts';
import {
  connectOptions,
  escapingTemplate,
  kubeConfig,
  Ledger,
  liveConfig,
  liveTemplate,
  record,
  tierHasNoControllers,
} from './setup.ts';

const config = liveConfig();
const ledger = new Ledger();
const names = new Set<string>();
const TEMPLATE = `${config.prefix}-template`;
const ESCAPE = `${config.prefix}-escape`;
const templateUids = new Map<string, string>();
let api: ocp.Connection;
let servesKubeVirt = false;
let setupError: string | undefined;

const options = (): ocp.TemplateOptions & { api: ocp.Connection } => ({
  namespace: config.namespace,
  templateNamespace: config.templateNamespace,
  api,
});

/** Parameters for one check; every check uses its own NAME, so objects never overlap. */
function params(name: string, extra: Record<string, string> = {}): Record<string, string> {
  names.add(name);
  return { NAME: name, TOKEN: `${name}-token`, ...extra };
}

function refsFor(name: string): ocp.ResourceRef[] {
  const base = { namespace: config.namespace };
  const refs: ocp.ResourceRef[] = [
    { ...base, apiVersion: 'v1', kind: 'ConfigMap', name: `${config.prefix}-${name}-config` },
    { ...base, apiVersion: 'v1', kind: 'Secret', name: `${config.prefix}-${name}-secret` },
  ];
  if (servesKubeVirt)
    refs.push({
      ...base,
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      name: `${config.prefix}-${name}-vm`,
    });
  return refs;
}

async function exists(ref: ocp.ResourceRef): Promise<boolean> {
  try {
    await ocp.get({ namespace: config.namespace, resources: [ref], api });
    return true;
  } catch (error) {
    if (error instanceof ocp.RequestError && error.statusCode === 404) return false;
    throw error;
  }
}

/** A mid-suite failure on demand, to prove that cleanup still leaves nothing behind. */
function maybeFail(check: string): void {
  if (config.forceFailure === check) throw new Error(`forced failure in "${check}" (OTS_LIVE_FORCE_FAILURE)`);
}

function skip(ctx: TestContext, reason: string): void {
  record(config, { check: ctx.task.name, status: 'skipped', detail: reason });
  ctx.skip(reason);
}

beforeAll(async () => {
  api = await ocp.connect(connectOptions(config));
  const kc = kubeConfig(config);
  const groups = await kc.makeApiClient(k8s.ApisApi).getAPIVersions();
  servesKubeVirt = groups.groups.some(
    (g) => g.name === 'kubevirt.io' && g.versions.some((v) => v.version === 'v1'),
  );
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  process.stdout.write(
    `live suite: cluster ${api.server}, template namespace ${config.templateNamespace}, target namespace ${config.namespace}, prefix ${config.prefix}\n`,
  );
  for (const [name, body] of [
    [TEMPLATE, liveTemplate(TEMPLATE, config.prefix, config.templateNamespace, servesKubeVirt)],
    [ESCAPE, escapingTemplate(ESCAPE, config.prefix, config.templateNamespace)],
  ] as const) {
    try {
      const created = (await custom.createNamespacedCustomObject({
        group: 'template.openshift.io',
        version: 'v1',
        namespace: config.templateNamespace,
        plural: 'templates',
        body,
      })) as { metadata: { uid: string } };
      templateUids.set(name, created.metadata.uid);
    } catch (error) {
      const code = error instanceof k8s.ApiException ? error.code : undefined;
      setupError =
        code === 403
          ? `missing permission: create templates.template.openshift.io in namespace ${config.templateNamespace}`
          : `could not create the test Template ${name}: ${code ?? (error instanceof Error ? error.message : String(error))}`;
      record(config, { check: 'setup', status: 'failed', detail: setupError });
      throw new Error(setupError, { cause: error });
    }
  }
  record(config, {
    check: 'setup',
    status: 'passed',
    detail: `Templates ${TEMPLATE} and ${ESCAPE}; KubeVirt ${servesKubeVirt ? 'served' : 'not served'}`,
  });
}, 120_000);

afterEach((ctx) => {
  const state = ctx.task.result?.state;
  if (state === 'pass') record(config, { check: ctx.task.name, status: 'passed', detail: '' });
  if (state === 'fail') {
    const message = ctx.task.result?.errors?.[0]?.message ?? 'failed';
    record(config, { check: ctx.task.name, status: 'failed', detail: message.split('\n')[0] ?? message });
  }
});

afterAll(async () => {
  const leftovers: string[] = [];
  try {
    // First what the suite knows it created, each protected by its UID.
    const known = ledger.refs;
    if (known.length > 0) {
      try {
        await ocp.delete({ namespace: config.namespace, resources: known, api });
      } catch (error) {
        if (!(error instanceof ocp.OperationError)) throw error;
      }
    }
    // Then anything with this run's unique prefix whose create had an unknown outcome.
    for (const name of names) {
      for (const ref of refsFor(name)) {
        try {
          const [live] = await ocp.get({ namespace: config.namespace, resources: [ref], api });
          const uid = live?.metadata?.uid;
          if (uid && live.metadata?.name?.startsWith(`${config.prefix}-`))
            await ocp.delete({ namespace: config.namespace, resources: [{ ...ref, uid }], api });
        } catch (error) {
          if (!(error instanceof ocp.RequestError && error.statusCode === 404))
            leftovers.push(`${ref.kind}/${ref.name}: ${String(error)}`);
        }
      }
    }
    const custom = kubeConfig(config).makeApiClient(k8s.CustomObjectsApi);
    for (const [name, uid] of templateUids) {
      const body = new k8s.V1DeleteOptions();
      body.preconditions = new k8s.V1Preconditions();
      body.preconditions.uid = uid;
      await custom.deleteNamespacedCustomObject({
        group: 'template.openshift.io',
        version: 'v1',
        namespace: config.templateNamespace,
        plural: 'templates',
        name,
        body,
      });
    }
    for (const name of names)
      for (const ref of refsFor(name)) if (await exists(ref)) leftovers.push(`${ref.kind}/${ref.name}`);
  } finally {
    record(config, {
      check: 'cleanup',
      status: leftovers.length === 0 ? 'passed' : 'failed',
      detail: leftovers.length === 0 ? 'nothing left behind' : `left behind: ${leftovers.join(', ')}`,
    });
    await api.close();
  }
}, 180_000);

describe('live checks', () => {
  test('process with overrides', async () => {
    const objects = await ocp.process(TEMPLATE, params('proc', { MODE: 'slow' }), options());
    expect(objects.map((o) => o.metadata?.name)).toEqual(refsFor('proc').map((r) => r.name));
    expect(objects[0]?.data).toEqual({ mode: 'slow', token: 'proc-token' });
  });

  test('create', async () => {
    const refs = await ocp.create(TEMPLATE, params('main'), options());
    ledger.add(refs);
    expect(refs.map((r) => r.name)).toEqual(refsFor('main').map((r) => r.name));
    expect(refs.every((r) => typeof r.uid === 'string' && r.uid.length > 0)).toBe(true);
    maybeFail('create');
  });

  test('get returns live objects, status where the kind has one', async () => {
    let live = await ocp.get(TEMPLATE, params('main'), options());
    expect(live.map((o) => o.metadata?.uid)).toEqual(
      ledger.refs.filter((r) => r.name.includes('-main-')).map((r) => r.uid),
    );
    expect(live[0]?.status).toBeUndefined();
    // On a tier without controllers nobody writes a VM's status: its absence proves nothing there.
    if (servesKubeVirt && !tierHasNoControllers(config)) {
      // virt-controller fills the VM's status shortly after creation.
      for (let i = 0; i < 30 && live[2]?.status === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        live = await ocp.get(TEMPLATE, params('main'), options());
      }
      expect(live[2]?.status).toBeDefined();
    }
  });

  test('delete from a brand-new connection', async () => {
    await using fresh = await ocp.connect(connectOptions(config));
    const deleted = await ocp.delete(TEMPLATE, params('main'), { ...options(), api: fresh });
    expect(deleted.map((r) => r.name)).toEqual(
      refsFor('main')
        .map((r) => r.name)
        .reverse(),
    );
    ledger.forget(deleted);
    for (const ref of refsFor('main')) expect(await exists(ref)).toBe(false);
  });

  test('repeated delete', async () => {
    const again = await ocp.delete(TEMPLATE, params('main'), options());
    expect(again).toHaveLength(refsFor('main').length);
  });

  test('generator rejection', async () => {
    const { TOKEN: _token, ...withoutToken } = params('gen');
    const error = await ocp.create(TEMPLATE, withoutToken, options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.ValidationError);
    expect((error as ocp.ValidationError).issues.join('\n')).toContain('parameter TOKEN');
    for (const ref of refsFor('gen')) expect(await exists(ref)).toBe(false);
  });

  test('an object aimed at another namespace is refused with no mutation', async () => {
    names.add('inside');
    const error = await ocp.create(ESCAPE, { ELSEWHERE: 'default' }, options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.ValidationError);
    expect(
      await exists({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: config.namespace,
        name: `${config.prefix}-inside`,
      }),
    ).toBe(false);
  });

  test('a field conflict with a second field manager is surfaced and not forced', async () => {
    const refs = await ocp.create(TEMPLATE, params('conflict'), options());
    ledger.add(refs);
    const objects = kubeConfig(config).makeApiClient(k8s.KubernetesObjectApi);
    const intruder = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${config.prefix}-conflict-config`, namespace: config.namespace },
      data: { mode: 'intruder' },
    };
    await objects.patch(
      intruder,
      undefined,
      undefined,
      'ots-live-intruder',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    maybeFail('conflict');
    const error = await ocp.create(TEMPLATE, params('conflict'), options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    const cause = (error as ocp.OperationError).failures[0]?.error;
    if (!(cause instanceof ocp.RequestError)) throw new Error('expected a RequestError', { cause });
    expect(cause.statusCode).toBe(409);
    expect(cause.status?.details?.causes?.[0]).toMatchObject({
      reason: 'FieldManagerConflict',
      field: '.data.mode',
    });
    const [live] = await ocp.get({ namespace: config.namespace, resources: refs.slice(0, 1), api });
    expect(live?.data).toMatchObject({ mode: 'intruder' });
  });

  test('Secret stringData: a key no longer rendered is really removed', async () => {
    ledger.add(await ocp.create(TEMPLATE, params('sec', { KEY_B: 'b' }), options()));
    ledger.add(await ocp.create(TEMPLATE, params('sec', { KEY_B: 'c' }), options()));
    const [, secret] = await ocp.get(TEMPLATE, params('sec', { KEY_B: 'c' }), options());
    expect(Object.keys(secret?.data as object).sort()).toEqual(['a', 'c']);
  });

  test('a UID precondition refuses to delete a replacement', async () => {
    const original = await ocp.create(TEMPLATE, params('uid'), options());
    ledger.add(original);
    await ocp.delete({ namespace: config.namespace, resources: original.slice(0, 1), api });
    const replacement = await ocp.create(TEMPLATE, params('uid'), options());
    ledger.add(replacement);
    const error = await ocp
      .delete({ namespace: config.namespace, resources: original, api })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    const failure = error as ocp.OperationError;
    expect(failure.failures.map((f) => f.resource.name)).toEqual([`${config.prefix}-uid-config`]);
    expect(failure.failures[0]?.error).toMatchObject({ statusCode: 409 });
    ledger.forget(failure.resources);
    for (const ref of replacement.slice(0, 1)) expect(await exists(ref)).toBe(true);
  });

  /** An object made as `kubectl create` makes it: a POST with its manager named kubectl-create. */
  async function kubectlCreate(
    kind: 'ConfigMap' | 'Secret',
    name: string,
    data: Record<string, string>,
  ): Promise<ocp.ResourceRef> {
    const objects = kubeConfig(config).makeApiClient(k8s.KubernetesObjectApi);
    const body = { apiVersion: 'v1', kind, metadata: { name, namespace: config.namespace }, data };
    const made = (await objects.create(body, undefined, undefined, 'kubectl-create')) as unknown as {
      metadata: { uid: string };
    };
    const ref = { apiVersion: 'v1', kind, namespace: config.namespace, name, uid: made.metadata.uid };
    ledger.add([ref]);
    return ref;
  }

  test("a replay leaves alone a Secret another made, which the job's create conflicted with", async () => {
    const foreign = await kubectlCreate('Secret', `${config.prefix}-foreign-secret`, { a: 'dGhlaXJz' });
    const error = await ocp.create(TEMPLATE, params('foreign'), options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    // The pre-flight's dry run meets the conflict: nothing of the job was written.
    expect([(error as ocp.OperationError).operation, (error as ocp.OperationError).resources]).toEqual([
      'Preflight',
      [],
    ]);
    const results = await ocp.delete(TEMPLATE, params('foreign'), {
      ...options(),
      onWarning: () => undefined,
    });
    const secret = results.find((r) => r.kind === 'Secret');
    expect(secret).toMatchObject({ uid: foreign.uid, deletion: 'left-alone', reason: 'not-owned' });
    expect(secret?.managers).toEqual([{ manager: 'kubectl-create', operation: 'Update' }]);
    expect(results.find((r) => r.kind === 'ConfigMap')?.deletion).toBe('already-gone');
    expect(await exists(foreign)).toBe(true);
  });

  test("create() adopts another's object only when asked, and its replay relinquishes it, never deletes it", async () => {
    const theirs = await kubectlCreate('ConfigMap', `${config.prefix}-takeover-config`, { note: 'theirs' });
    const refused = await ocp.create(TEMPLATE, params('takeover'), options()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ocp.OperationError);
    const { operation, resources, failures } = refused as ocp.OperationError;
    expect([operation, resources, failures.map((f) => [f.resource.name, f.error.code])]).toEqual([
      'Preflight',
      [],
      [[theirs.name, 'OTC_NOT_ADOPTED']],
    ]);
    const refs = await ocp.create(TEMPLATE, params('takeover'), { ...options(), adopt: true });
    ledger.add(refs);
    expect(refs[0]?.created).toBe(false);
    await ocp.delete({ namespace: config.namespace, resources: refs.filter((r) => r.created), api });
    const replay = await ocp.delete(TEMPLATE, params('takeover'), options());
    const taken = replay.find((r) => r.kind === 'ConfigMap');
    expect([taken?.deletion, taken?.declarers]).toEqual(['relinquished', ['kubectl-create']]);
    expect(await exists(theirs)).toBe(true);
    ledger.forget(replay.filter((r) => r.kind !== 'ConfigMap'));
  });

  test('a KubeVirt VirtualMachine round trip', async (ctx) => {
    if (!servesKubeVirt) {
      skip(ctx, 'the cluster does not serve kubevirt.io/v1');
      return;
    }
    const refs = await ocp.create(TEMPLATE, params('vm'), options());
    ledger.add(refs);
    const vm = refs.find((r) => r.kind === 'VirtualMachine');
    expect(vm?.uid).toBeDefined();
    const [live] = await ocp.get({ namespace: config.namespace, resources: vm ? [vm] : [], api });
    expect(live?.spec).toMatchObject({ runStrategy: 'Halted' });
    ledger.forget(await ocp.delete({ namespace: config.namespace, resources: refs, api }));
    if (vm) expect(await exists(vm)).toBe(false);
  });

  test('a 403 from a Role that lacks delete', async (ctx) => {
    if (!config.limitedContext) {
      skip(ctx, 'no limited context given (--limited-context)');
      return;
    }
    const refs = await ocp.create(TEMPLATE, params('rbac'), options());
    ledger.add(refs);
    await using limited = await ocp.connect(connectOptions(config, config.limitedContext));
    const error = await ocp
      .delete(TEMPLATE, params('rbac'), { ...options(), api: limited })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ocp.OperationError);
    const codes = (error as ocp.OperationError).failures.map((f) =>
      f.error instanceof ocp.RequestError ? f.error.statusCode : undefined,
    );
    expect(codes).toEqual(refs.map(() => 403));
    for (const ref of refs) expect(await exists(ref)).toBe(true);
  });
});
