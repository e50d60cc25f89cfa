/**
 * The reflector's client, seen from its requests: every LIST, watch-list and watch one reflector
 * makes, and how each ended, recorded in the type's TypeFreshness. What the record learns is what
 * went over the wire, so the reflector needs no hook of its own, and a relist's why is what ended
 * the watch before it (a 410, an error, a cut connection, an abort with a reason).
 */
import { KubeTransportError } from '../../kube/errors';
import type { WatchEnd, WatchEvent } from '../../kube/listwatch/watch';
import type { TypeFreshness } from './freshness';
import { INITIAL_EVENTS_END, type ListWatchClient } from './reflector';

export function freshnessClient(inner: ListWatchClient, rec: TypeFreshness): ListWatchClient {
  return {
    async list(gvr, opts, hooks) {
      rec.listStarted();
      try {
        const listed = await inner.list(gvr, opts, hooks);
        rec.listed();
        return listed;
      } catch (e) {
        rec.listFailed(e instanceof Error ? e.message : String(e));
        throw e;
      }
    },
    async watch(gvr, opts, onEvent, signal) {
      let initial = opts.sendInitialEvents === true;
      if (initial) rec.listStarted();
      else rec.watching();
      const end = await inner.watch(
        gvr,
        opts,
        (e: WatchEvent) => {
          if (e.type !== 'BOOKMARK') {
            if (!initial) rec.event(); // a watch-list's initial events are its list, not news
          } else if (!initial) rec.bookmark();
          else if (e.object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
            initial = false;
            rec.listed();
            rec.watching();
          }
          onEvent(e);
        },
        signal,
      );
      rec.watchEnded(relistCause(end), end.kind === 'closed');
      return end;
    },
  };
}

/** Why a relist follows this end of a watch; undefined when none does (a clean close, a rewatch). */
function relistCause(end: WatchEnd): string | undefined {
  switch (end.kind) {
    case 'closed':
      return undefined;
    case 'expired':
      return 'the watch expired (410 Gone)';
    case 'error':
      return end.error instanceof KubeTransportError ? `reconnect after a cut: ${end.error.message}` : `watch error: ${end.error.message}`;
    case 'aborted': {
      const r: unknown = end.reason;
      const message = r instanceof Error ? r.message : String(r);
      if (r instanceof KubeTransportError) return `reconnect after a cut: ${message}`;
      if (message.startsWith('rewatch:')) return undefined;
      if (message.startsWith('relist: ')) return message.slice('relist: '.length);
      if (message === 'watch outran the sink') return 'watch events outran the loop';
      return message;
    }
  }
}
