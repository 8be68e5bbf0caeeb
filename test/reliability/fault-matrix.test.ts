// Every step × every fault: the documented error, a message naming step, identity, status and
// reason, one attempt per mutation, exact success lists, a usable connection, no socket left.
// create() dry-runs every object before it writes any (the pre-flight, on by default), so its two
// mutating steps are the Secret's dry run in that wave and the Secret's own write after it.
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import * as ocp from '../../src/index.ts';
import { harness, type Harness, settles, WORKER } from '../helpers.ts';
import { startProxy, type TestProxy } from '../proxies.ts';
import type { FaultAction, FaultRule } from '../../simulator/index.ts';
import { type MatrixRow, report } from './report.ts';

let h: Harness;
let otherCa: string;
/** The proxy of the proxy faults: an HTTP CONNECT proxy that wants credentials. */
let proxy: TestProxy;
const PROXY_CREDENTIALS = { username: 'matrix', password: 'matrix-proxy-password' };
beforeAll(async () => {
  h = await harness();
  proxy = await startProxy('http', { credentials: PROXY_CREDENTIALS });
  const { startSimulator } = await import('../../simulator/index.ts');
  const stranger = await startSimulator({ seedExamples: false });
  otherCa = stranger.caCert;
  await stranger.close();
});
afterAll(async () => {
  await proxy.close();
  await h.close();
});

// Short only where the read timeout is the fault under test; elsewhere an answer may take its time
// on a loaded machine without the case turning into a timeout.
const READ_TIMEOUT = 300;
const SETTLED_READ = 20_000;
const readFor = (fault: Fault): number =>
  fault.name === 'no response (read timeout)' ? READ_TIMEOUT : SETTLED_READ;
// Under the sentinel run, the API key (a parameter value that becomes Secret data) is a sentinel.
const PARAMS = { VM_NAME: 'fm', API_KEY: process.env.OTS_SENTINEL_PARAM ?? 'matrix-api-key' };
const NAMES = ['fm-config', 'fm-credentials', 'fm'];
const KINDS: [string, string][] = [
  ['v1', 'ConfigMap'],
  ['v1', 'Secret'],
  ['kubevirt.io/v1', 'VirtualMachine'],
];

const SECRET_PATH = /\/namespaces\/workers\/secrets\/fm-credentials$/;
/** The first object's write (its second PATCH): after it the server goes down for 'connection refused'. */
const FIRST_WRITE = { method: 'PATCH', path: /\/namespaces\/workers\/configmaps\/fm-config$/, nth: 2 };

type StepName =
  | 'connect'
  | 'discovery'
  | 'template GET'
  | 'processing POST'
  | 'dry run #2'
  | 'apply #2'
  | 'delete #2'
  | 'read #2';
