// Secret values in every form a server may quote them in (rule 10): a webhook that denies the
// job's Secret and warns about it, quoting the values raw, in base64, JSON-escaped and Go-quoted,
// reaches the caller with none of them, in the error, its Status, the warnings or the traces;
// a short value is hidden where it stands quoted, never inside an ordinary word.
import { tracingChannel } from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { closedAfterAll, type Harness, harness, instance, rejection, WORKER } from '../helpers.ts';

const PASSWORD = 'pä"ss/wörd~?>';
const PIN = '428';
const CODE = 'at';

// Each form spelled out by hand, as the server side would write it, not computed by the library.
const PASSWORD_FORMS = [
  'pä"ss/wörd~?>', // raw
  'cMOkInNzL3fDtnJkfj8+', // base64
  'cMOkInNzL3fDtnJkfj8-', // base64url
  'p\\u00e4\\"ss/w\\u00f6rd~?>', // Python json.dumps, and Go %+q
  'pä\\"ss/wörd~?\\u003e', // Go encoding/json
  'pä\\"ss/wörd~?>', // Go %q
];
// A short value as a whole quoted string or JSON string value: raw, base64, base64url, Go %q.
const PIN_QUOTED = ['"428"', "'428'", '{"pin":"428"}', '"NDI4"', '(`NDI4`)', '\\"428\\"'];
const PIN_FORMS = ['428', 'NDI4'];
// The short value inside ordinary words and standing bare: all of it stays as written.
const PROSE = 'the data rate at the gate: 4280 attempts';

let h: Harness;
const opened = closedAfterAll();
beforeAll(async () => {
  h = opened(await harness());
  h.sim.seedTemplate(
    'guarded',
    [
      { name: 'PASSWORD', required: true },
      { name: 'PIN', required: true },
      { name: 'NAME', value: 'guarded' },
    ],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${NAME}-settings' }, data: { mode: 'fast' } },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: '${NAME}-login' },
        stringData: { password: '${PASSWORD}', pin: '${PIN}', code: CODE },
      },
    ],
  );
});
afterAll(() => {
  h.sim.clearFaults();
});

/** Every context a TracingChannel publishes while `work` runs, printed in full (errors with causes). */
async function traced<T>(work: () => Promise<T>): Promise<{ result: T | Error; contexts: string }> {
  const printed: string[] = [];
  const channels = ['openshift-template-client:operation', 'openshift-template-client:request'].map((name) =>
    tracingChannel<unknown, object>(name),
  );
  const handler = (context: object): void => {
    printed.push(inspect(context, { depth: 12 }));
  };
  const handlers = { start: handler, end: handler, asyncStart: handler, asyncEnd: handler, error: handler };
  for (const channel of channels) channel.subscribe(handlers);
  try {
    return {
      result: await work().catch((error: unknown) => instance(error, Error)),
      contexts: printed.join('\n'),
    };
  } finally {
    for (const channel of channels) channel.unsubscribe(handlers);
  }
}

test('a webhook quoting the Secret values in every form: none of them reaches the caller', async () => {
  const quoted = [...PASSWORD_FORMS.map((form) => `"${form}"`), ...PIN_QUOTED].join(', ');
  h.sim.addFault({
    method: 'PATCH',
    path: /\/configmaps\//,
    times: 1,
    // Warning header values are ASCII: the escaped and base64 forms, and the PIN quoted.
    action: {
      type: 'warn',
      headers: [`299 - "webhook saw ${PASSWORD_FORMS.slice(1, 5).join(' ')} and pin \\"${PIN}\\""`],
    },
  });
  h.sim.addFault({
    method: 'PATCH',
    path: /\/secrets\//,
    action: {
      type: 'status',
      code: 400,
      reason: 'BadRequest',
      message: `admission webhook "policy.example.com" denied the request: values ${quoted}; ${PROSE}`,
      details: { causes: [{ field: 'stringData[pin]', message: `Invalid value: "${PIN}"` }] },
    },
  });
  const warnings: string[] = [];
  const api = opened(await h.connect());
  const { result, contexts } = await traced(() =>
    ocp.create('guarded', { PASSWORD, PIN }, { ...WORKER, api, onWarning: (w) => warnings.push(w.text) }),
  );
  const error = instance(result, ocp.OperationError);
  const failure = error.failures[0]?.error;
  const status = JSON.stringify(failure && 'status' in failure ? failure.status : undefined);
  // The denial and the warning really arrived, and said what they said around the values.
  expect(failure?.message).toContain(
    'admission webhook "policy.example.com" denied the request: values "[redacted]"',
  );
  expect(status).toContain('policy.example.com');
  expect(warnings.join('\n')).toContain('webhook saw [redacted]');
  expect(contexts).toContain('policy.example.com');
  const everything = {
    message: `${error.message}\n${failure?.message ?? ''}`,
    status,
    warnings: warnings.join('\n'),
    error: inspect(error, { depth: 12 }),
    traces: contexts,
  };
  for (const [where, text] of Object.entries(everything)) {
    for (const form of PASSWORD_FORMS) expect(text, `${where} holds ${form}`).not.toContain(form);
    for (const form of PIN_QUOTED) expect(text, `${where} holds ${form}`).not.toContain(form);
  }
  expect(failure?.message).toContain(PROSE);
  // Each quoted form of the PIN became a quoted [redacted]; none of its forms is left anywhere else.
  for (const form of PIN_FORMS)
    expect(everything.message.replaceAll(PROSE, ''), form).not.toMatch(new RegExp(`(?<![\\w-])${form}`));
  expect(everything.message).toContain(`{"pin":"[redacted]"}`);
});

test('a 2-character value stays in ordinary words and is hidden where it stands quoted', async () => {
  h.sim.clearFaults();
  h.sim.addFault({
    method: 'PATCH',
    path: /\/secrets\//,
    action: {
      type: 'status',
      code: 422,
      reason: 'Invalid',
      message: `code "${CODE}" refused: ${PROSE}; attach the data later`,
    },
  });
  const api = opened(await h.connect());
  const error = instance(
    await rejection(ocp.create('guarded', { PASSWORD, PIN }, { ...WORKER, api })),
    ocp.OperationError,
  );
  const message = error.failures[0]?.error.message ?? '';
  expect(message).toContain(`code "[redacted]" refused: ${PROSE}; attach the data later`);
});
