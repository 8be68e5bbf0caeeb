// Errors that say what to do: redaction hides secrets and nothing else, debug lines of failures
// name the step and the reason, and a replaced object is never passed off as the one referenced.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

const run = promisify(execFile);
const PASSWORD = 'hunter2-password';
const GENERATED = 'pinned-generated-value';

let h: Harness;
let api: ocp.Connection;
beforeAll(async () => {
  h = await harness();
  api = await h.connect();
  h.sim.seedTemplate(
    'readable',
    [
      { name: 'VM_NAME', required: true },
      { name: 'ENABLED', value: 'false' },
      { name: 'PASSWORD', required: true },
      { name: 'SALT', generate: 'expression', from: '[a-z]{8}' },
    ],
    [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '${VM_NAME}-settings' },
        data: { enabled: '${ENABLED}', salt: '${SALT}' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: '${VM_NAME}-login' },
        stringData: { password: '${PASSWORD}' },
      },
    ],
  );
});
beforeEach(() => {
  h.sim.clearFaults();
  h.sim.clearLog();
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const PARAMS = { VM_NAME: 'worker', ENABLED: true, PASSWORD, SALT: GENERATED };

describe('redaction hides what is secret and nothing else', () => {
  test('a missing Template keeps its name readable even when a parameter value is part of it', async () => {
    const error = await rejection(
      ocp.create('worker-template', PARAMS, { namespace: 'workers', templateNamespace: 'other', api }),
    );
    expect(error.message).toContain('templates.template.openshift.io "worker-template" not found');
    expect(error.message).not.toContain('[redacted]');
  });

  test('processing errors keep names and flags, and hide Secret-bound and generated values', async () => {
    h.sim.addFault({
      method: 'POST',
      path: /processedtemplates$/,
      action: {
        type: 'status',
        code: 500,
        reason: 'InternalError',
        message: `echo: worker true ${PASSWORD} ${GENERATED}`,
      },
    });
    const error = instance(
      await rejection(ocp.create('readable', PARAMS, { ...WORKER, api })),
      ocp.RequestError,
    );
    expect(error.message).toContain('echo: worker true [redacted] [redacted]');
    expect(JSON.stringify(error.status)).not.toContain(PASSWORD);
  });

  test('apply errors keep the object name and hide the Secret data', async () => {
    h.sim.addFault({
      method: 'PATCH',
      nth: 2,
      action: {
        type: 'status',
        code: 422,
        reason: 'Invalid',
        message: `Secret "worker-login" is invalid: data: ${PASSWORD} / ${Buffer.from(PASSWORD).toString('base64')}`,
      },
    });
    const error = instance(
      await rejection(ocp.create('readable', PARAMS, { ...WORKER, api })),
      ocp.OperationError,
    );
    const cause = error.failures[0]?.error.message ?? '';
    expect(cause).toContain(
      'Apply Secret "worker-login" in namespace "workers": 422 Invalid: Secret "worker-login" is invalid: data: [redacted] / [redacted]',
    );
    await ocp.delete('readable', PARAMS, { ...WORKER, api });
  });
});

describe('a gateway page that echoes the token is cut only after it is redacted', () => {
  // 50 characters; the page puts 45 of them before the 200-character cut.
  const TOKEN = 'gw-echo-token-7f3a9c1e5b2d8f4a6c0e9b7d5f3a1c8e6b4d';
  const page = (header: string): string =>
    `<html><body><h1>502 Bad Gateway</h1><pre>${'x'.repeat(155 - 41 - 22)}${header}</pre></body></html>`;

  test.each([
    ['the whole header across the cut', `Authorization: Bearer ${TOKEN}`],
    ['the header folded at the cut', `Authorization: Bearer ${TOKEN.slice(0, 45)}\n${TOKEN.slice(45)}`],
  ])('%s: neither the error nor the debug line keeps 8 of its characters', async (_name, header) => {
    h.sim.addToken(TOKEN, { user: 'admin' });
    const kubeconfig = await h.kubeconfigWith((config) => {
      for (const user of config.users) user.user.token = TOKEN;
    });
    const body = page(header);
    expect(body.indexOf(TOKEN.slice(0, 45)) + 45).toBe(200);
    h.sim.addFault({
      method: 'GET',
      path: /\/templates\/worker-template$/,
      action: { type: 'raw', code: 502, contentType: 'text/html', body },
    });
    const script = `
      const ocp = await import(${JSON.stringify(new URL('../../src/index.ts', import.meta.url).href)});
      const api = await ocp.connect({ kubeconfig: process.env.KC });
      const error = await ocp.get('worker-template', { VM_NAME: 'gw' }, { ...${JSON.stringify(WORKER)}, api }).catch((e) => e);
      console.log(error.message);
      await api.close();
    `;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_DEBUG: 'openshift-templates', KC: kubeconfig },
    });
    for (let start = 0; start + 8 <= TOKEN.length; start++) {
      expect(stdout).not.toContain(TOKEN.slice(start, start + 8));
      expect(stderr).not.toContain(TOKEN.slice(start, start + 8));
    }
    expect(stdout).toMatch(/^Get Template "worker-template" in namespace "infra": 502: <html>.*\[redacted\]/);
    expect(stderr).toMatch(/GET \S+worker-template 502 \d+ms Get .*\[redacted\]/);
  });
});

