// The OpenAPI v3 documents the simulator publishes, one per group-version: read from data/ (made by
// scripts/generate-openapi.ts) on first use, and rebuilt for a group-version a kind is added to.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ResourceInfo } from '../../types.ts';
import { customSchemaName, customSchemas } from './crd.ts';
import { closure, isObject, type Json, type JsonObject } from './json.ts';
import { type PathPattern, resourcePaths, rootPath } from './paths.ts';

const DATA = new URL('./data/', import.meta.url);
/** The built-in resource whose paths stand as the pattern for an added kind's (see paths.ts). */
const PATTERNS = {
  namespaced: {
    path: 'apis/apps/v1',
    plural: 'deployments',
    kind: 'Deployment',
    schema: 'io.k8s.api.apps.v1.Deployment',
  },
  cluster: {
    path: 'apis/rbac.authorization.k8s.io/v1',
    plural: 'clusterroles',
    kind: 'ClusterRole',
    schema: 'io.k8s.api.rbac.v1.ClusterRole',
  },
};
const CRD_INFO: JsonObject = { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };

/** A document as served: its JSON text and the uppercase hex SHA-512 of it (handler3 computeETag). */
export interface Published {
  text: string;
  hash: string;
  lastModified: Date;
}

/** `api/v1` or `apis/GROUP/VERSION`: the document's key in the root and its URL under /openapi/v3/. */
export function documentPath(gv: Pick<ResourceInfo, 'group' | 'version'>): string {
  return gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}

/** handler3's computeETag: the uppercase hex SHA-512 of the bytes served. */
export function contentHash(text: string): string {
  return createHash('sha512').update(text).digest('hex').toUpperCase();
}

function parse(text: string): JsonObject {
  const value = JSON.parse(text) as Json;
  if (!isObject(value)) throw new Error('an OpenAPI document is a JSON object');
  return value;
}

/** One kind added at run time, with the CRD version's openAPIV3Schema it was given. */
interface Added {
  resources: ResourceInfo[];
  schema: JsonObject;
}

export class OpenApiDocuments {
  readonly #started = new Date();
  #changed = this.#started;
  #index: Map<string, { file: string; hash: string }> | undefined;
  readonly #texts = new Map<string, string>();
  readonly #added = new Map<string, Added[]>();
  readonly #rebuilt = new Map<string, Published>();
  #only: ReadonlySet<string> | undefined;
  /**
   * How long kube-aggregator's merged root may list what its servers published earlier: it
   * re-reads each server's root on a schedule (kube-aggregator pkg/controllers/openapiv3,
   * controller.go: every second for kube-apiserver's own, CRDs included, every minute for an
   * aggregated server), while each document is served by its server at once. 0: no lag.
   */
  rootLagMs = 0;
  #merged: { at: number; hashes: Map<string, string> } | undefined;

  /**
   * Publish only these group-versions (an aggregated server's own): the root lists no other and
   * their documents answer 404; the simulator then types only bodies of these group-versions.
   */
  restrictTo(paths: ReadonlySet<string>): void {
    this.#only = paths;
  }

  /**
   * Whether these are an aggregated server's own documents, served by its own handler3 (its root
   * with an ETag), not kube-apiserver's merged root behind the aggregator.
   */
  get restricted(): boolean {
    return this.#only !== undefined;
  }

  /** When the set of documents last changed: handler3's root's Last-Modified. */
  lastChange(): Date {
    return this.#changed;
  }

