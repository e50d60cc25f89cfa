/**
 * Kubernetes protobuf, read by schema: a list, object, Status or watch stream becomes the object
 * its JSON form parses to, holding only the fields KubeLoop reads (fieldsets.ts), in a fraction of
 * JSON.parse's time (bench/decode-protobuf.ts). Pure TypeScript, no dependencies.
 *
 * How to ask: a kind with a field set is asked for with PROTOBUF_ACCEPT (protobuf first, JSON as the
 * server's other choice); metadata-only lists and watches of any type, custom resources included,
 * with the PROTOBUF_METADATA_* headers. Everything else stays JSON. Whatever was asked, the answer's
 * Content-Type decides how to read it (isProtobuf): a server may always answer JSON.
 */
export { decodeProtobuf, hasFieldSet, PROTOBUF_MAGIC, ProtobufError } from './decode';
export { MAX_FRAME_BYTES, WatchFrameDecoder, type ProtobufWatchEvent } from './watch';
export { readsProtobuf } from './ask';
export { continueFromProtobufHead } from './head';

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

/** Full objects of a kind with a field set: protobuf, else JSON (client-go's default Accept for built-in types). */
export const PROTOBUF_ACCEPT = `${PROTOBUF_TYPE},application/json`;

/** A metadata-only list in protobuf (any type: kube-apiserver encodes PartialObjectMetadataList itself), JSON forms after it. */
export const PROTOBUF_METADATA_LIST_ACCEPT = `${PROTOBUF_TYPE};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`;

/** A metadata-only watch (or get) in protobuf, JSON forms after it. */
export const PROTOBUF_METADATA_ACCEPT = `${PROTOBUF_TYPE};as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`;

/** Whether a response's Content-Type is Kubernetes protobuf (parameters ignored). */
export function isProtobuf(contentType: string | string[] | undefined): boolean {
  const v = Array.isArray(contentType) ? contentType[0] : contentType;
  return (v ?? '').split(';')[0]!.trim().toLowerCase() === PROTOBUF_TYPE;
}