interface Step {
  name: StepName;
  match: Omit<FaultRule, 'action'>;
  mutation: boolean;
}
const STEPS: Step[] = [
  { name: 'connect', match: { method: 'GET', path: '/api/v1', nth: 1 }, mutation: false },
  { name: 'discovery', match: { method: 'GET', path: '/apis/kubevirt.io/v1', nth: 1 }, mutation: false },
  {
    name: 'template GET',
    match: { method: 'GET', path: /\/templates\/worker-template$/, nth: 1 },
    mutation: false,
  },
  {
    name: 'processing POST',
    match: { method: 'POST', path: /processedtemplates$/, nth: 1 },
    mutation: false,
  },
  // The Secret, 2nd in rendered order: its dry run is its first PATCH, its write the second.
  { name: 'dry run #2', match: { method: 'PATCH', path: SECRET_PATH, nth: 1 }, mutation: true },
  { name: 'apply #2', match: { method: 'PATCH', path: SECRET_PATH, nth: 2 }, mutation: true },
  { name: 'delete #2', match: { method: 'DELETE', nth: 2 }, mutation: true },
  {
    name: 'read #2',
    match: { method: 'GET', path: /\/namespaces\/workers\/(configmaps|secrets|virtualmachines)\//, nth: 2 },
    mutation: false,
  },
];

const status = (
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): FaultAction => ({
  type: 'status',
  code,
  reason,
  message,
  ...(details ? { details } : {}),
});

interface Fault {
  name: string;
  /** Only meaningful at connect (TLS) or built differently (refused). */
  only?: StepName[];
  action?: (step: Step) => FaultAction;
}
const FAULTS: Fault[] = [
  { name: 'connection refused', only: ['connect', 'apply #2'] },
  { name: 'TLS: unknown CA', only: ['connect'] },
  { name: 'TLS: wrong host name', only: ['connect'] },
  { name: 'proxy: 407 (no credentials)', only: ['connect'] },
  { name: 'proxy: 403', only: ['connect'] },
  { name: 'proxy: 502', only: ['connect'] },
  { name: 'proxy: unreachable', only: ['connect'] },
  { name: 'proxy: stalls', only: ['connect'] },
  { name: 'proxy: hangs up', only: ['connect'] },
  {
    name: 'proxy: tunnel cut mid-request',
    only: ['template GET', 'dry run #2', 'apply #2', 'delete #2'],
  },
  { name: 'reset before headers', action: () => ({ type: 'reset' }) },
  { name: 'reset mid-body', action: () => ({ type: 'reset-mid-body' }) },
  { name: 'no response (read timeout)', action: (s) => ({ type: 'hang', execute: s.mutation }) },
  { name: 'slow trickling body', action: () => ({ type: 'trickle', bytes: 256, intervalMs: 20 }) },
  { name: '401', action: () => status(401, 'Unauthorized', 'Unauthorized') },
  { name: '403', action: () => status(403, 'Forbidden', 'forbidden: User "dev" cannot do this') },
  { name: '404', action: () => status(404, 'NotFound', 'not found') },
  {
    name: '409 (apply conflict / UID precondition)',
    action: (s) =>
      s.name.startsWith('delete')
        ? status(
            409,
            'Conflict',
            'Operation cannot be fulfilled on Secret "fm-credentials": the UID in the precondition (a) does not match the UID in record (b). The object might have been deleted and then recreated',
          )
        : status(409, 'Conflict', 'Apply failed with 1 conflict: conflict with "other": .data.key', {
            causes: [
              { reason: 'FieldManagerConflict', message: 'conflict with "other"', field: '.data.key' },
            ],
          }),
  },
  {
    name: '422',
    action: () => status(422, 'Invalid', 'Secret "fm-credentials" is invalid: data: Invalid value'),
  },
  {
    name: '429',
    action: () =>
      status(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }),
  },
  {
    name: '500',
    action: () => status(500, 'InternalError', 'Internal error occurred: etcdserver: leader changed'),
  },
  {
    name: '503',
    action: () => status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'),
  },
  {
    name: '504 Timeout Status',
    action: () =>
      status(
        504,
        'Timeout',
        'Timeout: request did not complete within requested timeout - context deadline exceeded',
      ),
  },
  {
    name: 'malformed JSON body',
    action: (s) => ({ type: 'raw', code: 200, body: '{"kind": "Status", "apiVers', execute: s.mutation }),
  },
  {
    name: 'non-JSON 200',
    action: (s) => ({
      type: 'raw',
      code: 200,
      contentType: 'text/html',
      body: '<html>proxy login</html>',
      execute: s.mutation,
    }),
  },
  { name: 'truncated body', action: () => ({ type: 'truncate' }) },
];

const rows: MatrixRow[] = [];

