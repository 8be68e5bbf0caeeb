// `node scripts/with-node.mjs node scripts/generate-crds.ts --mirror DIR...`: regenerates the
// CustomResourceDefinitions the real control plane of `npm run cluster` is given
// (test/cluster/data/crds.json.gz), one per custom kind the simulator serves, from the same pinned
// upstream sources as the simulator's OpenAPI documents (scripts/generate-openapi.ts), descriptions
// stripped, with the sources and their commits in test/cluster/data/sources.json.
//
// CDI and prometheus-operator publish whole CRDs: they are kept as published. KubeVirt generates
// its CRDs in Go (pkg/virt-operator/resource/generate/components/crds.go) from the schemas in
// validations_generated.go: here the schema is the published one and the rest of the CRD (names,
// scope, the status subresource) is what the simulator's resource table says, for the one version
// the simulator serves.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
// js-yaml, not client-node's loadYaml: that one turns a CRD into its typed model, renaming
// `enum` to `_enum`.
import { load } from 'js-yaml';

const loadYaml = (text: string): Json => load(text) as Json;
import { RESOURCES } from '../simulator/discovery/resources.ts';
import {
  isObject,
  type Json,
  type JsonObject,
  stripDescriptions,
} from '../simulator/discovery/openapi/json.ts';
import type { ResourceInfo } from '../simulator/types.ts';
import { findSnapshot, show, type Source } from './openapi/git.ts';
import { goStringMap } from './openapi/go-strings.ts';
import { KUBEVIRT, CDI, PROMETHEUS } from './openapi/pins.ts';

const USAGE = `usage: node scripts/with-node.mjs node scripts/generate-crds.ts --mirror DIR... [--out DIR]
  --mirror DIR  a folder holding snapshots as OWNER+NAME/repo git directories (repeatable); needed:
                kubevirt/kubevirt, kubevirt/containerized-data-importer, prometheus-operator/prometheus-operator
  --out DIR     where crds.json.gz and sources.json go (default test/cluster/data)`;

const { values } = parseArgs({
  options: {
    mirror: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: 'test/cluster/data' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || values.mirror.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

const sources: Source[] = [];
const read = (source: { repository: string; ref: string }, path: string): string =>
  show(findSnapshot(values.mirror, source.repository), source.ref, path, sources);

const BUILT_IN_OR_OPENSHIFT = /(^$|\.k8s\.io$|\.openshift\.io$|^apps$|^batch$|^autoscaling$|^policy$)/;
const customKinds = RESOURCES.filter((r) => !r.name.includes('/') && !BUILT_IN_OR_OPENSHIFT.test(r.group));
const hasStatus = (r: ResourceInfo): boolean =>
  RESOURCES.some((s) => s.group === r.group && s.version === r.version && s.name === `${r.name}/status`);

/** A KubeVirt CRD as virt-operator makes it, for the version the simulator serves. */
function kubevirtCrd(resource: ResourceInfo, schemas: Map<string, string>): JsonObject {
  // Each entry is a version's `schema`: `{ openAPIV3Schema: ... }`.
  const schema = loadYaml(schemas.get(resource.kind.toLowerCase()) ?? '');
  if (!isObject(schema) || !isObject(schema.openAPIV3Schema))
    throw new Error(`no KubeVirt schema for ${resource.kind}`);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.name}.${resource.group}` },
    spec: {
      group: resource.group,
      names: {
        plural: resource.name,
        singular: resource.singularName,
        kind: resource.kind,
        ...(resource.shortNames ? { shortNames: resource.shortNames } : {}),
        ...(resource.categories ? { categories: resource.categories } : {}),
      },
      scope: resource.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: resource.version,
          served: true,
          storage: true,
          schema,
          ...(hasStatus(resource) ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

function publishedCrd(text: string, resource: ResourceInfo): JsonObject {
  const crd = loadYaml(text);
  if (!isObject(crd) || crd.kind !== 'CustomResourceDefinition')
    throw new Error(`no CRD found for ${resource.group} ${resource.kind}`);
  const metadata = isObject(crd.metadata) ? crd.metadata : {};
  // Only the name: annotations such as controller-gen's version or cert-manager's CA injection
  // belong to their installers.
  return { ...crd, metadata: { name: metadata.name ?? `${resource.name}.${resource.group}` } };
}

let kubevirtSchemas: Map<string, string> | undefined;
let cdiCrds: Map<string, string> | undefined;
function crdOf(resource: ResourceInfo): JsonObject {
  if (resource.group === 'kubevirt.io' || resource.group === 'instancetype.kubevirt.io') {
    kubevirtSchemas ??= goStringMap(read(KUBEVIRT, KUBEVIRT.path));
    return kubevirtCrd(resource, kubevirtSchemas);
  }
  if (resource.group === 'cdi.kubevirt.io') {
    cdiCrds ??= goStringMap(read(CDI, CDI.path));
    return publishedCrd(cdiCrds.get(resource.kind.toLowerCase()) ?? '', resource);
  }
  if (resource.group === 'monitoring.coreos.com') {
    return publishedCrd(
      read(PROMETHEUS, `${PROMETHEUS.folder}/monitoring.coreos.com_${resource.name}.yaml`),
      resource,
    );
  }
  throw new Error(`no CRD source known for ${resource.group}/${resource.version} ${resource.kind}`);
}

const crds = customKinds.map((resource) => stripDescriptions(crdOf(resource)) as JsonObject);
mkdirSync(values.out, { recursive: true });
const text = JSON.stringify(crds);
writeFileSync(join(values.out, 'crds.json.gz'), gzipSync(text, { level: 9 }));
writeFileSync(join(values.out, 'sources.json'), `${JSON.stringify(sources, null, 2)}\n`);
for (const crd of crds) console.log((crd.metadata as { name: string }).name);
console.log(`${crds.length} CRDs, ${text.length} bytes of JSON`);
