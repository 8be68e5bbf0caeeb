// Request bodies in Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), which kubectl's
// typed commands (`create configmap|secret|namespace|serviceaccount`, `auth can-i`) send and never
// retry as JSON.
// The envelope is k8s.io/apimachinery pkg/runtime/serializer/protobuf/protobuf.go: the bytes
// "k8s\0", then a runtime.Unknown (pkg/runtime/generated.proto: typeMeta = 1 with apiVersion = 1
// and kind = 2, raw = 2, contentEncoding = 3, contentType = 4) whose `raw` is the typed message.
// Field numbers are those of the generated.proto files at kubernetes/api v0.34.1
// (77c9e29b068e14d4bcca2d6a4c85b2cc9da5a923: core/v1, authorization/v1) and kubernetes/apimachinery
// v0.34.1 (b72d93d174332f952a8d431419fece5e6f044bcb: pkg/apis/meta/v1), the release kubectl v1.34
// is built from. Only the kinds listed in KINDS are read; the server refuses the others with 415.
import { decodeMessage, type Decoded, ProtobufError, readFields, type Schema } from './protobuf.ts';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const OWNER_REFERENCE: Schema = {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool'],
  7: ['blockOwnerDeletion', 'bool'],
};

/** ObjectMeta as a client writes it; the fields the server sets (times, managedFields) are skipped. */
const OBJECT_META: Schema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int64'],
  11: ['labels', { map: 'string' }],
  12: ['annotations', { map: 'string' }],
  13: ['ownerReferences', { repeated: OWNER_REFERENCE }],
  14: ['finalizers', { repeated: 'string' }],
};

const CONFIG_MAP: Schema = {
  1: ['metadata', { message: OBJECT_META }],
  2: ['data', { map: 'string' }],
  3: ['binaryData', { map: 'bytes' }],
  4: ['immutable', 'bool'],
};

const SECRET: Schema = {
  1: ['metadata', { message: OBJECT_META }],
  2: ['data', { map: 'bytes' }],
  3: ['type', 'string'],
  4: ['stringData', { map: 'string' }],
  5: ['immutable', 'bool'],
};

const NAMESPACE: Schema = {
  1: ['metadata', { message: OBJECT_META }],
  2: ['spec', { message: { 1: ['finalizers', { repeated: 'string' }] } }],
};

const OBJECT_REFERENCE: Schema = {
  1: ['kind', 'string'],
  2: ['namespace', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['fieldPath', 'string'],
};

const SERVICE_ACCOUNT: Schema = {
  1: ['metadata', { message: OBJECT_META }],
  2: ['secrets', { repeated: OBJECT_REFERENCE }],
  3: ['imagePullSecrets', { repeated: { 1: ['name', 'string'] } }],
  4: ['automountServiceAccountToken', 'bool'],
};

const RESOURCE_ATTRIBUTES: Schema = {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
};

const SELF_SUBJECT_ACCESS_REVIEW: Schema = {
  1: ['metadata', { message: OBJECT_META }],
  2: [
    'spec',
    {
      message: {
        1: ['resourceAttributes', { message: RESOURCE_ATTRIBUTES }],
        2: ['nonResourceAttributes', { message: { 1: ['path', 'string'], 2: ['verb', 'string'] } }],
      },
    },
  ],
};

/** apiVersion/kind → the schema of its message. */
const KINDS: Readonly<Record<string, Schema>> = {
  'v1/ConfigMap': CONFIG_MAP,
  'v1/Secret': SECRET,
  'v1/Namespace': NAMESPACE,
  'v1/ServiceAccount': SERVICE_ACCOUNT,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': SELF_SUBJECT_ACCESS_REVIEW,
};

const TYPE_META: Schema = { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] };

/** The kinds whose protobuf bodies the simulator reads, as `apiVersion/kind`. */
export function protobufKinds(): string[] {
  return Object.keys(KINDS);
}

/**
 * The object a protobuf body holds, as the JSON the same object would have been sent as; undefined
 * when its kind is not one the simulator reads. Throws ProtobufError on a malformed body.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): Record<string, Decoded> | undefined {
  if (!Buffer.from(body.subarray(0, MAGIC.length)).equals(MAGIC)) {
    throw new ProtobufError(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  const envelope = readFields(body.subarray(MAGIC.length));
  const field = (n: number): Uint8Array =>
    envelope.find((f) => f.number === n && f.wireType === 2)?.bytes ?? new Uint8Array();
  const typeMeta = decodeMessage(field(1), TYPE_META);
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (!schema) return undefined;
  return { apiVersion, kind, ...decodeMessage(field(2), schema) };
}
