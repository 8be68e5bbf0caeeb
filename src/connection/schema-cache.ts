// The compact type tables create() types with, shared by every Connection of the process (a
// handler connecting per job downloads them once): the one module-level state. Keyed by
// hash-addressed URL, an entry never goes stale; the bound keeps many clusters from growing it.
import type { GroupVersionSchema } from '../schema/index.ts';

/** Documents kept at most; the least recently used goes first. */
const SCHEMA_CACHE_LIMIT = 64;

const tables = new Map<string, GroupVersionSchema>();
/** Downloads in flight, so that Connections opened at once (a burst of first jobs) share one. */
const downloads = new Map<string, Promise<GroupVersionSchema | undefined>>();

function keyOf(server: string, url: string): string {
  return `${server}\n${url}`;
}

/** The table for a server's hash-addressed document URL, if cached; marks it recently used. */
export function cachedSchema(server: string, url: string): GroupVersionSchema | undefined {
  const schema = tables.get(keyOf(server, url));
  if (schema !== undefined) rememberSchema(server, url, schema);
  return schema;
}

/** A cached document as a direct read of its path revalidates it. */
interface HeldDocument {
  url: string;
  schema: GroupVersionSchema;
}

/**
 * The server's cached documents for `path` (`/openapi/v3/apis/apps/v1`) by the hash in their URL,
 * the most recently used first, at most `limit`; without marking them used.
 */
export function heldDocuments(server: string, path: string, limit: number): Map<string, HeldDocument> {
  const prefix = keyOf(server, `${path}?hash=`);
  const found: [string, HeldDocument][] = [];
  for (const [key, schema] of tables)
    if (key.startsWith(prefix))
      found.push([key.slice(prefix.length), { url: key.slice(server.length + 1), schema }]);
  return new Map(found.reverse().slice(0, limit));
}

export function rememberSchema(server: string, url: string, schema: GroupVersionSchema): void {
  const key = keyOf(server, url);
  tables.delete(key);
  tables.set(key, schema);
  // Map keys iterate in insertion order: the least recently used first.
  for (const oldest of tables.keys()) {
    if (tables.size <= SCHEMA_CACHE_LIMIT) break;
    tables.delete(oldest);
  }
}

/**
 * A hash-addressed document's table: another Connection's download in flight, else `download`'s,
 * cached before any waiter resumes and shared until it settles; where the shared one fails, the
 * caller asks itself. No await when nothing is in flight, or a second Connection would start its own.
 */
export async function sharedDownload(
  server: string,
  url: string,
  download: () => Promise<GroupVersionSchema | string>,
): Promise<GroupVersionSchema | string> {
  const key = keyOf(server, url);
  const other = downloads.get(key);
  const shared = other && (await other);
  if (shared !== undefined) return shared;
  const mine = download().then((answer) => {
    if (typeof answer !== 'string') rememberSchema(server, url, answer);
    return answer;
  });
  const offered = mine.then(
    (answer) => (typeof answer === 'string' ? undefined : answer),
    () => undefined,
  );
  downloads.set(key, offered);
  void offered.then(() => {
    if (downloads.get(key) === offered) downloads.delete(key);
  });
  return mine;
}