  /** The generated index (paths → file and hash): read once, on the first request that needs it. */
  #entries(): Map<string, { file: string; hash: string }> {
    this.#index ??= new Map(
      Object.entries(
        JSON.parse(readFileSync(new URL('index.json', DATA), 'utf8')) as Record<
          string,
          { file: string; hash: string }
        >,
      ),
    );
    return this.#index;
  }

  #generated(path: string): string | undefined {
    const entry = this.#entries().get(path);
    if (!entry) return undefined;
    let text = this.#texts.get(path);
    if (text === undefined) {
      text = gunzipSync(readFileSync(new URL(entry.file, DATA))).toString('utf8');
      this.#texts.set(path, text);
    }
    return text;
  }

  /** Every group-version with a document, in the order the root lists them (sorted, as Go does). */
  paths(): string[] {
    const all = [...new Set([...this.#entries().keys(), ...this.#added.keys()])];
    return all.filter((path) => this.#only?.has(path) ?? true).sort();
  }

  /**
   * What the aggregator's merged root lists (path → hash), and which group-versions its
   * handleGroupVersion hands to their server: what was published when it last re-read the roots,
   * at most `rootLagMs` ago. Re-read at the first look after that, which a schedule would have done
   * by then.
   */
  listed(): ReadonlyMap<string, string> {
    const now = Date.now();
    if (this.rootLagMs > 0 && this.#merged && now - this.#merged.at < this.rootLagMs)
      return this.#merged.hashes;
    const hashes = new Map<string, string>();
    for (const path of this.paths()) {
      const hash = this.hash(path);
      if (hash !== undefined) hashes.set(path, hash);
    }
    this.#merged = { at: now, hashes };
    return hashes;
  }

  /** The hash a document is published under, without reading the document when it is generated data. */
  hash(path: string): string | undefined {
    return this.#rebuilt.get(path)?.hash ?? this.#entries().get(path)?.hash;
  }

  document(path: string): Published | undefined {
    if (this.#only && !this.#only.has(path)) return undefined;
    const rebuilt = this.#rebuilt.get(path);
    if (rebuilt) return rebuilt;
    const text = this.#generated(path);
    const hash = this.#entries().get(path)?.hash;
    return text === undefined || hash === undefined ? undefined : { text, hash, lastModified: this.#started };
  }

  /**
   * Publishes a kind added at run time the way apiextensions-apiserver publishes a CRD's version:
   * its schema and List beside the group-version's others, its paths, a new hash.
   */
  add(resources: ResourceInfo[], schema: JsonObject): void {
    const main = resources.find((r) => !r.name.includes('/'));
    if (!main) throw new Error('an added kind needs its resource');
    const path = documentPath(main);
    this.#added.set(path, [...(this.#added.get(path) ?? []), { resources, schema }]);
    this.#rebuild(path);
  }

  /**
   * A CRD version's schema changed (a field added or dropped): the kind added earlier is published
   * with the new schema, under a new hash, as apiextensions-apiserver republishes it.
   */
  change(main: ResourceInfo, schema: JsonObject): void {
    const path = documentPath(main);
    const added = this.#added.get(path) ?? [];
    const index = added.findIndex((a) => a.resources.some((r) => r.kind === main.kind));
    const entry = added[index];
    if (entry === undefined) throw new Error(`${main.kind} was not added at run time`);
    added[index] = { resources: entry.resources, schema };
    this.#rebuild(path);
  }

  #rebuild(path: string): void {
    const text = JSON.stringify(this.#build(path));
    this.#changed = new Date();
    this.#rebuilt.set(path, { text, hash: contentHash(text), lastModified: this.#changed });
  }

  #pattern(namespaced: boolean): PathPattern {
    const chosen = namespaced ? PATTERNS.namespaced : PATTERNS.cluster;
    const document = parse(this.#generated(chosen.path) ?? '{}');
    const [, group = '', version = ''] = chosen.path.split('/');
    const paths = isObject(document.paths) ? document.paths : {};
    return { ...chosen, paths, group, version, namespaced };
  }

  #build(path: string): JsonObject {
    const generated = this.#generated(path);
    const base = generated === undefined ? undefined : parse(generated);
    const baseSchemas =
      isObject(base?.components) && isObject(base.components.schemas) ? base.components.schemas : {};
    let paths: JsonObject = isObject(base?.paths) ? base.paths : {};
    const kinds = new Map<string, JsonObject>();
    for (const { resources, schema } of this.#added.get(path) ?? []) {
      const main = resources.find((r) => !r.name.includes('/'));
      if (!main) continue;
      const pattern = this.#pattern(main.namespaced);
      if (base === undefined && Object.keys(paths).length === 0)
        paths = rootPath(pattern, main.group, main.version);
      const name = customSchemaName(main.group, main.version, main.kind);
      const hasStatus = resources.some((r) => r.name === `${main.name}/status`);
      paths = { ...paths, ...resourcePaths(pattern, main, hasStatus, name) };
      for (const [kind, built] of customSchemas(main.group, main.version, main.kind, schema))
        kinds.set(kind, built);
    }
    const patternSchemas = parse(this.#generated(PATTERNS.namespaced.path) ?? '{}').components;
    const pool = new Map<string, JsonObject>();
    for (const source of [isObject(patternSchemas) ? patternSchemas.schemas : {}, baseSchemas]) {
      if (isObject(source))
        for (const [name, s] of Object.entries(source)) if (isObject(s)) pool.set(name, s);
    }
    for (const [name, s] of kinds) pool.set(name, s);
    const schemas = Object.fromEntries(closure([paths, baseSchemas, ...kinds.values()] as Json, pool));
    Object.assign(schemas, baseSchemas, Object.fromEntries(kinds));
    return { components: { schemas }, info: base?.info ?? CRD_INFO, openapi: '3.0.0', paths };
  }
}
