// `node scripts/with-node.mjs node scripts/generate-openapi.ts --mirror DIR...`: regenerates the
// OpenAPI v3 documents the simulator serves (simulator/discovery/openapi/data/) from upstream snapshots read
// with `git show`, one per group-version the simulator serves, descriptions stripped, with the
// sources and their commits in sources.json. DIR holds snapshots as `OWNER+NAME/repo` git
// directories (what the `fetch` tool of the sessions brings, or `git clone --bare` renamed).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
// js-yaml, not client-node's loadYaml: that one turns a CRD into its typed model, renaming
// `enum` to `_enum`.
import { load } from 'js-yaml';

const loadYaml = (text: string): Json => load(text) as Json;
import { groupVersionOf, RESOURCES } from '../simulator/discovery/resources.ts';
import type { ResourceInfo } from '../simulator/types.ts';
import { customSchemaName, customSchemas } from '../simulator/discovery/openapi/crd.ts';
import { type PathPattern, resourcePaths, rootPath } from '../simulator/discovery/openapi/paths.ts';
import { findSnapshot, list, show, type Snapshot, type Source } from './openapi/git.ts';
import { goStringMap } from './openapi/go-strings.ts';
import { KUBE, OPENSHIFT, KUBEVIRT, CDI, PROMETHEUS } from './openapi/pins.ts';
import {
  closure,
  isObject,
  type Json,
  type JsonObject,
  sortKeys,
  stripDescriptions,
  v3References,
  wrapReferences,
} from '../simulator/discovery/openapi/json.ts';

const USAGE = `usage: node scripts/with-node.mjs node scripts/generate-openapi.ts --mirror DIR... [--out DIR]
  --mirror DIR  a folder holding snapshots as OWNER+NAME/repo git directories (repeatable); needed:
                kubernetes-sigs/kubectl-validate, openshift/api, kubevirt/kubevirt,
                kubevirt/containerized-data-importer, prometheus-operator/prometheus-operator
  --out DIR     where the documents go (default simulator/discovery/openapi/data)`;

const CRD_INFO: JsonObject = { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };

