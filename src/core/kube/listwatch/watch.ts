/**
 * watch(): one WATCH request, its events streamed to a callback: newline-delimited JSON, or
 * protobuf frames where asked for (WatchOptions.protobuf) and answered (watchFrames.ts).
 *
 * Guarantees:
 * - Never rejects: the promise resolves with how the watch ended (errors are values). 'closed' is a
 *   normal end (server timeout, timeoutSeconds); 'expired' means the resourceVersion is too old
 *   (410 at open, or an ERROR event with a 410 Status) and the caller must relist; 'aborted' follows
 *   the signal; 'error' is anything else (HTTP error at open, reset, malformed event, a throwing onEvent,
 *   an event past client-go's 16 MiB frame cap: 'tooLarge', see watchFrames.ts).
 * - Events are delivered in stream order, one call per line, as they arrive; ERROR events end the
 *   watch instead of being delivered.
 * - No relist and no backoff: that policy belongs to the caller (the sync loop's reflector). The
 *   transport only resends what client-go's watch request resends (a request on a stale keep-alive
 *   socket; 429 / 5xx with Retry-After, after the wait it asks for).
 * - On every end the request and its socket are destroyed and the abort listener removed.
 */
import { hostSlicer } from '../../slice';
import { abortReason } from '../../clock';
import { KubeApiError, KubeTransportError } from '../errors';
import { compactItem, type ManagedFieldsKept } from './list';
import { resourcePath } from './paths';
import type { KubeTransport, StreamBody } from '../transport/transport';
import type { GroupVersionResource, KubeObject } from '../objects/types';
import { eventFrames, WATCH_FRAME_MAX_BYTES, type FramedEvents, type RawWatchEvent } from './watchFrames';
import { isProtobuf, PROTOBUF_ACCEPT, PROTOBUF_METADATA_ACCEPT, readsProtobuf } from '../protobuf';

