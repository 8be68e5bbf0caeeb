// `GET /openapi/v3` and `GET /openapi/v3/<group-version>` as kube-apiserver answers them. In front
// is kube-aggregator's spec proxier (kubernetes/kube-aggregator pkg/controllers/openapiv3/aggregator,
// aggregator.go): handleDiscovery merges every APIService's root and serves it by
// http.ServeContent with time.Now() and no ETag; handleGroupVersion answers a bare 404 for a
// group-version no APIService lists and hands the others to their server's handler, for
// kube-apiserver's own k8s.io/kube-openapi pkg/handler3/handler.go (HandleGroupVersion, through
// ServeContent, which answers If-None-Match with 304). In aggregated mode the simulator is
// openshift-apiserver behind that aggregator, and serves its own root by handler3.
import type { IncomingHttpHeaders } from 'node:http';
import { contentHash, type OpenApiDocuments } from './documents.ts';

/** What the server sends: status, content type ('' for none), body and headers. */
export interface OpenApiAnswer {
  code: number;
  type: string;
  text: string;
  headers: Record<string, string>;
}

const ROOT = '/openapi/v3';
/** The JSON media types handler3 matches; protobuf is not served here (406, see docs/api-notes.md). */
const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);

/** `/openapi/v3/apis/apps/v1?hash=H`, as constructServerRelativeURL builds it. */
function serverRelativeUrl(path: string, hash: string): string {
  return `${ROOT}/${path}?hash=${hash}`;
}

/** A year from now in Go's time.RFC1123 (zone UTC), as handler3 writes Expires. */
function aYearFromNow(): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.toUTCString().replace(/GMT$/, 'UTC');
}

/** Whether the client takes JSON: an Accept clause matching application/json with q above 0. */
function acceptsJson(accept: string | undefined): boolean {
  const clauses = (accept === undefined || accept.trim() === '' ? '*/*' : accept).split(',');
  return clauses.some((clause) => {
    const [type = '', ...parameters] = clause.split(';').map((part) => part.trim().toLowerCase());
    const refused = parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
    return JSON_TYPES.has(type) && !refused;
  });
}

/** ServeContent's If-None-Match: `*`, or any listed tag equal to ours (weak comparison). */
function notModified(headers: IncomingHttpHeaders, etag: string): boolean {
  const wanted = headers['if-none-match'];
  if (wanted === undefined) return false;
  return wanted.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function serve(
  text: string,
  etag: string,
  lastModified: Date,
  headers: IncomingHttpHeaders,
  extra: Record<string, string>,
): OpenApiAnswer {
  const common = { ETag: etag, ...extra };
  if (notModified(headers, etag)) return { code: 304, type: '', text: '', headers: common };
  return {
    code: 200,
    type: 'application/json',
    text,
    headers: { ...common, 'Last-Modified': lastModified.toUTCString(), 'Accept-Ranges': 'bytes' },
  };
}

/**
 * ServeContent's preconditions without an ETag: `If-None-Match: *` matches any answer, a tag
 * matches none, and only without If-None-Match is If-Modified-Since read (304 when the modtime,
 * truncated to the second, is not after it).
 */
function rootNotModified(headers: IncomingHttpHeaders, now: Date): boolean {
  const wanted = headers['if-none-match'];
  if (wanted !== undefined) return wanted.split(',').some((tag) => tag.trim() === '*');
  const since = Date.parse(headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && Math.floor(now.getTime() / 1000) * 1000 <= since;
}

/**
 * The merged root: no Content-Type of its own, so ServeContent sniffs the JSON as text; a
 * Last-Modified of the moment and no ETag, so a client can only read it whole again. An aggregated
 * server (openshift-apiserver) serves its own root by handler3: JSON with an ETag.
 */
function root(documents: OpenApiDocuments, headers: IncomingHttpHeaders): OpenApiAnswer {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  if (documents.restricted) {
    for (const path of documents.paths()) {
      const hash = documents.hash(path);
      if (hash !== undefined) paths[path] = { serverRelativeURL: serverRelativeUrl(path, hash) };
    }
    const text = JSON.stringify({ paths });
    return serve(text, `"${contentHash(text)}"`, documents.lastChange(), headers, {});
  }
  for (const [path, hash] of documents.listed())
    paths[path] = { serverRelativeURL: serverRelativeUrl(path, hash) };
  const now = new Date();
  if (rootNotModified(headers, now)) return { code: 304, type: '', text: '', headers: {} };
  return {
    code: 200,
    type: 'text/plain; charset=utf-8',
    text: JSON.stringify({ paths }),
    headers: { 'Last-Modified': now.toUTCString(), 'Accept-Ranges': 'bytes' },
  };
}

function groupVersion(
  documents: OpenApiDocuments,
  path: string,
  url: URL,
  headers: IncomingHttpHeaders,
): OpenApiAnswer {
  const document = documents.document(path);
  // The aggregator's handleGroupVersion, before any handler3: w.WriteHeader(404), no body, for a
  // group-version its merged root does not list (yet, or any more).
  if (!documents.restricted && !documents.listed().has(path))
    return { code: 404, type: '', text: '', headers: {} };
  const vary = { Vary: 'Accept' };
  if (!acceptsJson(headers.accept)) return { code: 406, type: '', text: '', headers: vary };
  // handler3 returns without writing for a group-version it does not know: an empty 200.
  if (!document) return { code: 200, type: '', text: '', headers: vary };
  const etag = `"${document.hash}"`;
  const hash = url.searchParams.get('hash') ?? '';
  if (hash !== '' && hash !== document.hash) {
    // http.Redirect after Content-Type was set: the Location and no body.
    const location = serverRelativeUrl(path, document.hash);
    return {
      code: 301,
      type: 'application/json',
      text: '',
      headers: { ...vary, ETag: etag, Location: location },
    };
  }
  const cache = hash === '' ? {} : { 'Cache-Control': 'public, immutable', Expires: aYearFromNow() };
  return serve(document.text, etag, document.lastModified, headers, { ...vary, ...cache });
}

/** The answer to a request under /openapi/v3, or undefined for any other path (or a server without it). */
export function answerOpenApi(
  documents: OpenApiDocuments | undefined,
  method: string,
  url: URL,
  headers: IncomingHttpHeaders,
): OpenApiAnswer | undefined {
  if (!documents || method !== 'GET') return undefined;
  const path = url.pathname;
  if (path === ROOT) return root(documents, headers);
  if (!path.startsWith(`${ROOT}/`)) return undefined;
  return groupVersion(documents, path.slice(ROOT.length + 1), url, headers);
}
