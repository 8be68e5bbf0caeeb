// Every decision a typed field (#35 items 4-6): which step failed, about which object, which thing
// a 404 says is missing, and whether anything may have been written, all read without a message.
// `npm run test:http1` runs this file over HTTP/1.1 as well.
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
  h.sim.clearFaults();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const PARAMS = { VM_NAME: 'ef-1' };
const CONFIG = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'workers', name: 'ef-1-config' };
const SECRET = { apiVersion: 'v1', kind: 'Secret', namespace: 'workers', name: 'ef-1-credentials' };

/** The RequestError a call rejects with, itself or as an OperationError's first failure. */
async function requestError(call: Promise<unknown>): Promise<ocp.RequestError> {
  const error = await rejection(call);
  const failure = error instanceof ocp.OperationError ? error.failures[0]?.error : error;
  return instance(failure, ocp.RequestError);
}

const fields = (e: ocp.RequestError): unknown[] => [e.step, e.code, e.notFound, e.outcome, e.resource];

describe('which thing was not found', () => {
  test('a stored Template that is not there: notFound "template", the Template as resource', async () => {
    const error = await requestError(ocp.process('ef-no-such-template', PARAMS, { ...WORKER, api }));
    expect(fields(error)).toEqual([
      'Get',
      'OTC_NOT_FOUND',
      'template',
      'refused',
      {
        apiVersion: 'template.openshift.io/v1',
        kind: 'Template',
        name: 'ef-no-such-template',
        namespace: 'infra',
      },
    ]);
  });

  test('a target namespace that does not exist: notFound "namespace", from the processing POST', async () => {
    const error = await requestError(
      ocp.create('worker-template', PARAMS, { namespace: 'ef-absent', templateNamespace: 'infra', api }),
    );
    expect(fields(error)).toEqual(['Process', 'OTC_NOT_FOUND', 'namespace', 'refused', undefined]);
  });

  test('a saved ref whose object is gone: notFound "object", the ref as resource', async () => {
    const error = await requestError(ocp.get({ namespace: 'workers', resources: [CONFIG], api }));
    expect(fields(error)).toEqual(['Get', 'OTC_NOT_FOUND', 'object', 'refused', CONFIG]);
  });

  test('an apply\'s 404 naming another object (a RoleBinding\'s Role): notFound "referenced"', async () => {
    h.sim.addFault({
      method: 'PATCH',
      path: /\/secrets\/ef-1-credentials$/,
      action: {
        type: 'status',
        code: 404,
        reason: 'NotFound',
        message: 'roles.rbac.authorization.k8s.io "ef-role" not found',
        details: { name: 'ef-role', group: 'rbac.authorization.k8s.io', kind: 'roles' },
      },
    });
    const error = await rejection(ocp.create('worker-template', PARAMS, { ...WORKER, api }));
    const failure = instance(error, ocp.OperationError).failures[0]?.error;
    expect(fields(instance(failure, ocp.RequestError))).toEqual([
      'Apply',
      'OTC_NOT_FOUND',
      'referenced',
      'refused',
      SECRET,
    ]);
    await ocp.delete('worker-template', PARAMS, { ...WORKER, api });
  });

  test('a 404 without a Status (a gateway, a path not served): notFound "other"', async () => {
    h.sim.addFault({
      method: 'GET',
      path: /\/templates\/worker-template$/,
      action: { type: 'raw', code: 404, contentType: 'text/plain', body: 'no route' },
    });
    const error = await requestError(ocp.process('worker-template', PARAMS, { ...WORKER, api }));
    expect([error.code, error.notFound, error.statusCode]).toEqual(['OTC_NOT_FOUND', 'other', 404]);
  });

  test('only OTC_NOT_FOUND has notFound', async () => {
    h.sim.addFault({
      method: 'GET',
      path: /\/configmaps\/ef-1-config$/,
      action: { type: 'status', code: 403, reason: 'Forbidden', message: 'no' },
    });
    const error = await requestError(ocp.get({ namespace: 'workers', resources: [CONFIG], api }));
    expect([error.code, error.notFound, error.resource]).toEqual(['OTC_FORBIDDEN', undefined, CONFIG]);
  });
});

describe('a step that cannot write never leaves an unknown outcome', () => {
  const etcdTimeout = { type: 'status', code: 500, message: 'etcdserver: request timed out' } as const;

  test('a 500 on the Template GET, the processing POST or a read is refused: nothing was written', async () => {
    const steps = [
      { method: 'GET', path: /\/templates\/worker-template$/, step: 'Get' },
      { method: 'POST', path: /processedtemplates$/, step: 'Process' },
    ] as const;
    for (const { method, path, step } of steps) {
      h.sim.clearFaults();
      h.sim.addFault({ method, path, action: etcdTimeout });
      const error = await requestError(ocp.process('worker-template', PARAMS, { ...WORKER, api }));
      expect([error.step, error.statusCode, error.code, error.outcome]).toEqual([
        step,
        500,
        'OTC_SERVER_ERROR',
        'refused',
      ]);
    }
    h.sim.clearFaults();
    h.sim.addFault({ method: 'GET', path: /\/configmaps\/ef-1-config$/, action: etcdTimeout });
    const read = await requestError(ocp.get({ namespace: 'workers', resources: [CONFIG], api }));
    expect([read.step, read.outcome, read.resource]).toEqual(['Get', 'refused', CONFIG]);
  });

  test('the same 500 on an apply stays unknown: it may follow a committed write', async () => {
    // The write's, not its dry run's: a dry run stores nothing, so its 500 is refused.
    h.sim.addFault({ method: 'PATCH', path: /\/configmaps\/ef-1-config$/, nth: 2, action: etcdTimeout });
    const error = await requestError(ocp.create('worker-template', PARAMS, { ...WORKER, api }));
    expect([error.step, error.code, error.outcome, error.resource]).toEqual([
      'Apply',
      'OTC_SERVER_ERROR',
      'unknown',
      CONFIG,
    ]);
  });

  test('a read whose connection is lost mid-request is refused too, with its resource', async () => {
    h.sim.addFault({ method: 'GET', path: /\/configmaps\/ef-1-config$/, action: { type: 'reset' } });
    const error = await requestError(ocp.get({ namespace: 'workers', resources: [CONFIG], api }));
    expect([error.step, error.code, error.outcome, error.resource]).toEqual([
      'Get',
      'OTC_CONNECTION_LOST',
      'refused',
      CONFIG,
    ]);
  });
});
