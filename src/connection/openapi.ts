// The server's schemas create() types with: the OpenAPI v3 root, kept per Connection and read
// again at a bounded age or after an apply refused as untyped, and one hash-addressed document per
// group-version, kept as a compact table in schema-cache.ts. After such a refusal the document is
// read by its path without a hash (what the server holds now), conditional on those held.
// The server side is in docs/wire-reference.md.
import { debuglog } from 'node:util';
import { RequestError } from '../errors.ts';
import { TYPED_PATCH_REFUSAL } from './failures.ts';
import { compactTypes, type GroupVersionSchema } from '../schema/index.ts';
import { isRecord } from '../util/json.ts';
import { type ApiRequest, type ApiResponse, unlessNotFound } from './requests.ts';
import { cachedSchema, heldDocuments, rememberSchema, sharedDownload } from './schema-cache.ts';
import { type CallerWait, SharedAnswers } from './shared-answers.ts';
import type { WarningRoute } from './warnings.ts';
import type { Throttling } from './retry.ts';

const debug = debuglog('openshift-templates');

const OPENAPI_ROOT = '/openapi/v3';

/**
 * How long a Connection types with the root it read before it reads it again: the merged root has
 * no ETag, so a check costs a full GET; once a minute bounds that and how long a dropped field goes unseen.
 */
export const ROOT_MAX_AGE_MS = 60_000;

/**
 * Whether the server refused an apply because its body does not type against the schema it holds
 * now: the root a Connection types with may be older than that schema.
 */
export function refusedAsUntyped(code: number, body: unknown): boolean {
  return (
    code === 500 &&
    isRecord(body) &&
    typeof body.message === 'string' &&
    body.message.startsWith(TYPED_PATCH_REFUSAL)
  );
}

/** apiextensions-apiserver's title for the documents of CRD-served group-versions. */
const CRD_TITLE = 'Kubernetes CRD Swagger';

/** Document URL per root path (`apis/apps/v1`); `undefined` when the server has no /openapi/v3. */
type Root = ReadonlyMap<string, string> | undefined;

/** Why a group-version could not be typed. */
export type MissingSchema = 'unpublished' | 'unlisted' | 'unreadable';

/** A group-version's schema, or why there is none (`answer`: what the document's URL answered). */
export type SchemaLookup =
  { schema: GroupVersionSchema; url: string } | { missing: MissingSchema; answer?: string };

/** Documents remembered as missing, or read directly, per Connection, at most. */
const ABSENT_LIMIT = 256;

/** `api/v1` or `apis/GROUP/VERSION`: a group-version's key in the root. */
export function rootPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
}

/** The root key of an API request's path: `/apis/apps/v1/namespaces/a/deployments/b` → `apis/apps/v1`. */
function rootPathOfRequest(path: string): string | undefined {
  const [, prefix, group, version] = path.split('/');
  if (prefix === 'api' && group) return `api/${group}`;
  return prefix === 'apis' && group && version ? `apis/${group}/${version}` : undefined;
}

/** The hash a document is addressed by (`?hash=`), which is also its ETag. */
function hashOfEtag(etag: string | undefined): string | undefined {
  return /^"([0-9A-F]+)"$/.exec(etag ?? '')?.[1];
}

/** A group-version's document as its server answered it by the path without a hash. */
interface Latest {
  schema: GroupVersionSchema;
  url: string;
  readAt: number;
}

function parseRoot(body: unknown): Map<string, string> {
  const paths = isRecord(body) && isRecord(body.paths) ? body.paths : {};
  const urls = new Map<string, string>();
  for (const [path, entry] of Object.entries(paths)) {
    const url = isRecord(entry) ? entry.serverRelativeURL : undefined;
    if (typeof url === 'string' && url.startsWith('/')) urls.set(path, url);
  }
  return urls;
}