/** What each fault means for a scheduler: whether the server may have acted, and the error's code. */
const EXPECTED: Record<string, [ocp.Outcome, ocp.RequestErrorCode]> = {
  'connection refused': ['not-sent', 'OTC_CONNECT_FAILED'],
  'TLS: unknown CA': ['not-sent', 'OTC_TLS'],
  'TLS: wrong host name': ['not-sent', 'OTC_TLS'],
  'proxy: 407 (no credentials)': ['not-sent', 'OTC_PROXY'],
  'proxy: 403': ['not-sent', 'OTC_PROXY'],
  'proxy: 502': ['not-sent', 'OTC_PROXY'],
  'proxy: unreachable': ['not-sent', 'OTC_PROXY'],
  'proxy: stalls': ['not-sent', 'OTC_TIMEOUT'],
  'proxy: hangs up': ['not-sent', 'OTC_PROXY'],
  'proxy: tunnel cut mid-request': ['unknown', 'OTC_CONNECTION_LOST'],
  'reset before headers': ['unknown', 'OTC_CONNECTION_LOST'],
  'reset mid-body': ['unknown', 'OTC_CONNECTION_LOST'],
  'no response (read timeout)': ['unknown', 'OTC_TIMEOUT'],
  '401': ['refused', 'OTC_UNAUTHORIZED'],
  '403': ['refused', 'OTC_FORBIDDEN'],
  '404': ['refused', 'OTC_NOT_FOUND'],
  '409 (apply conflict / UID precondition)': ['refused', 'OTC_CONFLICT'],
  '422': ['refused', 'OTC_INVALID'],
  '429': ['refused', 'OTC_TOO_MANY_REQUESTS'],
  '500': ['unknown', 'OTC_SERVER_ERROR'],
  '503': ['refused', 'OTC_UNAVAILABLE'],
  '504 Timeout Status': ['unknown', 'OTC_SERVER_TIMEOUT'],
  'malformed JSON body': ['unknown', 'OTC_BAD_RESPONSE'],
  'non-JSON 200': ['unknown', 'OTC_BAD_RESPONSE'],
  'truncated body': ['unknown', 'OTC_CONNECTION_LOST'],
};

/** Faults where the server answered the request (a status, or a 200 whose body is unusable). */
const ANSWERED = new Set(['500', '504 Timeout Status', 'malformed JSON body', 'non-JSON 200']);

/**
 * A step that cannot write (every one but an apply or a delete) never leaves an unknown outcome,
 * and neither does a dry run the server answered: whatever the answer, a dry run stored nothing.
 */
function expectedFor(step: Step, fault: string): [ocp.Outcome, ocp.RequestErrorCode] | undefined {
  const expected = EXPECTED[fault];
  if (expected === undefined) return undefined;
  const [outcome, code] = expected;
  const answeredDryRun = step.name === 'dry run #2' && ANSWERED.has(fault);
  return [outcome === 'unknown' && (!step.mutation || answeredDryRun) ? 'refused' : outcome, code];
}

/** The requests of the failing step that reached the server, as its log holds them. */
function arrived(step: Step): { status: number }[] {
  const { method, path } = step.match;
  return h.sim.log.filter(
    (e) =>
      e.method === method &&
      (path === undefined || (typeof path === 'string' ? e.path === path : path.test(e.path))),
  );
}

/**
 * The outcome the error claims, checked against what the server's log holds: not sent means the
 * failing request never arrived; refused means it arrived and was answered with the error's status,
 * or, without one, that it was a read, which cannot have written anything.
 */
function expectOutcomeInLog(step: Step, failure: ocp.RequestError): void {
  const nth = step.match.nth ?? 1;
  const seen = arrived(step);
  if (failure.outcome === 'not-sent') expect(seen.length).toBeLessThan(nth);
  else expect(seen.length).toBeGreaterThanOrEqual(nth);
  if (failure.outcome === 'refused' && failure.statusCode !== undefined)
    expect(seen[nth - 1]?.status).toBe(failure.statusCode);
  if (failure.outcome === 'refused' && failure.statusCode === undefined) expect(step.mutation).toBe(false);
}

function stored(): string[] {
  return KINDS.map(([apiVersion, kind], i) =>
    h.sim.getObject(apiVersion, kind, 'workers', NAMES[i] ?? '') ? (NAMES[i] ?? '') : '',
  ).filter(Boolean);
}

/** A port that was just free: nothing listens there, so connecting is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return typeof address === 'object' && address ? address.port : 0;
}

/** The proxy URL a proxy fault connects through, with the proxy set to misbehave as it names. */
async function proxyUrlFor(fault: string): Promise<string | undefined> {
  if (!fault.startsWith('proxy: ')) return undefined;
  const withCredentials = proxy.urlWithCredentials;
  proxy.behave({ type: 'forward' });
  if (fault === 'proxy: 407 (no credentials)') return proxy.url;
  if (fault === 'proxy: 403') proxy.behave({ type: 'refuse', status: 403 });
  if (fault === 'proxy: 502') proxy.behave({ type: 'refuse', status: 502 });
  if (fault === 'proxy: stalls') proxy.behave({ type: 'stall' });
  if (fault === 'proxy: hangs up') proxy.behave({ type: 'close' });
  if (fault === 'proxy: unreachable') return `http://127.0.0.1:${await closedPort()}`;
  return withCredentials;
}

