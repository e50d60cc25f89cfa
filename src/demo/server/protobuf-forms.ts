/**
 * The answers of reads in protobuf (forms.ts chose them): lists, objects, PartialObjectMetadata(List)
 * and watch frames, as kube-apiserver writes them (protobuf-encode.ts).
 *
 * Each stored object's message is encoded once and kept as long as the object (stored objects are
 * immutable), as its JSON is (exchange.ts encodeStored): a list or a watch only copies the bytes,
 * and a relist of 10k objects costs their copying, not their encoding.
 */
import type { DemoObject } from '../store';
import { PROTOBUF_TYPE } from './exchange';
import type { ListMeta } from './forms';
import { encodeList, encodeMessage, encodeObject, hasProtobufSchema, watchFrame } from './protobuf-encode';
import type { Status } from './status';

/** A protobuf watch's Content-Type, as kube-apiserver labels it. */
export const PROTOBUF_WATCH_TYPE = `${PROTOBUF_TYPE};stream=watch`;

const META_V1 = 'meta.k8s.io/v1';
const messages = new Map<string, WeakMap<object, Uint8Array>>();

/** The message of `o` as a `apiVersion/kind` (no envelope), cached per stored object. */
function messageOf(apiVersion: string, kind: string, o: DemoObject): Uint8Array {
  const key = `${apiVersion}/${kind}`;
  let cache = messages.get(key);
  if (!cache) messages.set(key, (cache = new WeakMap()));
  let m = cache.get(o);
  if (!m) cache.set(o, (m = encodeMessage(apiVersion, kind, o as unknown as Record<string, unknown>)));
  return m;
}

function partialOf(o: DemoObject): Uint8Array {
  return messageOf(META_V1, 'PartialObjectMetadata', o);
}

/** Whether the demo answers full objects of this kind in protobuf (built-in kinds with a schema). */
export function servesProtobuf(apiVersion: string, kind: string): boolean {
  return hasProtobufSchema(apiVersion, kind);
}

/** How long one turn of encoding may hold the event loop (the demo runs in the extension host). */
const SLICE_MS = 10;

/**
 * Encodes the messages of `items` not yet cached, giving the event loop a turn every SLICE_MS: a
 * first list of 10k pods takes seconds to encode on a loaded machine, and the demo shares its
 * thread with the extension host. After it, protobufList only copies bytes.
 */
export async function warmMessages(apiVersion: string, kind: string | undefined, items: readonly DemoObject[]): Promise<void> {
  let start = performance.now();
  for (const o of items) {
    if (kind === undefined) partialOf(o);
    else messageOf(apiVersion, kind, o);
    if (performance.now() - start > SLICE_MS) {
      await new Promise((r) => setImmediate(r));
      start = performance.now();
    }
  }
}

export function protobufList(apiVersion: string, kind: string, items: readonly DemoObject[], meta: ListMeta): Buffer {
  return encodeList(
    apiVersion,
    `${kind}List`,
    meta,
    items.map((o) => messageOf(apiVersion, kind, o)),
  );
}

export function protobufMetadataList(items: readonly DemoObject[], meta: ListMeta): Buffer {
  return encodeList(META_V1, 'PartialObjectMetadataList', meta, items.map(partialOf));
}

/** One object's whole body: the kind's own, or PartialObjectMetadata when `metadata`. */
export function protobufObject(apiVersion: string, kind: string, o: DemoObject, metadata: boolean): Buffer {
  return metadata ? encodeObject(META_V1, 'PartialObjectMetadata', partialOf(o)) : encodeObject(apiVersion, kind, messageOf(apiVersion, kind, o));
}

/** An object made for one answer (a bookmark, a Status): encoded, not cached. */
export function protobufTransient(apiVersion: string, kind: string, o: object): Buffer {
  return encodeObject(apiVersion, kind, encodeMessage(apiVersion, kind, o as Record<string, unknown>));
}

export function protobufStatus(s: Status): Buffer {
  return protobufTransient('v1', 'Status', s);
}

/** One event of a protobuf watch: the object's whole body in a length-prefixed WatchEvent. */
export function protobufWatchFrame(type: string, body: Uint8Array): Buffer {
  return watchFrame(type, body);
}