describe('reference-mode get checks the UID', () => {
  test('a replacement object of the same name is refused, naming both UIDs', async () => {
    const refs = await ocp.create('readable', PARAMS, { ...WORKER, api });
    const config = refs[0];
    if (!config?.uid) throw new Error('create returned no UID');
    await ocp.delete({ namespace: 'workers', resources: [config], api });
    const [replacement] = await ocp.create('readable', PARAMS, { ...WORKER, api });
    const error = instance(
      await rejection(ocp.get({ namespace: 'workers', resources: refs, api })),
      ocp.RequestError,
    );
    expect(error.step).toBe('Get');
    expect(error.message).toBe(
      `Get ConfigMap "worker-settings" in namespace "workers": the live object has UID "${replacement?.uid ?? ''}", not the UID "${config.uid}" of the reference: it was replaced`,
    );
    await ocp.delete('readable', PARAMS, { ...WORKER, api });
  });
});

describe('debug lines', () => {
  test('a failed request names the step, the target and the reason', async () => {
    const script = `
      const ocp = await import(${JSON.stringify(new URL('../../src/index.ts', import.meta.url).href)});
      const api = await ocp.connect({ kubeconfig: process.env.KC });
      await ocp.get('absent-template', {}, { namespace: 'workers', api }).catch(() => {});
      await ocp.get('worker-template', { VM_NAME: 'slow' }, { namespace: 'workers', templateNamespace: 'infra', api, requestTimeout: { connect: 10_000, read: 200 } }).catch(() => {});
      await api.close();
    `;
    h.sim.addFault({ method: 'POST', path: /processedtemplates$/, action: { type: 'hang' } });
    const { stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_DEBUG: 'openshift-templates', KC: h.kubeconfig },
    });
    const lines = stderr.split('\n').filter((l) => l.startsWith('OPENSHIFT-TEMPLATES'));
    expect(
      lines.some((l) =>
        /GET \/apis\/template\.openshift\.io\/v1\/namespaces\/workers\/templates\/absent-template 404 \d+ms Get Template "absent-template" in namespace "workers": 404 NotFound: templates\.template\.openshift\.io "absent-template" not found$/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(
      lines.some((l) =>
        /POST \/apis\/template\.openshift\.io\/v1\/namespaces\/workers\/processedtemplates failed \d+ms Process Template "worker-template" in namespace "workers": read timed out after 200 ms$/.test(
          l,
        ),
      ),
    ).toBe(true);
  });
});