async function kubeconfigFor(fault: string): Promise<string> {
  const port = fault === 'connection refused' ? await closedPort() : 0;
  const proxyUrl = await proxyUrlFor(fault);
  return h.kubeconfigWith((config) => {
    const cluster = config.clusters[0]?.cluster as Record<string, unknown>;
    if (proxyUrl) cluster['proxy-url'] = proxyUrl;
    if (fault === 'TLS: unknown CA')
      cluster['certificate-authority-data'] = Buffer.from(otherCa).toString('base64');
    if (fault === 'TLS: wrong host name') cluster['tls-server-name'] = 'api.elsewhere.example';
    if (fault === 'connection refused') cluster.server = `https://127.0.0.1:${port}`;
  });
}

/** Puts the server into the state the step needs: objects present for delete and read. */
async function prepare(step: Step, api: ocp.Connection): Promise<void> {
  await ocp.delete('worker-template', PARAMS, { ...WORKER, api });
  if (step.name === 'delete #2' || step.name === 'read #2')
    await ocp.create('worker-template', PARAMS, { ...WORKER, api });
}

async function operation(step: Step, api: ocp.Connection, read: number): Promise<unknown> {
  const options = { ...WORKER, api, requestTimeout: { connect: 2_000, read } };
  if (step.name === 'delete #2') return ocp.delete('worker-template', PARAMS, options);
  if (step.name === 'read #2') return ocp.get('worker-template', PARAMS, options);
  return ocp.create('worker-template', PARAMS, options);
}

const cases = STEPS.flatMap((step) =>
  FAULTS.filter((f) => !f.only || f.only.includes(step.name)).map((fault) => [step, fault] as const),
);

