// The options each call takes, each with the check of its value. Any other key is refused by name,
// never ignored (JS and REPL callers have no compiler), with the likely intended name.
import type {
  CommonOptions,
  ConnectOptions,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ReferenceDeleteOptions,
  ReferenceGetOptions,
  TemplateOptions,
} from '../types/index.ts';
import { describe, hasText, isRecord } from '../util/json.ts';
import { labelProblems } from './labels.ts';
import { nameProblem } from './names.ts';
import type { Issues } from './refs.ts';
import { closest } from './suggest.ts';

/** The problems of an option's value (never `undefined` here), each naming `key`. */
type Check = (value: unknown, key: string) => Issues;

/** A key the options take a value for (`key?: undefined` only marks the other mode's keys). */
type Taken<T> = { [K in keyof T]-?: [Exclude<T[K], undefined>] extends [never] ? never : K }[keyof T];

/** A table of exactly `T`'s keys: a missing or extra key (spread in too, unlike `satisfies`) fails to compile. */
const exactly =
  <T>() =>
  <C extends Readonly<Record<Taken<T>, Check>>>(checks: C & Record<Exclude<keyof C, Taken<T>>, never>): C =>
    checks;

/** The longest delay a Node.js timer holds (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A check that `ok` accepts the value, else says "`key` must `text`", with the value's type when `got`. */
const must =
  (ok: (value: unknown) => boolean, text: string, got = false): Check =>
  (value, key) =>
    ok(value) ? [] : [`${key} must ${text}${got ? `, got ${describe(value)}` : ''}`];

const oneOf = (values: readonly string[], got = false): Check =>
  must((value) => values.includes(value as string), `be ${listOf(values.map((v) => `"${v}"`))}`, got);

const boolean = must((value) => typeof value === 'boolean', 'be a boolean');
const nonEmpty = must(hasText, 'be a non-empty string');
/** `api` is checked where the Connection is taken, `resources` ref by ref (arguments.ts). */
const checkedElsewhere: Check = () => [];

const namespace: Check = (value, key) => {
  if (typeof value !== 'string') return [`${key} must be a string, got ${describe(value)}`];
  if (value === '') return [`${key} must not be empty`];
  if (nameProblem('v1', 'Namespace', value) === undefined) return [];
  return [`${key} "${value}" is not a valid namespace name (DNS-1123 label)`];
};

const timeout: Check = (value, key) => {
  const limits =
    typeof value === 'number' ? [value] : isRecord(value) ? [value.connect, value.read] : [value];
  if (!limits.every((n) => typeof n === 'number' && Number.isFinite(n) && n > 0))
    return [`${key} must be a positive number of milliseconds or { connect, read } of them`];
  if ((limits as number[]).some((ms) => ms > MAX_TIMEOUT_MS))
    return [
      `${key} must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days), the longest delay a Node.js timer holds`,
    ];
  return [];
};

