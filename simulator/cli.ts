// The command line of `npm run simulator`: its flags, its usage text, and what a wrong flag gets
// (one line naming it, the usage, exit code 2, as argument errors conventionally exit).
import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run simulator -- [options]

Starts the OpenShift API simulator on 127.0.0.1 until interrupted (Ctrl-C, SIGTERM).

Options:
  --kubeconfig-out FILE  write a kubeconfig for it (contexts "simulator" and one per identity of
                         simulator/identities.json: "limited", "namespace-admin", "no-secret-create")
  --port N               port to listen on (default 0: any free port)
  --latency-ms N         delay added to every request, in milliseconds (default 0)
  --no-openapi-v3        answer 404 under /openapi/v3, as a server without it (before 1.24)
  -h, --help             show this text
`;

export interface SimulatorFlags {
  kubeconfigOut: string | undefined;
  port: number;
  latencyMs: number;
  openapiV3: boolean;
}

export type Command = { run: SimulatorFlags } | { help: true } | { error: string };

function wholeNumber(flag: string, text: string, max: number): number | string {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > max)
    return `${flag} must be a whole number from 0 to ${max}, not "${text}"`;
  return value;
}

function problem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  // node:util's texts end with advice for script authors ("To specify a positional argument ..."): cut it.
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message.replace(/\. To specify .*$/s, '');
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return message.replace(/\. .*$/s, '');
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return message;
  throw error;
}

/** What the arguments ask for: run with these flags, show the usage, or an error line. */
export function parseCommand(args: string[]): Command {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        'kubeconfig-out': { type: 'string' },
        port: { type: 'string', default: '0' },
        'latency-ms': { type: 'string', default: '0' },
        'no-openapi-v3': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    return { error: problem(error) };
  }
  if (values.help) return { help: true };
  const port = wholeNumber('--port', values.port, 65535);
  if (typeof port === 'string') return { error: port };
  const latencyMs = wholeNumber('--latency-ms', values['latency-ms'], 3_600_000);
  if (typeof latencyMs === 'string') return { error: latencyMs };
  const openapiV3 = !values['no-openapi-v3'];
  return { run: { kubeconfigOut: values['kubeconfig-out'], port, latencyMs, openapiV3 } };
}
