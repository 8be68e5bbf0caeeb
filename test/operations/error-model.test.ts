// One rule for the three error classes (#35 items 2, 4, 5): a ValidationError's problems as data,
// whether fieldValidation 'Warn' would resolve them, and an outcome on every class, all asserted
// by value, never by reading a message. `npm run test:http1` runs this file over HTTP/1.1 as well.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
let api: ocp.Connection;
const config = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: 'b' },
  ...more,
});
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
  h.sim.seedTemplate('em-undeclared', [], [config('em-plain'), config('em-extra', { bogus: 'x' })]);
  h.sim.seedTemplate('em-mistyped', [], [config('em-typed', { bogus: 'x', immutable: 'yes' })]);
  h.sim.seedTemplate(
    'em-unsafe',
    [],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'em-' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'em-ns' } },
      config('em-dup'),
      config('em-dup'),
    ],
  );
  h.sim.seedTemplate('em-two', [], [config('em-first'), config('em-second')]);
});
beforeEach(() => {
  h.sim.clearLog();
  h.sim.clearFaults();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

/** What reached the server that writes: everything but the processing POST. */
const writes = (): unknown[] => h.sim.mutations().filter((e) => e.method !== 'POST');
const validation = async (call: Promise<unknown>): Promise<ocp.ValidationError> =>
  instance(await rejection(call), ocp.ValidationError);
const at = (index: number, name?: string): ocp.ProblemObject => ({
  index,
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'workers',
  ...(name === undefined ? {} : { name }),
});

describe('ValidationError: every problem as data, outcome not-sent', () => {
  test('a bad argument and an undeclared parameter: kinds argument and parameter', async () => {
    const bad = await validation(ocp.process('worker-template', {}, { namespace: 'Not_A_Label', api }));
    expect([bad.code, bad.outcome, bad.fixableByWarn]).toEqual(['OTC_INVALID_ARGUMENT', 'not-sent', false]);
    expect(bad.problems.map((p) => p.kind)).toEqual(bad.issues.map(() => 'argument'));
    expect(bad.problems.map((p) => p.text)).toEqual(bad.issues);
    const undeclared = await validation(ocp.process('worker-template', { VM_NAM: 'x' }, { ...WORKER, api }));
    expect(undeclared.problems.map((p) => p.kind)).toEqual(['parameter', 'parameter']);
  });

  test('rendered objects that cannot be applied safely: kind and object of each problem', async () => {
    const error = await validation(ocp.create('em-unsafe', {}, { ...WORKER, api }));
    expect(error.code).toBe('OTC_UNSAFE_OBJECT');
    expect(error.problems.map(({ kind, object }) => ({ kind, object }))).toEqual([
      { kind: 'name', object: at(0) },
      { kind: 'generate-name', object: at(0) },
      { kind: 'cluster-scoped', object: { ...at(1, 'em-ns'), kind: 'Namespace' } },
      { kind: 'duplicate', object: at(3, 'em-dup') },
    ]);
    expect(writes()).toEqual([]);
  });

  test('a kind the cluster does not serve: not-served, with the ref it concerns', async () => {
    const ref = { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'workers', name: 'em-w' };
    const error = await validation(ocp.get({ namespace: 'workers', resources: [ref], api }));
    expect([error.code, error.problems]).toEqual([
      'OTC_KIND_NOT_SERVED',
      [{ kind: 'not-served', text: error.issues[0], object: { index: 0, ...ref } }],
    ]);
  });

  test('a closed Connection: connection-closed', async () => {
    const closed = await h.connect();
    await closed.close();
    const error = await validation(ocp.process('worker-template', {}, { ...WORKER, api: closed }));
    expect([error.code, error.outcome, error.problems.map((p) => p.kind)]).toEqual([
      'OTC_CONNECTION_CLOSED',
      'not-sent',
      ['connection-closed'],
    ]);
  });
});

describe("typing refusals say whether fieldValidation 'Warn' would resolve them", () => {
  test('only an undeclared field: fixableByWarn, its object and path; Warn then creates', async () => {
    const error = await validation(ocp.create('em-undeclared', {}, { ...WORKER, api }));
    expect([error.code, error.fixableByWarn, error.outcome]).toEqual(['OTC_UNSAFE_OBJECT', true, 'not-sent']);
    expect(error.problems).toEqual([
      { kind: 'undeclared', text: error.issues[0], object: at(1, 'em-extra'), path: '.bogus' },
    ]);
    const refs = await ocp.create('em-undeclared', {}, { ...WORKER, api, fieldValidation: 'Warn' });
    expect(refs.map((r) => r.name)).toEqual(['em-plain', 'em-extra']);
    await ocp.delete('em-undeclared', {}, { ...WORKER, api });
  });

  test('a wrong type beside it: not fixable by Warn, which refuses the same type', async () => {
    const error = await validation(ocp.create('em-mistyped', {}, { ...WORKER, api }));
    expect(error.fixableByWarn).toBe(false);
    expect(error.problems.map(({ kind, path }) => [kind, path])).toEqual([
      ['undeclared', '.bogus'],
      ['type', '.immutable'],
    ]);
    const warned = await validation(
      ocp.create('em-mistyped', {}, { ...WORKER, api, fieldValidation: 'Warn' }),
    );
    expect([warned.fixableByWarn, warned.problems.map((p) => p.kind)]).toEqual([false, ['type']]);
    expect(writes()).toEqual([]);
  });
});

describe('OperationError: outcome from its failures, resources typed by operation', () => {
  test('an apply refused part-way: outcome refused, the refs applied before it with created', async () => {
    h.sim.addFault({
      method: 'PATCH',
      path: /\/configmaps\/em-second$/,
      // Its write, past the pre-flight's dry run (the first PATCH): refused part-way.
      nth: 2,
      action: { type: 'status', code: 409, reason: 'Conflict', message: 'conflict' },
    });
    const error = instance(await rejection(ocp.create('em-two', {}, { ...WORKER, api })), ocp.OperationError);
    if (error.operation === 'Delete') throw new Error('expected an apply');
    const applied: ocp.CreatedRef[] = error.resources;
    expect([error.code, error.outcome]).toEqual(['OTC_APPLY_FAILED', 'refused']);
    expect(applied.map((r) => [r.name, r.created])).toEqual([['em-first', true]]);
    const [failure] = error.failures;
    expect([failure?.error.code, failure?.error.step, failure?.error.resource?.name]).toEqual([
      'OTC_CONFLICT',
      'Apply',
      'em-second',
    ]);
    await ocp.delete('em-two', {}, { ...WORKER, api, ownership: 'any' });
  });

  test('a delete whose DELETE got a 500: outcome unknown, the others as DeleteResults', async () => {
    await ocp.create('em-two', {}, { ...WORKER, api });
    h.sim.addFault({
      method: 'DELETE',
      path: /\/configmaps\/em-second$/,
      action: { type: 'status', code: 500, message: 'etcdserver: request timed out' },
    });
    const error = instance(await rejection(ocp.delete('em-two', {}, { ...WORKER, api })), ocp.OperationError);
    if (error.operation !== 'Delete') throw new Error('expected a delete');
    const done: ocp.DeleteResult[] = error.resources;
    expect([error.code, error.outcome]).toEqual(['OTC_DELETE_FAILED', 'unknown']);
    expect(done.map((r) => [r.name, r.deletion])).toEqual([['em-first', 'deleted']]);
    expect(error.failures.map((f) => [f.resource.name, f.error.outcome])).toEqual([['em-second', 'unknown']]);
    h.sim.clearFaults();
    await ocp.delete('em-two', {}, { ...WORKER, api });
  });

  test('a delete whose reads failed: outcome refused, nothing was deleted', async () => {
    await ocp.create('em-two', {}, { ...WORKER, api });
    h.sim.addFault({ method: 'GET', path: /\/configmaps\/em-(first|second)$/, action: { type: 'reset' } });
    const error = instance(await rejection(ocp.delete('em-two', {}, { ...WORKER, api })), ocp.OperationError);
    expect([error.outcome, error.resources, error.failures.map((f) => f.error.step)]).toEqual([
      'refused',
      [],
      ['Get', 'Get'],
    ]);
    h.sim.clearFaults();
    await ocp.delete('em-two', {}, { ...WORKER, api });
  });
});

describe('dry-run results are marked', () => {
  test('create() and delete() under dryRun mark every ref; real ones carry no mark', async () => {
    for (const preflight of ['schema', 'server'] as const) {
      const dry = await ocp.create('em-two', {}, { ...WORKER, api, dryRun: true, preflight });
      expect(dry.map((r) => [r.name, r.created, r.dryRun])).toEqual([
        ['em-first', true, true],
        ['em-second', true, true],
      ]);
    }
    const real = await ocp.create('em-two', {}, { ...WORKER, api });
    expect(real.map((r) => r.dryRun)).toEqual([undefined, undefined]);
    const dryDelete = await ocp.delete('em-two', {}, { ...WORKER, api, dryRun: true });
    expect(dryDelete.map((r) => [r.deletion, r.dryRun])).toEqual([
      ['deleted', true],
      ['deleted', true],
    ]);
    const deleted = await ocp.delete('em-two', {}, { ...WORKER, api });
    expect(deleted.map((r) => [r.deletion, r.dryRun])).toEqual([
      ['deleted', undefined],
      ['deleted', undefined],
    ]);
  });
});
