/**
 * An object's Events: which Events are about it, read the same from a core/v1 Event
 * (involvedObject, count, lastTimestamp) and an events.k8s.io/v1 Event (regarding, series,
 * deprecatedCount, eventTime), custom resources included (an Event names any kind).
 *
 * An Event is about an object when its uid matches; an Event without an involved uid (some
 * controllers leave it out) matches by kind, namespace and name, as `kubectl describe` matches.
 * The two APIs are views of one stored Event, so listing core/v1 Events finds both.
 */
import type { KubeObject } from '../kube/objects/types';

/** The object whose Events are asked for. */
export interface EventTarget {
  uid?: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** One Event as a row shows it. */
export interface EventRow {
  uid: string;
  /** `Normal` or `Warning`. */
  type: string;
  reason: string;
  message: string;
  count: number;
  /** Epoch ms of the last occurrence (0 when the Event carries no time). */
  lastSeen: number;
  /** Who reported it: `kubelet`, `deployment-controller`. */
  source: string;
}

type Involved = { uid?: unknown; kind?: unknown; name?: unknown; namespace?: unknown };

function involvedOf(e: KubeObject): Involved | undefined {
  const i = (e['involvedObject'] ?? e['regarding']) as Involved | undefined;
  return typeof i === 'object' && i !== null ? i : undefined;
}

/** Whether Event `e` is about `t` (see the module comment). */
export function isAbout(e: KubeObject, t: EventTarget): boolean {
  const i = involvedOf(e);
  if (!i) return false;
  if (typeof i.uid === 'string' && i.uid !== '' && t.uid) return i.uid === t.uid;
  return i.kind === t.kind && i.name === t.name && (i.namespace ?? undefined) === (t.namespace ?? undefined);
}

/**
 * The list's field selector for `t`'s Events (core/v1: the API server indexes involvedObject.*).
 * By uid when known, so an object recreated under the same name does not inherit its Events.
 */
export function eventFieldSelector(t: EventTarget): string {
  if (t.uid) return `involvedObject.uid=${t.uid}`;
  const parts = [`involvedObject.kind=${t.kind}`, `involvedObject.name=${t.name}`];
  if (t.namespace) parts.push(`involvedObject.namespace=${t.namespace}`);
  return parts.join(',');
}

const time = (v: unknown): number => {
  if (typeof v !== 'string' || !v) return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
};

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** An Event as a row (either API's shape). */
export function eventRow(e: KubeObject): EventRow {
  const series = e['series'] as { count?: unknown; lastObservedTime?: unknown } | undefined;
  const source = e['source'] as { component?: unknown } | undefined;
  const count =
    typeof series?.count === 'number'
      ? series.count
      : typeof e['count'] === 'number'
        ? e['count']
        : typeof e['deprecatedCount'] === 'number'
          ? e['deprecatedCount']
          : 1;
  const lastSeen =
    time(series?.lastObservedTime) ||
    time(e['lastTimestamp']) ||
    time(e['deprecatedLastTimestamp']) ||
    time(e['eventTime']) ||
    time(e.metadata.creationTimestamp);
  return {
    uid: str(e.metadata.uid),
    type: str(e['type']) || 'Normal',
    reason: str(e['reason']),
    message: str(e['message']) || str(e['note']),
    count,
    lastSeen,
    source: str(e['reportingComponent']) || str(source?.component) || str(e['reportingController']),
  };
}

/** The Events about `t` among `events`, newest first; only warnings when `warningsOnly`. One row per Event uid (the last seen wins). */
export function eventsAbout(events: Iterable<KubeObject>, t: EventTarget, warningsOnly = false): EventRow[] {
  const byUid = new Map<string, EventRow>();
  for (const e of events) {
    if (!isAbout(e, t)) continue;
    const row = eventRow(e);
    if (warningsOnly && row.type !== 'Warning') continue;
    const had = byUid.get(row.uid);
    if (!had || had.lastSeen <= row.lastSeen) byUid.set(row.uid, row);
  }
  return [...byUid.values()].sort((a, b) => b.lastSeen - a.lastSeen);
}