/** The group-version a document URL is for: `/openapi/v3/apis/apps/v1?hash=H` → `apps/v1`. */
function apiVersionOf(url: string): string {
  const path = splitUrl(url).path.slice(OPENAPI_ROOT.length + 1);
  return path.startsWith('apis/') ? path.slice('apis/'.length) : path.replace(/^api\//, '');
}

/** A server-relative URL as a request's path and query. */
function splitUrl(url: string): { path: string; query: Record<string, string> } {
  const parsed = new URL(url, 'https://server.invalid');
  return { path: parsed.pathname, query: Object.fromEntries(parsed.searchParams) };
}

/** What an answer that means "no such document here" was: a 404, a stale hash's 301. */
function absentAnswer(error: unknown): string | undefined {
  if (!(error instanceof RequestError)) return undefined;
  if (error.statusCode === 404) return '404 Not Found';
  return error.statusCode === 301 ? '301 (its hash is out of date)' : undefined;
}

/** A conditional read's answer: one of the documents held is the server's current one. */
const NOT_MODIFIED = '304 Not Modified';
/** Documents held that a direct read is conditional on, at most: an If-None-Match of about 1 kB. */
const HELD_LIMIT = 8;

export class OpenApiSchemas {
  readonly #server: string;
  readonly #request: (request: ApiRequest) => Promise<ApiResponse>;
  readonly #root: SharedAnswers<Root>;
  readonly #documents: SharedAnswers<GroupVersionSchema | string>;
  /** Document URLs that answered "none", with what they answered, until the root is read again. */
  readonly #absent = new Map<string, string>();
  /** What was said once per Connection: group-versions applied without typing. */
  readonly #told = new Set<string>();
  /** Group-versions the server refused an apply of as untyped: the next lookup reads them directly. */
  readonly #refused = new Set<string>();
  /** Documents read directly after a refusal, per root key, until a root lists them or ROOT_MAX_AGE_MS passes. */
  readonly #latest = new Map<string, Latest>();
  readonly #reads: SharedAnswers<Latest | string>;

  readonly #multiplexed: () => boolean;

  constructor(
    server: string,
    request: (request: ApiRequest) => Promise<ApiResponse>,
    multiplexed: () => boolean,
  ) {
    this.#server = server;
    this.#request = request;
    this.#multiplexed = multiplexed;
    this.#root = new SharedAnswers('Schema', (_key, route, t) => this.#fetchRoot(route, t));
    // Only requests in flight are shared here: the tables live in the process-wide cache.
    this.#documents = new SharedAnswers('Schema', (url, route) => this.#fetchDocument(url, route), {
      keep: false,
      target: apiVersionOf,
    });
    this.#reads = new SharedAnswers('Schema', (key, route) => this.#readLatest(key, route), {
      keep: false,
      target: (key) => apiVersionOf(`${OPENAPI_ROOT}/${key}`),
    });
  }

  /** The schema of each group-version; `fresh` reads the root again unless it was read moments ago. */
  async lookup(
    apiVersions: readonly string[],
    fresh: boolean,
    wait: CallerWait,
    route: WarningRoute,
  ): Promise<Map<string, SchemaLookup>> {
    const root = await this.#currentRoot(fresh, wait, route);
    const one = async (apiVersion: string): Promise<[string, SchemaLookup]> => {
      const key = rootPath(apiVersion);
      const latest = await this.#latestFor(key, root?.get(key), wait, route);
      if (latest !== undefined) return [apiVersion, { schema: latest.schema, url: latest.url }];
      if (root === undefined) return [apiVersion, { missing: 'unpublished' }];
      const url = root.get(key);
      if (url === undefined) return [apiVersion, { missing: 'unlisted' }];
      const absent = this.#absent.get(url);
      if (absent !== undefined) return [apiVersion, { missing: 'unreadable', answer: absent }];
      const schema = cachedSchema(this.#server, url) ?? (await this.#documents.get(url, wait, route));
      if (typeof schema !== 'string') return [apiVersion, { schema, url }];
      if (this.#absent.size >= ABSENT_LIMIT) this.#absent.clear();
      this.#absent.set(url, schema);
      return [apiVersion, { missing: 'unreadable', answer: schema }];
    };
    // One after another over HTTP/1.1, where each parallel request would cost a new TLS handshake.
    if (this.#multiplexed()) return new Map(await Promise.all(apiVersions.map(one)));
    const found: [string, SchemaLookup][] = [];
    for (const apiVersion of apiVersions) found.push(await one(apiVersion));
    return new Map(found);
  }

  /**
   * The server refused an apply to `path` as untyped: the next create reads the root again and that
   * document by its path, once, as the merged root may still list the stale one.
   */
  untypedRefusal(path: string): void {
    this.#root.expire(OPENAPI_ROOT);
    const key = rootPathOfRequest(path);
    if (key !== undefined) this.#refused.add(key);
  }

  /** The directly read document to type with instead of the root's `listed` one, if any. */
  async #latestFor(
    key: string,
    listed: string | undefined,
    wait: CallerWait,
    route: WarningRoute,
  ): Promise<Latest | undefined> {
    // The mark stays until the read settles: creates that look meanwhile share that one read.
    if (this.#refused.has(key)) {
      try {
        const read = await this.#reads.get(key, wait, route);
        if (typeof read !== 'string') {
          if (this.#latest.size >= ABSENT_LIMIT) this.#latest.clear();
          this.#latest.set(key, read);
        } else debug('Schema: %s read directly answered %s; the root decides', key, read);
      } catch (error) {
        if (wait.signal?.aborted || (error instanceof RequestError && error.code === 'OTC_CONNECTION_CLOSED'))
          throw error;
        debug('Schema: %s could not be read directly, so the root decides: %s', key, String(error));
      } finally {
        this.#refused.delete(key);
      }
    }
    const latest = this.#latest.get(key);
    if (latest === undefined) return undefined;
    // Caught up (the cache holds the same table under that URL), or old enough for any root to have.
    if (listed === latest.url || performance.now() - latest.readAt >= ROOT_MAX_AGE_MS) {
      this.#latest.delete(key);
      return undefined;
    }
    return latest;
  }

  /** The root to type with; where reading it again fails the held one stands (the server types applies anyway). */
  async #currentRoot(fresh: boolean, wait: CallerWait, route: WarningRoute): Promise<Root> {
    if (fresh) return this.#root.refresh(OPENAPI_ROOT, wait, route);
    if (!this.#root.due(OPENAPI_ROOT, ROOT_MAX_AGE_MS)) return this.#root.get(OPENAPI_ROOT, wait, route);
    try {
      return await this.#root.refresh(OPENAPI_ROOT, wait, route);
    } catch (error) {
      // Only a failed read puts the old root back; a caller's own limit or signal ends the wait.
      const closed = error instanceof RequestError && error.code === 'OTC_CONNECTION_CLOSED';
      if (closed || wait.signal?.aborted || !this.#root.due(OPENAPI_ROOT, ROOT_MAX_AGE_MS)) throw error;
      debug('Schema: the OpenAPI v3 root could not be read again, so the one held stands: %s', String(error));
      return this.#root.get(OPENAPI_ROOT, wait, route);
    }
  }

  /** True the first time a key is told on this Connection: the once-per-Connection warnings. */
  firstTime(key: string): boolean {
    if (this.#told.has(key)) return false;
    this.#told.add(key);
    return true;
  }

  async #fetchRoot(route: WarningRoute | undefined, throttling: Throttling): Promise<Root> {
    const root = { method: 'GET', path: OPENAPI_ROOT, step: 'Schema', target: OPENAPI_ROOT } as const;
    const answer = await unlessNotFound(this.#request({ ...root, warnings: route, throttling }));
    if (answer === undefined) return undefined;
    // A root read again may list a document again that answered "none" before.
    this.#absent.clear();
    return parseRoot(answer.body);
  }

  /** Only a hash-addressed URL always answers the same, so only its table is cached and its download shared. */
  async #fetchDocument(url: string, route: WarningRoute | undefined): Promise<GroupVersionSchema | string> {
    const download = async (): Promise<GroupVersionSchema | string> =>
      (await this.#download(url, route)).answer;
    return splitUrl(url).query.hash ? sharedDownload(this.#server, url, download) : download();
  }

  /**
   * A document by its path without a hash: what the server holds now, its hash in the ETag; cached
   * under its hash URL. Conditional on the documents held: a 304 names the current one in its ETag.
   */
  async #readLatest(key: string, route: WarningRoute | undefined): Promise<Latest | string> {
    const path = `${OPENAPI_ROOT}/${key}`;
    const held = heldDocuments(this.#server, path, HELD_LIMIT);
    const tags = [...held.keys()].map((hash) => `"${hash}"`).join(', ');
    const { answer, etag } = await this.#download(path, route, tags === '' ? undefined : tags);
    if (answer === NOT_MODIFIED) {
      const current = held.get(hashOfEtag(etag) ?? '');
      if (current === undefined) return 'a 304 naming none of the documents held';
      cachedSchema(this.#server, current.url);
      return { ...current, readAt: performance.now() };
    }
    if (typeof answer === 'string') return answer;
    const hash = hashOfEtag(etag);
    const url = hash === undefined ? path : `${path}?hash=${hash}`;
    if (hash !== undefined) rememberSchema(this.#server, url, answer);
    return { schema: answer, url, readAt: performance.now() };
  }

  async #download(
    url: string,
    route: WarningRoute | undefined,
    ifNoneMatch?: string,
  ): Promise<{ answer: GroupVersionSchema | string; etag?: string | undefined }> {
    const { path, query } = splitUrl(url);
    let body: unknown;
    let etag: string | undefined;
    let code: number;
    try {
      const target = apiVersionOf(url);
      // emptyAnswerOk: a group-version the server does not know is an empty 200.
      const request = { method: 'GET', path, query, step: 'Schema', target, emptyAnswerOk: true } as const;
      ({ body, etag, code } = await this.#request({ ...request, warnings: route, ifNoneMatch }));
    } catch (error) {
      const answer = absentAnswer(error);
      if (answer !== undefined) return { answer };
      throw error;
    }
    if (code === 304) return { answer: NOT_MODIFIED, etag };
    if (!isRecord(body)) return { answer: 'an empty 200' };
    const info = isRecord(body.info) ? body.info : {};
    return { answer: { table: compactTypes(body), builtIn: info.title !== CRD_TITLE }, etag };
  }
}
