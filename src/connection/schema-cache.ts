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
  const key = keyOf(server, url);
  const schema = tables.get(key);
  if (schema !== undefined) {
    tables.delete(key);
    tables.set(key, schema);
  }
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
 *
 * @example
 * ```ts
 * const held = heldDocuments('https://api.example:6443', '/openapi/v3/api/v1', 8); // hash → document
 * ```
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
  while (tables.size > SCHEMA_CACHE_LIMIT) {
    const oldest = tables.keys().next();
    if (oldest.done === true) break;
    tables.delete(oldest.value);
  }
}

/** Another Connection's download in flight: its table, or `undefined` for the caller to ask itself. */
export function downloadInFlight(
  server: string,
  url: string,
): Promise<GroupVersionSchema | undefined> | undefined {
  return downloads.get(keyOf(server, url));
}

/** Offers a download to the other Connections until it settles. */
export function shareDownload(
  server: string,
  url: string,
  download: Promise<GroupVersionSchema | string>,
): void {
  const key = keyOf(server, url);
  const shared = download.then(
    (answer) => (typeof answer === 'string' ? undefined : answer),
    () => undefined,
  );
  downloads.set(key, shared);
  void shared.then(() => {
    if (downloads.get(key) === shared) downloads.delete(key);
  });
}
