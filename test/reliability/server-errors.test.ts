// What a 500 from kube-apiserver means for a mutation: it may come after the write was committed
// (an etcd timeout, a decode error after the transaction, storage/errors' InternalError), so it is
// `'unknown'`, except for the messages upstream produces before anything reaches storage.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import type { FaultAction } from '../../simulator/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

const PARAMS = { VM_NAME: 'se' };

/**
 * The second object's write (the Secret's second PATCH, after create()'s pre-flight dry-ran it)
 * answered with `action`: the first object stays, the error is the second's.
 */
async function applyFailure(action: FaultAction): Promise<ocp.RequestError> {
  await using api = await h.connect();
  await ocp.delete('worker-template', PARAMS, { ...WORKER, api });
  h.sim.clearLog();
  h.sim.addFault({ method: 'PATCH', path: /\/secrets\/se-credentials$/, nth: 2, action });
  try {
    const error = instance(
      await rejection(ocp.create('worker-template', PARAMS, { ...WORKER, api })),
      ocp.OperationError,
    );
    expect([error.operation, error.resources.length]).toEqual(['Apply', 1]);
    return instance(error.failures[0]?.error, ocp.RequestError);
  } finally {
    h.sim.clearFaults();
  }
}

const status = (reason: string, message: string, execute = false): FaultAction => ({
  type: 'status',
  code: 500,
  reason,
  message,
  execute,
});

test.each([
  // etcd3's store passes the client's error on as it is: a 500 with no reason, after a write that
  // may have been committed.
  ['no reason: etcd request timed out', status('', 'etcdserver: request timed out')],
  // k8s.io/apiserver pkg/storage/errors: internal and corrupt-object storage errors, also on the
  // way back from a committed write.
  [
    'InternalError from storage',
    status(
      'InternalError',
      'Internal error occurred: unable to transform key "/registry/secrets/workers/se"',
    ),
  ],
  [
    'InternalError: a decode error after the transaction',
    status('InternalError', 'Internal error occurred: illegal base64 data'),
  ],
])('a 500 (%s) may have been committed: unknown', async (_label, action) => {
  const failure = await applyFailure(action);
  expect(failure.statusCode).toBe(500);
  expect(failure.outcome).toBe('unknown');
  expect(failure.code).toBe('OTC_SERVER_ERROR');
});

test("etcd's timeout after the commit, as the real tier answers it: unknown, the object stored, a replay succeeds", async () => {
  // What kube-apiserver does when etcd commits the write and answers "request timed out"
  // (test/cluster/etcd-fault.test.ts produces it): the object is stored, the answer a 500 with no reason.
  const failure = await applyFailure(status('', 'etcdserver: request timed out', true));
  expect([failure.statusCode, failure.reason, failure.outcome]).toEqual([500, undefined, 'unknown']);
  await using api = await h.connect();
  const secret = { apiVersion: 'v1', kind: 'Secret', namespace: 'workers', name: 'se-credentials' };
  expect(failure.resource).toMatchObject({ kind: 'Secret', name: 'se-credentials' });
  const [stored] = await ocp.get({ namespace: 'workers', resources: [secret], api });
  expect(stored?.metadata?.name).toBe('se-credentials');
  const refs = await ocp.create('worker-template', PARAMS, { ...WORKER, api });
  expect(refs.find((r) => r.name === 'se-credentials')?.uid).toBe(stored?.metadata?.uid);
  await ocp.delete('worker-template', PARAMS, { ...WORKER, api });
});

test.each([
  // k8s.io/apimachinery pkg/util/managedfields/internal/structuredmerge.go: the apply patch does
  // not type; the field manager runs before the patched object goes to storage.
  [
    'failed to create typed patch object',
    status(
      '',
      'failed to create typed patch object (workers/se-credentials; /v1, Kind=Secret): .dta: field not declared in schema',
    ),
  ],
  [
    'failed to create typed live object',
    status(
      '',
      'failed to create typed live object (workers/se-credentials; /v1, Kind=Secret): .x: field not declared in schema',
    ),
  ],
  // The same file's conversion into the Go type (toVersioned), in the words the real tier gave.
  [
    'failed to convert new object',
    status(
      '',
      'failed to convert new object (/se-credentials; /v1, Kind=Secret) to proper version: unable to convert unstructured object to /v1, Kind=Secret: illegal base64 data at input byte 7',
    ),
  ],
  // k8s.io/apiserver pkg/util/webhook/error.go ErrCallingWebhook, made an InternalError by the
  // mutating and validating dispatchers when the webhook fails closed: admission runs before the write.
  [
    'failed calling webhook',
    status(
      'InternalError',
      'Internal error occurred: failed calling webhook "check.example.com": failed to call webhook: Post "https://check.example.svc:443/validate?timeout=10s": context deadline exceeded',
    ),
  ],
])('a 500 (%s) comes before anything is stored: refused', async (_label, action) => {
  const failure = await applyFailure(action);
  expect(failure.outcome).toBe('refused');
  expect(failure.code).toBe('OTC_SERVER_ERROR');
});