describe('fault matrix', () => {
  test.each(cases.map(([step, fault]) => [`${step.name} × ${fault.name}`, step, fault] as const))(
    '%s',
    async (_label, step, fault) => {
      h.sim.clearFaults();
      const setup = await h.connect();
      await prepare(step, setup);
      await setup.close();
      h.sim.clearLog();
      let api: ocp.Connection | undefined;
      // A failed assertion must not leave this case's connection open for every later case to trip on.
      onTestFinished(async () => {
        await api?.close();
      });
      let error: unknown;
      let result: unknown;
      const tlsOrRefusedAtConnect = step.name === 'connect' && fault.action === undefined;
      try {
        if (tlsOrRefusedAtConnect) {
          api = await ocp.connect({
            kubeconfig: await kubeconfigFor(fault.name),
            requestTimeout: { connect: 2_000, read: readFor(fault) },
          });
        } else if (step.name === 'connect') {
          h.sim.addFault({ ...step.match, action: fault.action?.(step) ?? { type: 'reset' } });
          api = await ocp.connect({
            kubeconfig: h.kubeconfig,
            requestTimeout: { connect: 2_000, read: readFor(fault) },
          });
        } else if (fault.name === 'proxy: tunnel cut mid-request') {
          api = await ocp.connect({
            kubeconfig: await kubeconfigFor(fault.name),
            requestTimeout: { connect: 2_000, read: 2_000 },
          });
          h.sim.addFault({ ...step.match, action: { type: 'hang', execute: step.mutation } });
          const running = operation(step, api, 2_000);
          running.catch(() => undefined);
          // The request has reached the server (a hung request is logged with status 0) when the
          // proxy drops every tunnel.
          await settles(() => h.sim.log.some((e) => e.status === 0), true);
          proxy.cutAll();
          result = await running;
        } else {
          api = await h.connect({ requestTimeout: { connect: 2_000, read: readFor(fault) } });
          if (fault.name === 'connection refused')
            h.sim.addFault({ ...FIRST_WRITE, action: { type: 'down-after' } });
          else h.sim.addFault({ ...step.match, action: fault.action?.(step) ?? { type: 'reset' } });
          result = await operation(step, api, readFor(fault));
        }
      } catch (caught) {
        error = caught;
      }
      h.sim.clearFaults();
      if (fault.name === 'connection refused' && step.name !== 'connect') await h.sim.comeBack();

      if (process.env.OTS_PRINT_ERRORS && error !== undefined)
        console.log(inspect(error, { depth: 8 }), (error as Error).stack);
      // What the library says happened.
      const failure = error instanceof ocp.OperationError ? error.failures[0]?.error : error;
      const outcome =
        error === undefined
          ? 'success'
          : `${(error as Error).constructor.name}${failure instanceof ocp.RequestError ? ` → ${failure.name}${failure.statusCode ? ` ${failure.statusCode}` : ''} ${failure.code}, ${failure.outcome}` : ''}`;
      // A replay delete trusts a 404 (gone), and after a 409 on its preconditions reads the object
      // again and decides again (here the same UID: deleted with the new read's pins); a dry run
      // whose connection was lost is sent once more, since a dry run stores nothing.
      const resentDryRun = step.name === 'dry run #2' && EXPECTED[fault.name]?.[1] === 'OTC_CONNECTION_LOST';
      const expectSuccess =
        fault.name === 'slow trickling body' ||
        resentDryRun ||
        (step.name === 'delete #2' && (fault.name === '404' || fault.name.startsWith('409')));
      const expectValidation = fault.name === '404' && step.name === 'discovery';
      if (expectSuccess) {
        expect(error).toBeUndefined();
      } else if (expectValidation) {
        expect(error).toBeInstanceOf(ocp.ValidationError);
        expect((error as ocp.ValidationError).issues[0]).toContain('not served');
        // The cluster's problem, not the input's: a scheduler may retry once the kind is served.
        expect((error as ocp.ValidationError).code).toBe('OTC_KIND_NOT_SERVED');
      } else if (step.mutation) {
        expect(error).toBeInstanceOf(ocp.OperationError);
        const codes = { 'dry run #2': 'OTC_PREFLIGHT_REFUSED', 'apply #2': 'OTC_APPLY_FAILED' } as const;
        expect((error as ocp.OperationError).code).toBe(
          step.name === 'dry run #2' || step.name === 'apply #2' ? codes[step.name] : 'OTC_DELETE_FAILED',
        );
      } else {
        expect(error).toBeInstanceOf(ocp.RequestError);
      }
      if (failure instanceof ocp.RequestError) {
        const stepWord = {
          connect: 'Connect',
          discovery: 'Discover',
          'template GET': 'Get',
          'processing POST': 'Process',
          'dry run #2': 'Apply',
          'apply #2': 'Apply',
          'delete #2': 'Delete',
          'read #2': 'Get',
        }[step.name];
        expect(failure.message.startsWith(`${stepWord} `)).toBe(true);
        expect(failure.step).toBe(stepWord);
        if (['dry run #2', 'apply #2', 'delete #2', 'read #2'].includes(step.name))
          expect(failure.target).toBe('Secret "fm-credentials" in namespace "workers"');
        const code = fault.action?.(step);
        expect([failure.outcome, failure.code]).toEqual(expectedFor(step, fault.name));
        expectOutcomeInLog(step, failure);
        if (code?.type === 'status') {
          expect(failure.statusCode).toBe(code.code);
          expect(failure.reason).toBe(code.reason);
          expect(failure.message).toContain(`${code.code} ${code.reason ?? ''}: ${code.message ?? ''}`);
        } else if (code?.type === 'raw') {
          expect(failure.message).toMatch(/200: (the response is not a JSON object|<html>)/);
        } else {
          expect(failure.cause).toBeDefined();
        }
        if (fault.name === 'no response (read timeout)') expect(failure.name).toBe('TimeoutError');
      }

      // What the server saw and holds: each write sent once, each dry run once (twice, the one whose
      // connection was lost), and nothing written after a pre-flight refusal.
      const mutations = h.sim.mutations().filter((e) => e.method !== 'POST');
      const attempts = (dryRun: boolean): number => {
        const perIdentity = new Map<string, number>();
        for (const e of mutations.filter((m) => (m.query.dryRun === 'All') === dryRun))
          perIdentity.set(`${e.method} ${e.path}`, (perIdentity.get(`${e.method} ${e.path}`) ?? 0) + 1);
        return Math.max(0, ...perIdentity.values());
      };
      const maxAttempts = attempts(false);
      const redecided = step.name === 'delete #2' && fault.name.startsWith('409');
      if (redecided) expect(maxAttempts).toBe(2);
      else expect(maxAttempts).toBeLessThanOrEqual(1);
      if (resentDryRun) expect(attempts(true)).toBe(2);
      else expect(attempts(true)).toBeLessThanOrEqual(1);
      let accounted = 'n/a';
      if (step.name === 'dry run #2' && error instanceof ocp.OperationError) {
        expect(error.resources).toEqual([]);
        expect(stored()).toEqual([]);
        expect(mutations.filter((m) => m.query.dryRun === undefined)).toEqual([]);
        accounted = 'applied []; reported [] (the pre-flight refused: nothing written)';
      }
      if (resentDryRun) {
        expect(stored()).toEqual(NAMES);
        accounted = `applied ${JSON.stringify(stored())} (the dry run whose connection was lost sent once more)`;
      }
      if (step.name === 'apply #2' && error instanceof ocp.OperationError) {
        const onServer = stored();
        const reported = error.resources.map((r) => r.name);
        const unknown = error.failures
          .filter((f) => f.error instanceof ocp.RequestError && f.error.outcome === 'unknown')
          .map((f) => f.resource.name);
        for (const name of reported) expect(onServer).toContain(name);
        // The first object did not exist before (prepare deleted it): this create made it.
        expect(error.resources.map((r) => r.created)).toEqual(error.resources.map(() => true));
        for (const name of onServer) expect([...reported, ...unknown]).toContain(name);
        accounted = `applied ${JSON.stringify(onServer)}; reported ${JSON.stringify(reported)}${unknown.length ? `, outcome unknown ${JSON.stringify(unknown)}` : ''}`;
      }
      if (step.name === 'delete #2') {
        const deleted =
          error instanceof ocp.OperationError
            ? error.resources.map((r) => r.name)
            : ((result as ocp.DeleteResult[] | undefined) ?? [])
                .filter((r) => r.deletion !== 'left-alone')
                .map((r) => r.name);
        const gone = NAMES.filter((n) => !stored().includes(n));
        const unknown =
          error instanceof ocp.OperationError
            ? error.failures
                .filter((f) => f.error instanceof ocp.RequestError && f.error.outcome === 'unknown')
                .map((f) => f.resource.name)
            : [];
        if (fault.name !== '404') for (const name of deleted) expect(gone).toContain(name);
        for (const name of gone) expect([...deleted, ...unknown]).toContain(name);
        accounted = `gone ${JSON.stringify(gone)}; reported ${JSON.stringify(deleted)}${unknown.length ? `, outcome unknown ${JSON.stringify(unknown)}` : ''}${fault.name === '404' ? ' (the injected 404 says the object is gone: trusted)' : ''}${fault.name.startsWith('409') ? ' (the injected 409 on the UID precondition says it was replaced: left alone)' : ''}`;
      }

      // The connection is still usable, and close() leaves nothing open.
      let usable = 'n/a (no connection)';
      if (api) {
        const objects = await ocp.process('worker-template', PARAMS, { ...WORKER, api });
        expect(objects).toHaveLength(3);
        usable = 'yes';
        await api.close();
      }
      const open = await settles(() => h.sim.stats().openSockets, 0);
      expect(open).toBe(0);
      rows.push({
        step: step.name,
        fault: fault.name,
        outcome,
        message:
          failure instanceof Error
            ? failure.message.replace(/https:\/\/127\.0\.0\.1:\d+/, 'https://127.0.0.1:PORT')
            : '',
        attempts: `${step.name === 'dry run #2' ? attempts(true) : maxAttempts}`,
        accounted,
        usable,
        sockets: `${open}`,
      });
    },
  );

  afterAll(() => {
    report('fault-matrix', rows);
  });
});
