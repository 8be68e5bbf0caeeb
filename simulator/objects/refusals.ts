// What kube-apiserver answers a body its kind's schema does not type, in its words: the 500 of a
// server-side apply and the 400 of a create or update body that does not decode. The typing engine
// (src/schema/) reports every problem; the server reports fewer, as its walk stops early
// (`serverProblems`). Like the engine, these name a value's type, never the value.
import type { TypingProblem } from '../../src/schema/index.ts';
import { goQuote } from '../../src/util/quote.ts';

/** The object a message names. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

type At = readonly (string | number)[];

function within(at: At, outer: At): boolean {
  return outer.length <= at.length && outer.every((key, i) => at[i] === key);
}

// typed/validate.go visitListItems' words for an element it cannot key (typed/helpers.go).
const UNKEYED_ELEMENT = /^element \d+: /;

/**
 * The problems kube-apiserver reports of those the engine found, in the same order.
 * structured-merge-diff's walk stops a map at its first undeclared key (typed/validate.go
 * visitMapItems) and a keyed list or set at the first element it cannot key (visitListItems):
 * nothing found after that inside the map or list is reported.
 *
 * @example
 * serverProblems(typeValue(table, body, type).problems); // the first undeclared key per map
 */
export function serverProblems(problems: readonly TypingProblem[]): TypingProblem[] {
  const stopped: At[] = [];
  const kept: TypingProblem[] = [];
  for (const problem of problems) {
    if (stopped.some((at) => within(problem.at, at))) continue;
    kept.push(problem);
    if (problem.kind === 'undeclared') stopped.push(problem.at.slice(0, -1));
    else if (problem.kind === 'list' && UNKEYED_ELEMENT.test(problem.reason)) stopped.push(problem.at);
  }
  return kept;
}

// apimachinery schema.GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`.
function gvkText({ apiVersion, kind }: ObjectIdentity): string {
  const group = apiVersion.includes('/') ? '' : '/';
  return `${group}${apiVersion}, Kind=${kind}`;
}

// managedfields/internal/structuredmerge.go objectGVKNN.
function gvknn(object: ObjectIdentity): string {
  return `${object.namespace ?? ''}/${object.name}; ${gvkText(object)}`;
}

/** structured-merge-diff's ValidationError(s).Error() over the problems (typed/helpers.go). */
function smdErrorText(problems: readonly TypingProblem[]): string {
  const lines = problems.map((p) => (p.path === '' ? p.reason : `${p.path}: ${p.reason}`));
  return lines.length === 1 ? (lines[0] ?? '') : ['errors:', ...lines.map((l) => `  ${l}`)].join('\n');
}

/**
 * The message of kube-apiserver's 500 when server-side apply cannot type the patch
 * (managedfields/internal/structuredmerge.go Apply).
 *
 * @example
 * typedPatchMessage(identity, problems);
 * // 'failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): .spec.x: field not declared in schema'
 */
export function typedPatchMessage(object: ObjectIdentity, problems: readonly TypingProblem[]): string {
  return `failed to create typed patch object (${gvknn(object)}): ${smdErrorText(problems)}`;
}

/**
 * The message of kube-apiserver's 500 when server-side apply cannot decode the typed result into
 * its Go type (structuredmerge.go Apply → runtime/scheme.go unstructuredToTyped).
 */
export function applyDecodeMessage(object: ObjectIdentity, problem: TypingProblem): string {
  return (
    `failed to convert new object (${gvknn(object)}) to proper version: ` +
    `unable to convert unstructured object to ${gvkText(object)}: ${problem.reason}`
  );
}

/**
 * What kube-apiserver answers a server-side apply of the object with — the message of its 500
 * Status, which has no `reason` — or `undefined` when the object types and decodes. Typing
 * problems come first (the patch is typed before anything else), as the server reports them
 * (`serverProblems`); of the decode problems only the first counts, as conversion stops there.
 * Pass a result typed with `decode` for built-in kinds.
 *
 * @example
 * const refusal = applyRefusal(identity, typeObject(table, body, { decode: true }));
 * if (refusal !== undefined) respond(500, refusal);
 */
export function applyRefusal(
  object: ObjectIdentity,
  result: { problems: readonly TypingProblem[]; decodeProblems: readonly TypingProblem[] },
): string | undefined {
  const problems = serverProblems(result.problems);
  if (problems.length > 0) return typedPatchMessage(object, problems);
  const [first] = result.decodeProblems;
  return first === undefined ? undefined : applyDecodeMessage(object, first);
}

/**
 * The message of kube-apiserver's 400 when a create or update body does not decode
 * (k8s.io/apiserver endpoints/handlers/rest.go transformDecodeError).
 */
export function createDecodeMessage(object: ObjectIdentity, reason: string): string {
  const version = object.apiVersion.split('/').pop() ?? '';
  return `${object.kind} in version ${goQuote(version)} cannot be handled as a ${object.kind}: ${reason}`;
}

/** `unknown field "spec.x"` (sigs.k8s.io/json kubernetes_patch.go strictError.Error). */
export function unknownField(strictPath: string): string {
  return `unknown field ${goQuote(strictPath)}`;
}

/** `strict decoding error: unknown field "a", unknown field "b"` (runtime/error.go). */
export function strictDecodingMessage(strictPaths: readonly string[]): string {
  return `strict decoding error: ${strictPaths.map(unknownField).join(', ')}`;
}