export const METADATA_ONLY_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export interface WatchOptions {
  namespace?: string;
  /** Start after this resourceVersion (normally the list's). Unset = start from "now" with synthetic ADDs. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /**
   * Streaming watch-list (WatchList): the server first sends the current state as ADDED events,
   * then a BOOKMARK annotated "k8s.io/initial-events-end", then changes. Needs resourceVersionMatch
   * NotOlderThan (the server answers 422 without it) and bookmarks allowed.
   */
  sendInitialEvents?: boolean;
  resourceVersionMatch?: 'NotOlderThan';
  /** Server-side end of the watch, seconds. */
  timeoutSeconds?: number;
  labelSelector?: string;
  fieldSelector?: string;
  metadataOnly?: boolean;
  /**
   * As ListOptions.keepManagedFields, but 'compact' stays protobuf where the walker reads the kind:
   * it reads managedFields in their compact form itself (../protobuf/managedFields.ts).
   */
  keepManagedFields?: ManagedFieldsKept;
  /** As ListOptions.protobuf: protobuf frames where the walker reads them, whatever the answer read by its Content-Type. Default true. */
  protobuf?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export type WatchEnd =
  | { kind: 'closed'; events: number }
  | { kind: 'aborted'; events: number; reason: unknown }
  | { kind: 'expired'; events: number; error: KubeApiError }
  | { kind: 'error'; events: number; error: KubeApiError | KubeTransportError | Error };

export async function watch(
  t: KubeTransport,
  gvr: GroupVersionResource,
  opts: WatchOptions,
  onEvent: (e: WatchEvent) => void,
  signal?: AbortSignal,
): Promise<WatchEnd> {
  const path = resourcePath(gvr, opts.namespace);
  let res;
  try {
    res = await t.openStream({
      path,
      signal,
      accept: watchAccept(gvr, opts),
      query: {
        watch: 1,
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
        sendInitialEvents: opts.sendInitialEvents ? 'true' : undefined,
        resourceVersionMatch: opts.resourceVersionMatch,
        timeoutSeconds: opts.timeoutSeconds,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
      },
    });
  } catch (e) {
    if (signal?.aborted) return { kind: 'aborted', events: 0, reason: abortReason(signal) };
    if (e instanceof KubeApiError && e.status === 410) return { kind: 'expired', events: 0, error: e };
    return { kind: 'error', events: 0, error: e as KubeApiError | KubeTransportError };
  }
  return consume(res, path, opts, onEvent, signal);
}

/** The Accept header of a watch: protobuf first where the walker reads the frames (WatchOptions.protobuf); JSON for whole managedFields. */
function watchAccept(gvr: GroupVersionResource, opts: WatchOptions): string {
  const protobuf = opts.protobuf !== false && opts.keepManagedFields !== true;
  if (opts.metadataOnly) return protobuf ? PROTOBUF_METADATA_ACCEPT : METADATA_ONLY_WATCH_ACCEPT;
  return protobuf && readsProtobuf(gvr) ? PROTOBUF_ACCEPT : 'application/json';
}

/** Reads an open watch stream to its end (see the guarantees above), in the encoding of its Content-Type. */
function consume(stream: StreamBody, path: string, opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd> {
  let events = 0;
  const aborted = () => ({ kind: 'aborted' as const, events, reason: abortReason(signal!) });
  return new Promise<WatchEnd>((resolve) => {
    let ended = false;
    const end = (w: WatchEnd) => {
      if (ended) return;
      ended = true;
      signal?.removeEventListener('abort', onAbort);
      stream.destroy();
      resolve(w);
    };
    const onAbort = () => end(aborted());
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) return end(aborted());
    const managers = opts.keepManagedFields === 'compact';
    const frames = eventFrames(stream.contentType, WATCH_FRAME_MAX_BYTES, managers);
    const walkedManagers = managers && isProtobuf(stream.contentType);
    const handle = (ev: RawWatchEvent): boolean => {
      if (ev.type === 'ERROR') {
        const s = ev.object ?? ({} as { code?: number; reason?: string; message?: string });
        const err = new KubeApiError(s.code ?? 500, s.reason ?? '', s.message ?? 'watch error', undefined, path);
        end(err.status === 410 ? { kind: 'expired', events, error: err } : { kind: 'error', events, error: err });
        return false;
      }
      if (!ev.object || (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED' && ev.type !== 'BOOKMARK')) {
        end({ kind: 'error', events, error: new KubeTransportError('malformed', `watch ${path}: unexpected event type ${String(ev.type)}`, path) });
        return false;
      }
      events++;
      try {
        onEvent({ type: ev.type, object: compactItem(ev.object, !!opts.metadataOnly, opts.keepManagedFields ?? false, false, walkedManagers) });
      } catch (e) {
        end({ kind: 'error', events, error: e instanceof Error ? e : new Error(String(e)) });
        return false;
      }
      return true;
    };
    const deliver = (f: FramedEvents): boolean => {
      for (const ev of f.events) if (!handle(ev)) return false;
      if (!f.failed) return true;
      end({ kind: 'error', events, error: new KubeTransportError(f.failed, `watch ${path}: ${f.detail ?? ''}`, path) });
      return false;
    };
    const take = (chunk: Buffer): boolean => deliver(frames.push(chunk));
    // A watch-list's initial events (every pod of a big cluster) come as fast as the socket reads,
    // and Node delivers every ready socket's chunks in one turn: once the thread's slice is spent
    // (slice.ts) the stream pauses (TCP backpressure holds the rest at the server) and goes on
    // after other work ran. Chunks are handled in the order they came; 'end' waits for them.
    let held: Buffer[] | undefined;
    // The stream may end while chunks are held (the held chunk was its last, and a paused stream
    // still ends once it has nothing buffered): the end then waits for them.
    let endHeld = false;
    const close = () => {
      if (deliver(frames.end())) end({ kind: 'closed', events });
    };
    const goOn = () => {
      const chunks = held ?? [];
      held = undefined;
      for (const c of chunks) if (ended || !take(c)) return;
      if (ended) return;
      if (endHeld) close();
      else stream.resume();
    };
    stream.on('data', (chunk: Buffer) => {
      if (ended) return;
      if (held) return void held.push(chunk);
      const turn = hostSlicer.due();
      if (!turn) return void take(chunk);
      held = [chunk];
      stream.pause();
      void turn.then(goOn);
    });
    stream.on('end', () => {
      if (held) endHeld = true;
      else close();
    });
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (signal?.aborted) return end(aborted());
      end({ kind: 'error', events, error: new KubeTransportError('reset', `watch ${path}: ${e.message}`, path, { cause: e }) });
    });
    stream.on('close', () => {
      if (signal?.aborted) return end(aborted());
      if (!stream.complete) end({ kind: 'error', events, error: new KubeTransportError('reset', `watch ${path}: connection closed`, path) });
    });
  });
}