const { values } = parseArgs({
  options: {
    mirror: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: 'simulator/discovery/openapi/data' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || values.mirror.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

const REPOSITORIES = [KUBE, OPENSHIFT, KUBEVIRT, CDI, PROMETHEUS].map((source) => source.repository);
const missing = REPOSITORIES.filter((repository) => {
  try {
    findSnapshot(values.mirror, repository);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  console.error(
    `generate-openapi needs a snapshot of each of: ${missing.join(', ')}\n` +
      `as a git directory DIR/OWNER+NAME/repo under a --mirror DIR (${values.mirror.join(', ')}), e.g.\n` +
      missing
        .map((r) => `  git clone --bare https://github.com/${r} DIR/${r.replace('/', '+')}/repo`)
        .join('\n'),
  );
  process.exit(1);
}

const sources: Source[] = [];
const snapshot = (repository: string): Snapshot => findSnapshot(values.mirror, repository);
const documentPath = (gv: { group: string; version: string }): string =>
  gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;

function parseJson(text: string): JsonObject {
  const value = JSON.parse(text) as Json;
  if (!isObject(value)) throw new Error('expected a JSON object');
  return value;
}

function schemasOf(document: JsonObject): JsonObject {
  const components = document.components;
  return isObject(components) && isObject(components.schemas) ? components.schemas : {};
}

/** The group-versions the simulator serves, each with its resources. */
function servedGroupVersions(): Map<string, ResourceInfo[]> {
  const out = new Map<string, ResourceInfo[]>();
  for (const resource of RESOURCES) {
    const key = documentPath(resource);
    out.set(key, [...(out.get(key) ?? []), resource]);
  }
  return out;
}

const served = servedGroupVersions();
const kubeSnapshot = snapshot(KUBE.repository);
const kubeFiles = new Set(list(kubeSnapshot, KUBE.ref, KUBE.folder));
const kubeDocuments = new Map<string, JsonObject>();
for (const path of served.keys()) {
  const file = `${KUBE.folder}/${path}.json`;
  if (kubeFiles.has(file)) kubeDocuments.set(path, parseJson(show(kubeSnapshot, KUBE.ref, file, sources)));
}

/** Every Kubernetes type the built-in documents hold: what OpenShift's and CRD documents reference. */
const kubePool = new Map<string, JsonObject>();
for (const document of kubeDocuments.values()) {
  for (const [name, schema] of Object.entries(schemasOf(document)))
    if (isObject(schema)) kubePool.set(name, schema);
}

function pattern(
  path: string,
  plural: string,
  kind: string,
  schema: string,
  namespaced: boolean,
): PathPattern {
  const document = kubeDocuments.get(path);
  if (!document || !isObject(document.paths)) throw new Error(`the Kubernetes documents lack ${path}`);
  const [, group = '', version = ''] = path.split('/');
  return { paths: document.paths, group, version, plural, kind, schema, namespaced };
}
const NAMESPACED = pattern(
  'apis/apps/v1',
  'deployments',
  'Deployment',
  'io.k8s.api.apps.v1.Deployment',
  true,
);
const CLUSTER = pattern(
  'apis/rbac.authorization.k8s.io/v1',
  'clusterroles',
  'ClusterRole',
  'io.k8s.api.rbac.v1.ClusterRole',
  false,
);
const INFO = kubeDocuments.get('api/v1')?.info ?? { title: 'Kubernetes', version: 'unversioned' };

/** The paths of a group-version's resources, each resource with the verbs the simulator gives it. */
function groupVersionPaths(resources: ResourceInfo[], schemaOf: (kind: string) => string): JsonObject {
  const first = resources[0];
  if (!first) return {};
  let paths: JsonObject = rootPath(NAMESPACED, first.group, first.version);
  for (const resource of resources.filter((r) => !r.name.includes('/'))) {
    const hasStatus = resources.some((r) => r.name === `${resource.name}/status`);
    const from = resource.namespaced ? NAMESPACED : CLUSTER;
    paths = { ...paths, ...resourcePaths(from, resource, hasStatus, schemaOf(resource.kind)) };
  }
  return paths;
}

function withGroupVersionKind(schema: JsonObject, group: string, version: string, kind: string): JsonObject {
  return { ...schema, 'x-kubernetes-group-version-kind': [{ group, kind, version }] };
}

/** A document with the schemas its paths and kinds reference, from `pool` (Kubernetes types first). */
function assemble(
  info: Json,
  paths: JsonObject,
  kinds: Map<string, JsonObject>,
  pool: Map<string, JsonObject>,
): JsonObject {
  const merged = new Map([...pool, ...kubePool, ...kinds]);
  const schemas = Object.fromEntries(closure([paths, ...kinds.values()] as Json, merged));
  for (const [name, schema] of kinds) schemas[name] = schema;
  return { components: { schemas }, info, openapi: '3.0.0', paths };
}

function openshiftPool(): Map<string, JsonObject> {
  const document = parseJson(show(snapshot(OPENSHIFT.repository), OPENSHIFT.ref, OPENSHIFT.path, sources));
  const definitions = isObject(document.definitions) ? document.definitions : {};
  const pool = new Map<string, JsonObject>();
  for (const [name, schema] of Object.entries(definitions)) {
    const converted = wrapReferences(v3References(schema));
    if (isObject(converted)) pool.set(name, converted);
  }
  return pool;
}

function openshiftDocument(resources: ResourceInfo[], pool: Map<string, JsonObject>): JsonObject {
  const { group, version } = resources[0] ?? { group: '', version: '' };
  const prefix = `com.github.openshift.api.${group.split('.')[0] ?? ''}.${version}.`;
  const schemaOf = (kind: string): string => `${prefix}${kind}`;
  const kinds = new Map<string, JsonObject>();
  for (const resource of resources) {
    for (const kind of [resource.kind, `${resource.kind}List`]) {
      const schema = pool.get(schemaOf(kind));
      if (schema) kinds.set(schemaOf(kind), withGroupVersionKind(schema, group, version, kind));
      else if (kind === resource.kind) throw new Error(`openshift/api has no ${schemaOf(kind)}`);
    }
  }
  return assemble(INFO, groupVersionPaths(resources, schemaOf), kinds, pool);
}

/** The openAPIV3Schema of each custom kind the simulator serves, by group, from its CRD source. */
function crdSchema(resource: ResourceInfo, cache: Map<string, Map<string, string>>): JsonObject {
  const load = (key: string, read: () => string): Map<string, string> => {
    const found = cache.get(key) ?? goStringMap(read());
    cache.set(key, found);
    return found;
  };
  const kind = resource.kind.toLowerCase();
  if (resource.group === 'kubevirt.io' || resource.group === 'instancetype.kubevirt.io') {
    const map = load('kubevirt', () =>
      show(snapshot(KUBEVIRT.repository), KUBEVIRT.ref, KUBEVIRT.path, sources),
    );
    return versionSchema(
      { spec: { versions: [{ name: resource.version, schema: loadYaml(map.get(kind) ?? '') }] } },
      resource,
    );
  }
  if (resource.group === 'cdi.kubevirt.io') {
    const map = load('cdi', () => show(snapshot(CDI.repository), CDI.ref, CDI.path, sources));
    return versionSchema(loadYaml(map.get(kind) ?? ''), resource);
  }
  if (resource.group === 'monitoring.coreos.com') {
    const path = `${PROMETHEUS.folder}/monitoring.coreos.com_${resource.name}.yaml`;
    return versionSchema(
      loadYaml(show(snapshot(PROMETHEUS.repository), PROMETHEUS.ref, path, sources)),
      resource,
    );
  }
  throw new Error(`no CRD source known for ${groupVersionOf(resource)} ${resource.kind}`);
}

function versionSchema(crd: Json, resource: ResourceInfo): JsonObject {
  const spec = isObject(crd) ? crd.spec : undefined;
  const versions = isObject(spec) && Array.isArray(spec.versions) ? spec.versions : [];
  const version = versions.find((v) => isObject(v) && v.name === resource.version);
  const schema = isObject(version) && isObject(version.schema) ? version.schema.openAPIV3Schema : undefined;
  if (!isObject(schema))
    throw new Error(`no openAPIV3Schema for ${groupVersionOf(resource)} ${resource.kind}`);
  return schema;
}

function customDocument(resources: ResourceInfo[], cache: Map<string, Map<string, string>>): JsonObject {
  const { group, version } = resources[0] ?? { group: '', version: '' };
  const kinds = new Map<string, JsonObject>();
  for (const resource of resources.filter((r) => !r.name.includes('/'))) {
    for (const [name, schema] of customSchemas(group, version, resource.kind, crdSchema(resource, cache)))
      kinds.set(name, schema);
  }
  const paths = groupVersionPaths(resources, (kind) => customSchemaName(group, version, kind));
  return assemble(CRD_INFO, paths, kinds, new Map());
}

function write(
  out: string,
  path: string,
  document: JsonObject,
  sort: boolean,
): { file: string; hash: string; bytes: number } {
  const stripped = stripDescriptions(document);
  const text = JSON.stringify(sort ? sortKeys(stripped) : stripped);
  const file = `${path.replaceAll('/', '_')}.json.gz`;
  const compressed = gzipSync(text, { level: 9 });
  writeFileSync(join(out, file), compressed);
  return { file, hash: createHash('sha512').update(text).digest('hex').toUpperCase(), bytes: text.length };
}

mkdirSync(values.out, { recursive: true });
for (const old of readdirSync(values.out)) if (old.endsWith('.json.gz')) rmSync(join(values.out, old));
const openshift = openshiftPool();
const crdCache = new Map<string, Map<string, string>>();
const index: Record<string, { file: string; hash: string }> = {};
for (const [path, resources] of served) {
  const kube = kubeDocuments.get(path);
  const group = resources[0]?.group ?? '';
  const document =
    kube ??
    (group.endsWith('.openshift.io')
      ? openshiftDocument(resources, openshift)
      : customDocument(resources, crdCache));
  const { file, hash, bytes } = write(values.out, path, document, kube === undefined);
  index[path] = { file, hash };
  console.log(`${path}: ${bytes} bytes of JSON`);
}
writeFileSync(join(values.out, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
writeFileSync(join(values.out, 'sources.json'), `${JSON.stringify(sources, null, 2)}\n`);
