// An exec credential plugin by client-go's rules, but with a handle on the child (client-node's
// has none and no time limit): one run at a time serves every waiting request, and the child is
// killed once no request waits for it or the Connection closes.
import { type ExecFileException, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cutText, type Redactor } from '../util/redact.ts';
import { hasText, isRecord } from '../util/json.ts';
import { waitFor } from '../util/wait.ts';

/** A kubeconfig user's `exec` stanza, as client-node hands it over (the kubeconfig's own keys). */
export interface ExecConfig {
  command?: unknown;
  args?: unknown;
  env?: unknown;
  apiVersion?: unknown;
  interactiveMode?: unknown;
  provideClusterInfo?: unknown;
  installHint?: unknown;
}

/** The cluster as client-go describes it to a plugin that asks for it (`provideClusterInfo`). */
export interface ExecCluster {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
}

export interface ExecCredential {
  token: string | undefined;
  certificate: { cert: string; key: string } | undefined;
  /** Milliseconds since the epoch; without one the credential is kept for the Connection's life. */
  expires: number | undefined;
}

/** The plugin's owner remembers what it printed, so it is never printed again. */
interface PluginOwner {
  remember(values: (string | undefined)[]): void;
  readonly redactor: Redactor;
}

const runFile = promisify(execFile);

const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
/** How much of a failed plugin's stderr an error quotes, redacted. */
const QUOTED_STDERR = 300;
/** A plugin that prints more than this on stdout or stderr is stopped: no ExecCredential is that big. */
const MAX_OUTPUT = 1024 * 1024;

/**
 * The plugin could not be run, failed or printed no usable ExecCredential (`OTC_EXEC_PLUGIN`), or
 * this request stopped waiting before it answered (`OTC_EXEC_NOT_ANSWERED`: its limit, signal or close()).
 */
class ExecPluginError extends Error {
  readonly code: 'OTC_EXEC_PLUGIN' | 'OTC_EXEC_NOT_ANSWERED';
  constructor(message: string, cause?: unknown, code: ExecPluginError['code'] = 'OTC_EXEC_PLUGIN') {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.name = 'ExecPluginError';
  }
}

interface Run {
  promise: Promise<ExecCredential>;
  waiters: number;
  stop: AbortController;
}

function text(value: unknown): string | undefined {
  return hasText(value) ? value : undefined;
}

/** What client-go refuses in an exec stanza before running anything, or undefined. */
function configProblem(config: ExecConfig): string | undefined {
  if (text(config.command) === undefined) return 'no command is set';
  if (!API_VERSIONS.includes(String(config.apiVersion)))
    return `invalid apiVersion ${JSON.stringify(config.apiVersion)} (${API_VERSIONS.join(' or ')})`;
  const mode = config.interactiveMode ?? '';
  if (typeof mode !== 'string') return 'interactiveMode is not a string';
  // Always needs a terminal; a library never hands its host's stdin to a child.
  if (mode === 'Always') return 'interactiveMode is Always, but this library runs plugins without a terminal';
  if (!['', 'Never', 'IfAvailable'].includes(mode)) return `unknown interactiveMode ${JSON.stringify(mode)}`;
  return undefined;
}

function argsOf(config: ExecConfig): string[] {
  return Array.isArray(config.args) ? config.args.map(String) : [];
}

/** The kubeconfig's `env` entries, set over the process environment as client-go appends them. */
function envOf(config: ExecConfig): Record<string, string> {
  const entries = Array.isArray(config.env) ? (config.env as unknown[]) : [];
  return Object.fromEntries(
    entries.filter(isRecord).map((e) => [String(e.name), typeof e.value === 'string' ? e.value : '']),
  );
}

/** Reads the plugin's stdout as client-go does: an ExecCredential of the configured version. */
function parseCredential(output: string, apiVersion: string, label: string): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    // The parser's message quotes the output, which holds the credential: no cause.
    throw new ExecPluginError(`${label} printed no JSON ExecCredential on its standard output`);
  }
  if (!isRecord(parsed) || parsed.kind !== 'ExecCredential')
    throw new ExecPluginError(`${label} printed something other than an ExecCredential`);
  if (parsed.apiVersion !== apiVersion)
    throw new ExecPluginError(`${label} is configured for ${apiVersion} but answered in another version`);
  const status = parsed.status;
  if (!isRecord(status)) throw new ExecPluginError(`${label} returned no status`);
  const token = text(status.token);
  const cert = text(status.clientCertificateData);
  const key = text(status.clientKeyData);
  if (token === undefined && cert === undefined && key === undefined)
    throw new ExecPluginError(`${label} returned neither a token nor a client certificate and key`);
  if ((cert === undefined) !== (key === undefined))
    throw new ExecPluginError(`${label} returned only a client certificate or only a key, not both`);
  const expiry = status.expirationTimestamp;
  const expires = typeof expiry === 'string' ? Date.parse(expiry) : undefined;
  if (expiry !== undefined && expiry !== null && (expires === undefined || Number.isNaN(expires)))
    throw new ExecPluginError(`${label} returned an expirationTimestamp that is not a time`);
  return {
    token,
    certificate: cert !== undefined && key !== undefined ? { cert, key } : undefined,
    expires,
  };
}

/** Expired as client-go judges it: strictly after the timestamp. */
function expired(credential: ExecCredential): boolean {
  return credential.expires !== undefined && Date.now() > credential.expires;
}

