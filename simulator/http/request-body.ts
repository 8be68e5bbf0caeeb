// Request bodies of creates and updates: JSON, or Kubernetes protobuf for the kinds kubectl's typed
// commands send that way. Either becomes the same JSON value; answers are always JSON, which a
// client asking `Accept: application/vnd.kubernetes.protobuf, application/json` accepts.
import { decodeKubernetesProtobuf, PROTOBUF } from './kube-protobuf.ts';
import { ProtobufError } from './protobuf.ts';
import { StatusError } from '../objects/status.ts';

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new StatusError(400, 'BadRequest', `error decoding request body: ${detail}`);
  }
}

export function unsupportedMediaType(types: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${types.join(', ')}`,
  );
}

/** The object a POST or PUT carries, from JSON or from protobuf; 415 for any other content type. */
export function decodeObjectBody(contentType: string, body: Buffer): unknown {
  if (contentType === 'application/json') return parseJson(body.toString('utf8'));
  if (contentType !== PROTOBUF) throw unsupportedMediaType(['application/json', PROTOBUF]);
  try {
    const decoded = decodeKubernetesProtobuf(body);
    // A kind the simulator has no schema for: as a server that serves it only as JSON would answer.
    if (decoded === undefined) throw unsupportedMediaType(['application/json']);
    return decoded;
  } catch (error) {
    if (!(error instanceof ProtobufError)) throw error;
    throw new StatusError(400, 'BadRequest', `error decoding request body: ${error.message}`);
  }
}
