// Option names each call takes, and the error for any other: refused by name, never ignored (JS
// and REPL callers have no compiler), with the likely intended name.
import type {
  ConnectOptions,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ReferenceDeleteOptions,
  ReferenceGetOptions,
  TemplateOptions,
} from '../types/index.ts';
import type { Issues } from './refs.ts';
import { closest } from './suggest.ts';

const COMMON_KEYS = ['namespace', 'api', 'requestTimeout', 'signal', 'onWarning'] as const;
const DELETE_KEYS = ['dryRun', 'propagationPolicy'] as const;
const TEMPLATE_KEYS = [...COMMON_KEYS, 'templateNamespace', 'labels'] as const;

/** The options each call takes. Any other key is refused, never ignored (REPL and JS callers). */
type Call =
  'connect' | 'process' | 'create' | 'get' | 'delete' | 'get with resources' | 'delete with resources';

const LISTS = {
  connect: [
    'kubeconfig',
    'context',
    'inCluster',
    'verifySsl',
    'requestTimeout',
    'signal',
    'maxSockets',
    'http2',
    'onWarning',
  ],
  process: [...TEMPLATE_KEYS],
  create: [...TEMPLATE_KEYS, 'fieldManager', 'dryRun', 'fieldValidation', 'preflight', 'adopt'],
  get: [...TEMPLATE_KEYS, 'missing'],
  delete: [...TEMPLATE_KEYS, ...DELETE_KEYS, 'fieldManager', 'ownership'],
  'get with resources': [...COMMON_KEYS, 'resources', 'missing'],
  'delete with resources': [...COMMON_KEYS, 'resources', ...DELETE_KEYS],
} as const;

interface OptionsOf {
  connect: ConnectOptions;
  process: TemplateOptions;
  create: CreateOptions;
  get: GetOptions;
  delete: DeleteOptions;
  'get with resources': ReferenceGetOptions;
  'delete with resources': ReferenceDeleteOptions;
}
/** A key the options take a value for (`key?: undefined` only marks the other mode's keys). */
type Taken<T> = { [K in keyof T]-?: [Exclude<T[K], undefined>] extends [never] ? never : K }[keyof T];
/** A list that names exactly its interface's keys, else the keys it misses and those it has extra. */
type Checked<L extends Record<Call, readonly string[]>> = {
  [C in Call]: [
    Exclude<Taken<OptionsOf[C]>, L[C][number]> | Exclude<L[C][number], Taken<OptionsOf[C]>>,
  ] extends [never]
    ? readonly string[]
    : {
        missing: Exclude<Taken<OptionsOf[C]>, L[C][number]>;
        extra: Exclude<L[C][number], Taken<OptionsOf[C]>>;
      };
};
// Compiles only while each list names exactly the keys of its options interface.
const OPTION_KEYS: Checked<typeof LISTS> = LISTS;

const ALL_OPTION_KEYS: readonly string[] = [...new Set(Object.values(OPTION_KEYS).flat())];

/** Keys that belong to the other mode of the same operation. */
const TEMPLATE_ONLY_KEYS = ['templateNamespace', 'templateName', 'parameters', 'labels'];

function callsTaking(key: string): string[] {
  const names = Object.entries(OPTION_KEYS)
    .filter(([, keys]) => keys.includes(key))
    .map(([call]) => `${call.split(' ')[0] ?? call}()`);
  return [...new Set(names)];
}

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

/**
 * Refuses option keys the call does not take. A key whose value is `undefined` counts as absent,
 * so spreading one mode's options into the other with `key: undefined` works.
 */
export function checkOptionKeys(call: Call, options: Record<string, unknown>, issues: Issues): void {
  const allowed = OPTION_KEYS[call];
  const operation = `${call.split(' ')[0] ?? call}()`;
  const referenceMode = call.endsWith('with resources');
  for (const key of Object.keys(options)) {
    if (options[key] === undefined || allowed.includes(key)) continue;
    if (referenceMode && TEMPLATE_ONLY_KEYS.includes(key)) {
      issues.push(
        `${key} cannot be combined with resources (reference mode and template mode are exclusive)`,
      );
      continue;
    }
    if (!referenceMode && key === 'resources' && call !== 'connect') {
      issues.push(
        `resources cannot be combined with a template name (reference mode and template mode are exclusive)`,
      );
      continue;
    }
    const near = closest(key, allowed);
    if (near !== undefined) {
      issues.push(`${key}: unknown option; did you mean ${near}?`);
      continue;
    }
    const other = closest(key, ALL_OPTION_KEYS);
    // In reference mode, a key of the same operation's template mode is named as that mode's.
    const elsewhere = (other === undefined ? [] : callsTaking(other))
      .map((c) => (referenceMode && c === operation ? `template-mode ${c}` : c))
      .filter((c) => c !== operation);
    if (other === undefined || elsewhere.length === 0) {
      issues.push(`${key}: unknown option of ${operation}; it takes ${allowed.join(', ')}`);
    } else if (other === key) {
      issues.push(`${key} is an option of ${listOf(elsewhere)}, not of ${operation}`);
    } else {
      issues.push(
        `${key}: unknown option; ${other} is an option of ${listOf(elsewhere)}, not of ${operation}`,
      );
    }
  }
}