export class ExecPlugin {
  readonly #config: ExecConfig;
  readonly #owner: PluginOwner;
  readonly #info: string;
  /** `exec credential plugin "aws"`: the command only, never its arguments (they may hold secrets). */
  readonly label: string;
  #cached: ExecCredential | undefined;
  #run: Run | undefined;
  #closed = false;

  constructor(config: ExecConfig, cluster: ExecCluster, owner: PluginOwner) {
    this.#config = config;
    this.#owner = owner;
    this.label = `exec credential plugin ${JSON.stringify(text(config.command) ?? '')}`;
    const spec = { interactive: false, ...(config.provideClusterInfo === true ? { cluster } : {}) };
    this.#info = JSON.stringify({ kind: 'ExecCredential', apiVersion: config.apiVersion, spec });
  }

  /** The cached credential while valid, else the current run's; the last caller to stop waiting kills it. */
  async credential(bound: () => AbortSignal): Promise<ExecCredential> {
    const cached = this.#cached;
    if (cached && !expired(cached)) return cached;
    if (this.#closed) throw this.#notAnswered();
    const run = (this.#run ??= this.#start());
    run.waiters += 1;
    try {
      return await waitFor(run.promise, bound(), () => this.#notAnswered());
    } finally {
      run.waiters -= 1;
      if (run.waiters === 0 && this.#run === run) {
        this.#run = undefined;
        run.stop.abort();
      }
    }
  }

  /** A 401 to the cached credential: the next request runs the plugin again, as client-go does. */
  refused(authorization: string | undefined): void {
    const cached = this.#cached;
    if (!cached) return;
    const sent = cached.token === undefined ? undefined : `Bearer ${cached.token}`;
    if (sent === authorization) this.#cached = undefined;
  }

  /** Kills a run under way; nothing runs after it. */
  close(): void {
    this.#closed = true;
    this.#run?.stop.abort();
    this.#run = undefined;
  }

  #start(): Run {
    const stop = new AbortController();
    const run: Run = { promise: this.#execute(stop.signal), waiters: 0, stop };
    const done = (): void => {
      if (this.#run === run) this.#run = undefined;
    };
    run.promise.then((credential) => {
      done();
      if (!this.#closed) this.#cached = credential;
    }, done);
    return run;
  }

  #notAnswered(): ExecPluginError {
    return new ExecPluginError(`${this.label} had not answered`, undefined, 'OTC_EXEC_NOT_ANSWERED');
  }

  /**
   * One run. execFile kills the plugin (SIGKILL) when `stop` fires or its output passes MAX_OUTPUT,
   * and lets go of its pipes, so a grandchild holding them keeps nothing open here.
   */
  async #execute(stop: AbortSignal): Promise<ExecCredential> {
    const problem = configProblem(this.#config);
    if (problem !== undefined) throw new ExecPluginError(`${this.label}: ${problem}`);
    const env = { ...globalThis.process.env, ...envOf(this.#config), KUBERNETES_EXEC_INFO: this.#info };
    const options = {
      env,
      signal: stop,
      killSignal: 'SIGKILL',
      maxBuffer: MAX_OUTPUT,
      windowsHide: true,
    } as const;
    const running = runFile(String(this.#config.command), argsOf(this.#config), options);
    // Never interactive: the host's stdin is not the plugin's to read (see configProblem).
    running.child.stdin?.end();
    let stdout: string;
    try {
      ({ stdout } = await running);
    } catch (error) {
      const failed = error as ExecFileException & { stdout: string; stderr: string };
      // Remembered before anything is worded: no error may quote any of it.
      this.#owner.remember([failed.stdout, failed.stdout.trim()]);
      throw this.#runError(failed, failed.stderr);
    }
    this.#owner.remember([stdout, stdout.trim()]);
    const credential = parseCredential(stdout, String(this.#config.apiVersion), this.label);
    const { token, certificate } = credential;
    this.#owner.remember([token, token && `Bearer ${token}`, certificate?.key, certificate?.cert]);
    return credential;
  }

  /**
   * Why a run failed: not started, stopped, too much output, or its exit, with the start of its
   * stderr redacted (a library has no terminal to pass it to).
   */
  #runError(error: ExecFileException, stderr: string): ExecPluginError {
    if (error.name === 'AbortError')
      return new ExecPluginError(`${this.label} was stopped before it answered`);
    if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
      return new ExecPluginError(`${this.label} printed more than ${MAX_OUTPUT} bytes`);
    if (typeof error.code === 'string') {
      const hint = text(this.#config.installHint);
      if (error.code === 'ENOENT')
        return new ExecPluginError(`${this.label}: executable not found${hint ? `; ${hint}` : ''}`, error);
      return new ExecPluginError(`${this.label} could not be run: ${error.message}`, error);
    }
    const how =
      typeof error.code !== 'number'
        ? `was killed by ${String(error.signal)}`
        : `failed with exit code ${error.code}`;
    const redactor = this.#owner.redactor;
    const said = cutText(redactor(withoutCredentialShapes(stderr.trim())), QUOTED_STDERR, redactor);
    return new ExecPluginError(`${this.label} ${how}${said ? `: ${said}` : ''}`);
  }
}

/** A failing plugin may print a credential never held (a refresh token): hide its shapes too. */
function withoutCredentialShapes(text: string): string {
  return text
    .replace(/\b(Bearer|Basic)\s+[\w.~+/=-]+/gi, '$1 [redacted]')
    .replace(/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, '[redacted JWT]');
}