const kubeconfig: Check = (value, key) => {
  if (!hasText(value)) return [`${key} must be a non-empty path`];
  // Content where a path belongs would be quoted in "no such file" and may hold a token.
  if (/[\r\n]|^\s*[{[]/.test(value))
    return [`${key} must be the path of a kubeconfig file, not its content (not repeated here)`];
  return [];
};

const signal = must((value) => value instanceof AbortSignal, 'be an AbortSignal');
const onWarning = must(
  (value) => typeof value === 'function',
  'be a function that takes a ServerWarning',
  true,
);
const fieldManager = must(
  (value) => hasText(value) && value.length <= 128,
  'be a non-empty string of at most 128 characters',
);
const missing = oneOf(['error', 'null'], true);
const propagationPolicy = oneOf(['Foreground', 'Background', 'Orphan']);

const COMMON = exactly<CommonOptions>()({
  namespace,
  api: checkedElsewhere,
  requestTimeout: timeout,
  signal,
  onWarning,
});
const TEMPLATE = exactly<TemplateOptions>()({
  ...COMMON,
  templateNamespace: namespace,
  labels: labelProblems,
});

export type Call =
  'connect' | 'process' | 'create' | 'get' | 'delete' | 'get with resources' | 'delete with resources';

const CHECKS: Readonly<Record<Call, Readonly<Record<string, Check>>>> = {
  connect: exactly<ConnectOptions>()({
    kubeconfig,
    context: nonEmpty,
    inCluster: boolean,
    verifySsl: boolean,
    requestTimeout: timeout,
    signal,
    maxSockets: must(
      (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 1024,
      'be a whole number from 1 to 1024',
    ),
    http2: boolean,
    onWarning,
  }),
  process: TEMPLATE,
  create: exactly<CreateOptions>()({
    ...TEMPLATE,
    fieldManager,
    dryRun: boolean,
    fieldValidation: oneOf(['Strict', 'Warn', 'Ignore']),
    preflight: oneOf(['server', 'schema']),
    adopt: boolean,
  }),
  get: exactly<GetOptions>()({ ...TEMPLATE, missing }),
  delete: exactly<DeleteOptions>()({
    ...TEMPLATE,
    dryRun: boolean,
    propagationPolicy,
    fieldManager,
    ownership: oneOf(['manager', 'any'], true),
  }),
  'get with resources': exactly<ReferenceGetOptions>()({
    ...COMMON,
    resources: checkedElsewhere,
    missing,
  }),
  'delete with resources': exactly<ReferenceDeleteOptions>()({
    ...COMMON,
    resources: checkedElsewhere,
    dryRun: boolean,
    propagationPolicy,
  }),
};

const ALL_OPTION_KEYS = [...new Set(Object.values(CHECKS).flatMap((checks) => Object.keys(checks)))];

/** Keys that belong to the other mode of the same operation. */
const TEMPLATE_ONLY_KEYS = ['templateNamespace', 'templateName', 'parameters', 'labels'];

/** How messages name the function a call is made with: `get()` for both modes of get. */
const functionOf = (call: string): string => `${call.split(' ')[0] ?? call}()`;

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

/**
 * Checks the value of each option the call takes and refuses every other key. A key whose value is
 * `undefined` counts as absent, so spreading one mode's options into the other with `key: undefined` works.
 */
export function checkOptions(call: Call, options: Record<string, unknown>, issues: Issues): void {
  const checks = CHECKS[call];
  for (const [key, check] of Object.entries(checks))
    if (options[key] !== undefined) issues.push(...check(options[key], key));
  for (const key of Object.keys(options))
    if (options[key] !== undefined && !Object.hasOwn(checks, key)) issues.push(unknownKey(call, key));
}

/** Why the call refuses `key`, naming the option or the function most likely meant. */
function unknownKey(call: Call, key: string): string {
  const allowed = Object.keys(CHECKS[call]);
  const referenceMode = call.endsWith('with resources');
  const exclusive = '(reference mode and template mode are exclusive)';
  if (referenceMode && TEMPLATE_ONLY_KEYS.includes(key))
    return `${key} cannot be combined with resources ${exclusive}`;
  if (!referenceMode && key === 'resources' && call !== 'connect')
    return `resources cannot be combined with a template name ${exclusive}`;
  const near = closest(key, allowed);
  if (near !== undefined) return `${key}: unknown option; did you mean ${near}?`;
  const operation = functionOf(call);
  const other = closest(key, ALL_OPTION_KEYS);
  const taking = Object.entries(CHECKS).filter(
    ([, checks]) => other !== undefined && Object.hasOwn(checks, other),
  );
  // In reference mode, a key of the same operation's template mode is named as that mode's.
  const elsewhere = [...new Set(taking.map(([c]) => functionOf(c)))]
    .map((c) => (referenceMode && c === operation ? `template-mode ${c}` : c))
    .filter((c) => c !== operation);
  if (other === undefined || elsewhere.length === 0)
    return `${key}: unknown option of ${operation}; it takes ${allowed.join(', ')}`;
  const where = `is an option of ${listOf(elsewhere)}, not of ${operation}`;
  return other === key ? `${key} ${where}` : `${key}: unknown option; ${other} ${where}`;
}
