/**
 * Event TTL, as kube-apiserver's `--event-ttl` (default 1 h): an Event is deleted once its last
 * write is older than the TTL. Upstream attaches an etcd lease to every write of an Event, and the
 * lease's expiry deletes the key, so watchers see DELETED; here a sweeper does the same, so a demo
 * cluster that runs for days (crash-looping pods, churn) does not grow without bound.
 *
 * Guarantees:
 * - Both Event APIs are covered (core v1 `events` and `events.k8s.io` `events`, one store entry
 *   each); an Event's age counts from its last create or update in this store (a rewrite renews
 *   it, as a new lease does), and Events present when the sweeper starts count from then.
 * - Sweeps run every min(ttl / 4, 60 s) on the given clock, so an Event lives at most ttl plus one
 *   sweep period; a deletion is an ordinary store delete (watchers see DELETED).
 * - stop() cancels the pending sweep and the store subscription: nothing outlives it.
 */
import type { KubeletClock, KubeletTimer } from './kubelet/kubeletClock';
import type { ObjectStore, StoreEvent } from './store';

export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

const EVENT_TYPES: ReadonlyArray<readonly [group: string, resource: string]> = [
  ['', 'events'],
  ['events.k8s.io', 'events'],
];

const keyOf = (group: string, namespace: string | undefined, name: string) => `${group}\u0000${namespace ?? ''}\u0000${name}`;

export interface EventTtl {
  /** Runs one sweep now; returns how many Events it deleted. */
  sweep(): number;
  stop(): void;
}

export function startEventTtl(store: ObjectStore, clock: KubeletClock, ttlMs = DEFAULT_EVENT_TTL_MS): EventTtl {
  if (!(ttlMs > 0)) throw new RangeError(`event TTL must be > 0 ms, got ${ttlMs}`);
  /** key -> clock time of the Event's last write */
  const written = new Map<string, { group: string; namespace?: string; name: string; at: number }>();
  const isEvent = (group: string, resource: string) => EVENT_TYPES.some(([g, r]) => g === group && r === resource);
  const remember = (group: string, o: { metadata: { namespace?: string; name: string } }) =>
    written.set(keyOf(group, o.metadata.namespace, o.metadata.name), { group, namespace: o.metadata.namespace, name: o.metadata.name, at: clock.now() });

  for (const [group, resource] of EVENT_TYPES) {
    if (!store.type(group, resource)) continue;
    for (const o of store.list(group, resource).items) remember(group, o);
  }
  const unsubscribe = store.subscribe((e: StoreEvent) => {
    if (!isEvent(e.group, e.resource)) return;
    if (e.type === 'DELETED') written.delete(keyOf(e.group, e.object.metadata.namespace, e.object.metadata.name));
    else remember(e.group, e.object);
  });

  const sweep = (): number => {
    const cutoff = clock.now() - ttlMs;
    let deleted = 0;
    for (const [key, w] of [...written]) {
      if (w.at > cutoff) continue;
      written.delete(key);
      try {
        store.delete(w.group, 'events', w.namespace, w.name);
        deleted++;
      } catch {
        // gone meanwhile (deleted by a client): nothing to expire
      }
    }
    return deleted;
  };

  const period = Math.min(ttlMs / 4, 60_000);
  let timer: KubeletTimer | undefined;
  let stopped = false;
  const schedule = () => {
    timer = clock.setTimer(period, () => {
      if (stopped) return;
      sweep();
      schedule();
    });
  };
  schedule();

  return {
    sweep,
    stop() {
      stopped = true;
      timer?.cancel();
      unsubscribe();
      written.clear();
    },
  };
}
