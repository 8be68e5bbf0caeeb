// The fidelity comparison's pieces: what the library exposes about a request or an object,
// normalised so that only what a real server decides remains, and a field-path diff of two such
// records. Differences listed in fidelity-known.json (each with why, docs/fidelity.md) are accepted.
import { readFileSync } from 'node:fs';
import * as ocp from '../../src/index.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Known {
  pattern: string;
  why: string;
}

const KNOWN = (
  JSON.parse(readFileSync(new URL('fidelity-known.json', import.meta.url), 'utf8')) as { known: Known[] }
).known.map((k) => ({ ...k, regex: new RegExp(k.pattern) }));

/** Differences no entry of fidelity-known.json explains. */
export function unexplained(differences: string[]): string[] {
  return differences.filter((d) => !KNOWN.some((k) => k.regex.test(d)));
}

const UID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ADDRESS = /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g;

/** Server-chosen values replaced by placeholders: ids, versions, times, allocated addresses. */
export function normalise(value: unknown, path = ''): Json {
  if (Array.isArray(value)) return value.map((v, i) => normalise(v, `${path}[${i}]`));
  if (typeof value === 'string') return value.replace(UID, '<uid>').replace(ADDRESS, '<address>');
  if (value === null || typeof value !== 'object') return (value ?? null) as Json;
  const out: Record<string, Json> = {};
  for (const [key, child] of Object.entries(value)) {
    const here = `${path}.${key}`;
    // generation is dropped, not replaced: whether a kind has one is the server's bookkeeping.
    if (here.endsWith('.metadata.generation')) continue;
    if (/\.metadata\.(uid|resourceVersion|creationTimestamp)$/.test(here)) out[key] = '<set>';
    else if (/\.managedFields\[\d+\]\.time$/.test(here)) out[key] = '<time>';
    else if (/\.spec\.(clusterIPs?|ipFamilies|ipFamilyPolicy)$/.test(here)) out[key] = '<allocated>';
    else out[key] = normalise(child, here);
  }
  return out;
}

const show = (value: Json | undefined): string => (value === undefined ? '(absent)' : JSON.stringify(value));

/** `apiVersion Kind` of a stored object (one with metadata), which difference lines under it name. */
function kindOf(value: Json | undefined): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { apiVersion, kind, metadata } = value;
  const isObject = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
  return typeof apiVersion === 'string' && typeof kind === 'string' && isObject
    ? `${apiVersion} ${kind}`
    : undefined;
}

/**
 * Every field path where `simulator` and `real` differ, as `PREFIX PATH: simulator X, real Y`, or
 * `PREFIX (apiVersion Kind) PATH: …` below an object that has them, so that a listed difference can
 * be narrowed to the groups it is about.
 */
export function differences(
  prefix: string,
  simulator: Json | undefined,
  real: Json | undefined,
  path = '',
  context = '',
): string[] {
  const bothObjects =
    simulator !== null &&
    real !== null &&
    typeof simulator === 'object' &&
    typeof real === 'object' &&
    Array.isArray(simulator) === Array.isArray(real);
  if (!bothObjects) {
    const where = context ? `(${context}) ${path || '.'}` : path || '.';
    return JSON.stringify(simulator) === JSON.stringify(real)
      ? []
      : [`${prefix} ${where}: simulator ${show(simulator)}, real ${show(real)}`];
  }
  if (Array.isArray(simulator) && Array.isArray(real)) {
    const length = Math.max(simulator.length, real.length);
    return Array.from({ length }, (_, i) =>
      differences(prefix, simulator[i], real[i], `${path}[${i}]`, context),
    ).flat();
  }
  const a = simulator as Record<string, Json>;
  const b = real as Record<string, Json>;
  const here = kindOf(b) ?? kindOf(a) ?? context;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((key) => differences(prefix, a[key], b[key], `${path}.${key}`, here));
}

/** What a caller can read off a failed (or successful) call, without its message's free text. */
export async function outcomeOf(call: () => Promise<unknown>): Promise<Json> {
  try {
    const result = await call();
    return { ok: normalise(result) };
  } catch (error) {
    if (error instanceof ocp.OperationError) {
      return {
        class: 'OperationError',
        code: error.code,
        operation: error.operation,
        resources: normalise(error.resources),
        failures: error.failures.map((f) => summary(f.error)),
      };
    }
    return summary(error);
  }
}

function summary(error: unknown): Json {
  if (error instanceof ocp.RequestError) {
    const status = error.status as
      { details?: { causes?: { field?: string; reason?: string }[] } } | undefined;
    return {
      class: 'RequestError',
      code: error.code,
      statusCode: error.statusCode ?? null,
      reason: error.reason ?? null,
      outcome: error.outcome,
      causes: (status?.details?.causes ?? []).map((c) => ({
        field: c.field ?? null,
        reason: c.reason ?? null,
      })),
      message: normalise(error.message),
    };
  }
  if (error instanceof ocp.ValidationError) {
    return { class: 'ValidationError', code: error.code, issues: [...error.issues] };
  }
  return { class: error instanceof Error ? error.name : typeof error, message: String(error) };
}
