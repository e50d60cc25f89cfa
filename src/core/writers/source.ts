/**
 * watchWriters: the watches the writer model reads, one per type (in one namespace or all), each
 * with managedFields kept (JSON: the protobuf walker leaves them out) and started from now: a list
 * of one metadata-only item gives the collection's resourceVersion, and the watch starts there, so
 * the first seconds are not 100,000 ADDED events of objects nobody just wrote.
 *
 * Guarantees, per type, as client-go's reflector where they mean the same:
 * - A watch that ends normally resumes from its last resourceVersion (bookmarks asked for, so a
 *   quiet type's resourceVersion stays fresh); 410 Gone starts again from now; any other error
 *   backs off (1 s doubling to 30 s, reset by a watch that delivered something), and so does a
 *   watch closed before it delivered anything.
 * - A type the user may not list or watch (403), or that is gone (404, 405), is reported once to
 *   `onError` with `final: true` and not retried; the others go on.
 * - Every request takes `signal`; the promise resolves once every type's loop has ended on it.
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock';
import { KubeApiError } from '../kube/errors';
import type { KubeClient } from '../kube/client';
import type { GroupVersionResource } from '../kube/objects/types';
import { METADATA_ONLY_ACCEPT } from '../kube/listwatch/list';
import { gvrName } from '../kube/listwatch/paths';
import { resourcePath } from '../kube/listwatch/paths';
import type { WriterStats } from './stats';

export interface WriterWatchOptions {
  client: Pick<KubeClient, 'watch' | 'transport'>;
  types: readonly (GroupVersionResource & { namespaced: boolean })[];
  /** Watch in this namespace only (cluster-scoped types are then left out). */
  namespace?: string;
  stats: Pick<WriterStats, 'observe'>;
  clock: Clock;
  /** A type's watch failed; `final`: it is given up (forbidden, gone). */
  onError?: (type: string, message: string, final: boolean) => void;
  /** A type's watch is open from this resourceVersion (each time it starts again from now). */
  onWatching?: (type: string) => void;
}

const MAX_BACKOFF_MS = 30_000;
const WATCH_TIMEOUT_SECONDS = 300;

export async function watchWriters(opts: WriterWatchOptions, signal: AbortSignal): Promise<void> {
  const types = opts.namespace !== undefined ? opts.types.filter((t) => t.namespaced) : opts.types;
  // Every type's requests listen on one signal (two or three each): many listeners by design, so
  // Node's leak warning at 11 is lifted on a signal of our own, not on the caller's.
  const life = new AbortController();
  setMaxListeners(0, life.signal);
  const onAbort = () => life.abort(signal.reason);
  if (signal.aborted) life.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.all(types.map((t) => watchType(opts, t, life.signal)));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The collection's resourceVersion now (one metadata-only item asked for). */
async function currentResourceVersion(opts: WriterWatchOptions, gvr: GroupVersionResource, signal: AbortSignal): Promise<string> {
  const res = await opts.client.transport.getJson<{ metadata?: { resourceVersion?: string } }>({
    path: resourcePath(gvr, opts.namespace),
    query: { limit: 1 },
    accept: METADATA_ONLY_ACCEPT,
    signal,
  });
  const rv = res.body.metadata?.resourceVersion;
  if (!rv) throw new Error('the list has no resourceVersion');
  return rv;
}

const isFinal = (e: unknown) => e instanceof KubeApiError && (e.status === 403 || e.status === 404 || e.status === 405);

async function watchType(opts: WriterWatchOptions, gvr: GroupVersionResource, signal: AbortSignal): Promise<void> {
  const name = gvrName(gvr);
  let rv: string | undefined;
  let backoff = 1000;
  const ref = { group: gvr.group, resource: gvr.resource };
  while (!signal.aborted) {
    let failure: unknown;
    let delivered = 0;
    try {
      if (rv === undefined) {
        rv = await currentResourceVersion(opts, gvr, signal);
        opts.onWatching?.(name);
      }
      const end = await opts.client.watch(
        gvr,
        {
          namespace: opts.namespace,
          resourceVersion: rv,
          allowWatchBookmarks: true,
          keepManagedFields: true,
          protobuf: false,
          timeoutSeconds: WATCH_TIMEOUT_SECONDS,
        },
        (e) => {
          delivered++;
          const next = e.object.metadata?.resourceVersion;
          if (next) rv = next;
          if (e.type !== 'BOOKMARK') opts.stats.observe(e.type, ref, e.object);
        },
        signal,
      );
      if (end.kind === 'aborted') return;
      if (end.kind === 'expired') rv = undefined;
      if (end.kind === 'error') failure = end.error;
      // A watch closed before it delivered anything (not even a bookmark) is not reopened in a tight loop.
      if (end.kind === 'closed' && delivered === 0) failure = new Error('the watch closed at once');
    } catch (e) {
      if (signal.aborted) return;
      failure = e;
    }
    if (failure === undefined) continue;
    if (delivered) backoff = 1000;
    const message = failure instanceof Error ? failure.message : String(failure);
    if (isFinal(failure)) {
      opts.onError?.(name, message, true);
      return;
    }
    opts.onError?.(name, message, false);
    try {
      await opts.clock.sleep(backoff, signal);
    } catch {
      return;
    }
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
