/**
 * EventRecorder: writes core/v1 Events the way client-go's recorder does for the kubelet.
 *
 * Guarantees:
 * - Every Event goes through the EventCorrelator (correlator.ts), as client-go's broadcaster
 *   does: rate-limited per source and object (burst 25, then one per 5 minutes; the rest are
 *   dropped), aggregated from the 10th distinct message of one reason within 10 minutes
 *   ("(combined from similar events): ..."), and a repeat updates its Event (count + 1, new
 *   lastTimestamp) instead of creating one.
 * - The memory of written events is bounded (an LRU of 4096 keys, upstream's cache size).
 * - Recording never throws: a failed write is reported to onError and the event is dropped.
 */
import type { DemoObject, ObjectStore } from '../store';
import { EventCorrelator, MAX_LRU_CACHE_ENTRIES } from './correlator';

export interface InvolvedObject {
  kind: string;
  apiVersion: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventSource {
  component: string;
  host?: string;
}

export class EventRecorder {
  private readonly written = new Map<string, { name: string; namespace: string }>();
  private readonly correlator = new EventCorrelator();
  private lastNanos = 0n;
  /** Events the spam filter dropped (tests, and the demo's own curiosity). */
  dropped = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly wallNow: () => number,
    private readonly onError: (e: unknown) => void,
    /** The correlator's clock (simulated ms: a faster demo refills its token buckets faster). */
    private readonly simNow: () => number = wallNow,
  ) {}

  private get enabled(): boolean {
    return this.store.type('', 'events') !== undefined;
  }

  record(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, source: EventSource, extra: { action?: string } = {}): void {
    if (!this.enabled) return;
    const namespace = obj.namespace ?? 'default';
    const c = this.correlator.correlate({ source, involvedObject: obj, type, reason, message }, this.simNow());
    if (c.skip) {
      this.dropped++;
      return;
    }
    const ts = kubeTimestamp(this.wallNow());
    try {
      const seen = this.written.get(c.key);
      if (seen) {
        const old = this.store.get('', 'events', seen.namespace, seen.name);
        if (old) {
          this.touch(c.key, seen);
          this.store.update(
            '',
            'events',
            {
              ...old,
              message: c.message,
              count: ((old.count as number) ?? 1) + 1,
              lastTimestamp: ts,
              metadata: { ...old.metadata },
            },
            { manager: managerOf(source.component) },
          );
          return;
        }
      }
      const name = `${obj.name}.${this.nextNanos(this.wallNow()).toString(16)}`;
      const event: DemoObject = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: { ...obj },
        reason,
        message: c.message,
        source: { ...source },
        firstTimestamp: ts,
        lastTimestamp: ts,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: source.component,
        reportingInstance: source.host ?? '',
        ...(extra.action ? { action: extra.action } : {}),
      };
      this.store.create('', 'events', event, { manager: managerOf(source.component) });
      this.touch(c.key, { name, namespace });
    } catch (e) {
      this.onError(e);
    }
  }

  /** Names are `<object>.<UnixNano in hex>`; nanoseconds advance strictly so names never collide. */
  private nextNanos(nowMs: number): bigint {
    let n = BigInt(Math.floor(nowMs)) * 1_000_000n;
    if (n <= this.lastNanos) n = this.lastNanos + 1n;
    this.lastNanos = n;
    return n;
  }

  private touch(key: string, v: { name: string; namespace: string }): void {
    this.written.delete(key);
    this.written.set(key, v);
    if (this.written.size > MAX_LRU_CACHE_ENTRIES) this.written.delete(this.written.keys().next().value!);
  }
}

/** The binary whose client writes a component's Events (the field manager kube-apiserver records). */
export function managerOf(component: string): string {
  if (component === 'kubelet') return 'kubelet';
  if (component === 'default-scheduler') return 'kube-scheduler';
  return 'kube-controller-manager';
}

/** RFC 3339, second precision, UTC: how metav1.Time serialises. */
export function kubeTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
