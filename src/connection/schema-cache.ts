// The compact type tables of the OpenAPI v3 documents create() types with, shared by every
// Connection of the process: a handler that connects per job does not download them again. This
// is the library's one module-level state besides the lazily loaded client-node module. A
// document's URL carries its content hash (kube-openapi handler3's `?hash=`), so an entry never
// goes stale: a changed document has a new URL. The bound keeps a process that talks to many
// clusters, or to one across many upgrades, from growing without end.
import type { GroupVersionSchema } from '../schema/index.ts';

/** Documents kept at most; the least recently used goes first. */
export const SCHEMA_CACHE_LIMIT = 64;

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

/**
 * The URL of the server's document for `path` (`/openapi/v3/apis/apps/v1`) used most recently,
 * under whichever hash: the one to revalidate a read of the path without a hash by.
 *
 * @example
 * ```ts
 * const url = lastUsedUrl('https://api.example:6443', '/openapi/v3/api/v1'); // '/openapi/v3/api/v1?hash=…'
 * ```
 */
export function lastUsedUrl(server: string, path: string): string | undefined {
  const prefix = keyOf(server, `${path}?hash=`);
  let found: string | undefined;
  // Oldest first: the last match is the most recently used.
  for (const key of tables.keys()) if (key.startsWith(prefix)) found = key;
  return found?.slice(keyOf(server, '').length);
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

/**
 * Another Connection's download of the document, while it is in flight: its table, or `undefined`
 * when it failed or found no document, for the caller's own request to decide (its credentials,
 * its limits, its error).
 */
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

/** How many documents are cached (tests and benchmarks). */
export function cachedSchemaCount(): number {
  return tables.size;
}

/** Empties the cache (tests and benchmarks that measure a first download). */
export function forgetSchemas(): void {
  tables.clear();
  downloads.clear();
}
