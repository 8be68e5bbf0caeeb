// Server-side apply's checks of the applied object, as kube-apiserver makes them
// (k8s.io/apiserver pkg/endpoints/handlers/patch.go, applyPatcher): the object is typed against
// the kind's schema, so a field the schema does not declare fails the request whatever
// `fieldValidation` says (k8s.io/apiserver pkg/util/managedfields/internal/structuredmerge.go:
// "failed to create typed patch object"), and the body is then decoded strictly, so a field given
// twice is a warning under `Warn` (the default), a 400 under `Strict`, and nothing under `Ignore`.
// The simulator knows the top-level fields of the kinds below and every kind's ObjectMeta.
import { isObject, type JsonObject, SERVER_METADATA } from './fields.ts';
import { StatusError } from './status.ts';

/** Every ObjectMeta field: what the server sets, and what a client may. */
const OBJECT_META = new Set([
  ...SERVER_METADATA,
  'generateName',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
]);

const TYPE_META = ['apiVersion', 'kind', 'metadata'];
const SPEC_AND_STATUS = [...TYPE_META, 'spec', 'status'];

/** Top-level fields per kind (`group/Kind`, core group empty), from the Kubernetes and OpenShift API types. */
const TOP_LEVEL: Readonly<Record<string, readonly string[]>> = {
  '/ConfigMap': [...TYPE_META, 'data', 'binaryData', 'immutable'],
  '/Secret': [...TYPE_META, 'data', 'stringData', 'type', 'immutable'],
  '/ServiceAccount': [...TYPE_META, 'secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
  '/Service': SPEC_AND_STATUS,
  '/PersistentVolumeClaim': SPEC_AND_STATUS,
  'apps/Deployment': SPEC_AND_STATUS,
  'apps/StatefulSet': SPEC_AND_STATUS,
  'apps/DaemonSet': SPEC_AND_STATUS,
  'batch/Job': SPEC_AND_STATUS,
  'batch/CronJob': SPEC_AND_STATUS,
  'route.openshift.io/Route': SPEC_AND_STATUS,
  'image.openshift.io/ImageStream': SPEC_AND_STATUS,
  'build.openshift.io/BuildConfig': SPEC_AND_STATUS,
  'apps.openshift.io/DeploymentConfig': SPEC_AND_STATUS,
};

/** The undeclared fields of an applied object, as structured-merge-diff paths (`.spec.x`). */
function undeclaredFields(group: string, kind: string, object: JsonObject): string[] {
  const topLevel = TOP_LEVEL[`${group}/${kind}`];
  const paths = topLevel
    ? Object.keys(object)
        .filter((k) => !topLevel.includes(k))
        .map((k) => `.${k}`)
    : [];
  const metadata = object.metadata;
  if (isObject(metadata))
    paths.push(
      ...Object.keys(metadata)
        .filter((k) => !OBJECT_META.has(k))
        .map((k) => `.metadata.${k}`),
    );
  return paths;
}

/**
 * Fields given twice in a JSON body, in the words of the YAML decoder kube-apiserver runs
 * (`line N: key "k" already set in map`); JSON is YAML, so an apply body in JSON is read the same.
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const keys: Set<string>[] = [];
  let line = 1;
  for (let at = 0; at < text.length; at++) {
    const c = text.charAt(at);
    if (c === '\n') line += 1;
    else if (c === '{') keys.push(new Set());
    else if (c === '}') keys.pop();
    else if (c === '"') {
      let value = '';
      for (at += 1; at < text.length && text.charAt(at) !== '"'; at++) {
        if (text.charAt(at) === '\\') at += 1;
        value += text.charAt(at);
      }
      const rest = text.slice(at + 1).trimStart();
      const current = keys.at(-1);
      if (rest.startsWith(':') && current) {
        if (current.has(value)) found.push(`line ${line}: key ${JSON.stringify(value)} already set in map`);
        current.add(value);
      }
    }
  }
  return found;
}

export interface ApplyCheck {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  body: string;
  object: unknown;
  fieldValidation: string | null;
}

/** The warnings an apply draws, or the StatusError that refuses it. */
export function checkAppliedObject(check: ApplyCheck): string[] {
  if (isObject(check.object)) {
    const undeclared = undeclaredFields(check.group, check.kind, check.object);
    const first = undeclared[0];
    if (first !== undefined) {
      // Not a Status error upstream: the API server answers 500 with the error's text and no reason.
      const gvk = `${check.group}/${check.version}, Kind=${check.kind}`;
      throw new StatusError(
        500,
        '',
        `failed to create typed patch object (${check.namespace}/${check.name}; ${gvk}): ${first}: field not declared in schema`,
      );
    }
  }
  if (check.fieldValidation === 'Ignore') return [];
  const duplicates = duplicateFields(check.body);
  if (duplicates.length === 0) return [];
  if (check.fieldValidation === 'Strict') {
    throw new StatusError(
      400,
      'BadRequest',
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`,
    );
  }
  return duplicates;
}
