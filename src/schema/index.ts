// The typing engine: OpenAPI v3 documents → compact type tables → typed objects, by
// structured-merge-diff's rules. Pure modules, no I/O: the simulator and create() wire it in.
export { compactTypes } from './compact.ts';
export { pruneUndeclared, type PruneResult } from './prune.ts';
export { withoutServerSet } from './server-set.ts';
export { kindKey, type TypeTable } from './table.ts';
export { typeObject, typeValue, type TypingOptions, type TypingResult } from './typing.ts';
export type { TypingProblem } from './walk.ts';
export {
  checkForApply,
  type ApplyCheck,
  type GroupVersionSchema,
  type ValidationMode,
} from './apply-check.ts';
