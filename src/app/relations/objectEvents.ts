/**
 * An object's Events, live or from a recording (no 'vscode' import).
 *
 * Live: one list of core/v1 Events by field selector (involvedObject.uid, else kind/name/namespace),
 * read with the user's rights; the API server keeps Events one hour (--event-ttl), so that is all
 * a live list can give. From a recording: every Event the recording ever held about the object,
 * the ones the API server has since expired included (a recorded delete does not drop them), each
 * as last recorded.
 *
 * Guarantees:
 * - Errors are values: a refused or failed list is `{ error }` naming the status, never a throw.
 * - Both take a signal; the recording is streamed (one block's records at a time, and the state of
 *   the Events only, which their patches need).
 */
import type { GroupVersionResource, KubeObject } from '../../core/kube/objects/types';
import { eventFieldSelector, eventsAbout, type EventRow, type EventTarget } from '../../core/relations/events';
import { applyDelta, type Recording } from '../../core/recorder/reader';
import type { Obj } from '../../core/recorder/records';

export type EventsAnswer = { rows: EventRow[] } | { error: string };

const EVENTS: GroupVersionResource = { group: '', version: 'v1', resource: 'events' };

/** What the live read needs of the client. */
export interface EventLister {
  list(gvr: GroupVersionResource, opts: { namespace?: string; fieldSelector?: string }, hooks: { signal?: AbortSignal }): Promise<{ items: KubeObject[] }>;
}

/**
 * The Events about `t` the API server holds now. A namespaced object's Events are in its
 * namespace; a cluster-scoped object's (a Node's) can be in any (the kubelet writes `default`).
 */
export async function liveEventsAbout(client: EventLister, t: EventTarget, signal: AbortSignal, warningsOnly = false): Promise<EventsAnswer> {
  try {
    const r = await client.list(EVENTS, { ...(t.namespace ? { namespace: t.namespace } : {}), fieldSelector: eventFieldSelector(t) }, { signal });
    return { rows: eventsAbout(r.items, t, warningsOnly) };
  } catch (e) {
    if (signal.aborted) throw e;
    const status = (e as { status?: unknown }).status;
    return { error: `${typeof status === 'number' ? `${status} ` : ''}${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Keys of Events in a recording: core/v1 and events.k8s.io/v1 (records.ts objectKey). */
const isEventKey = (key: string) => key.startsWith('events/') || key.startsWith('events.events.k8s.io/');

/**
 * Every Event about `t` a recording held at any instant up to `until` (default: its end), each as
 * last recorded by then (see the module comment).
 */
export async function recordedEventsAbout(
  rec: Pick<Recording, 'records'>,
  t: EventTarget,
  signal: AbortSignal,
  warningsOnly = false,
  until = Infinity,
): Promise<EventRow[]> {
  const state = new Map<string, Obj>();
  const about = new Map<string, KubeObject>();
  const seen = (key: string) => {
    const o = state.get(key) as KubeObject | undefined;
    if (o && eventsAbout([o], t).length) about.set(key, o);
  };
  for await (const r of rec.records(signal)) {
    if (r.t > until) break;
    if (r.k === 'K' && isEventKey(r.key)) {
      state.set(r.key, r.o);
      seen(r.key);
    } else if (r.k === 'D' && isEventKey(r.key)) {
      applyDelta(state, r.key, r);
      if (r.op !== 'D') seen(r.key);
    }
  }
  return eventsAbout(about.values(), t, warningsOnly);
}
