/**
 * EventRecorder: writes core/v1 Events the way client-go's recorder does for the kubelet.
 *
 * Guarantees:
 * - A repeat of the same event (same object, fieldPath, type, reason, message and source) within
 *   the aggregation window updates the existing Event: count + 1 and a new lastTimestamp, like the
 *   upstream EventCorrelator; otherwise a new Event named `<object>.<hex nanoseconds>` is created.
 * - The memory of recent events is bounded (an LRU of 4096 keys, upstream's cache size).
 * - Recording never throws: a failed write is reported to onError and the event is dropped.
 */
import type { KubeObject, ObjectStore } from '../store';

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

const MAX_KEYS = 4096;
/** Upstream aggregates identical events seen within ten minutes. */
const WINDOW_MS = 10 * 60 * 1000;

export class EventRecorder {
  private readonly recent = new Map<string, { name: string; namespace: string; lastMs: number }>();
  private lastNanos = 0n;

  constructor(
    private readonly store: ObjectStore,
    private readonly wallNow: () => number,
    private readonly onError: (e: unknown) => void,
  ) {}

  private get enabled(): boolean {
    return this.store.type('', 'events') !== undefined;
  }

  record(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, source: EventSource, extra: { action?: string } = {}): void {
    if (!this.enabled) return;
    const namespace = obj.namespace ?? 'default';
    const key = [obj.uid ?? obj.name, obj.fieldPath ?? '', type, reason, message, source.component, source.host ?? ''].join('\u0000');
    const nowMs = this.wallNow();
    const ts = kubeTimestamp(nowMs);
    try {
      const seen = this.recent.get(key);
      if (seen && nowMs - seen.lastMs <= WINDOW_MS) {
        const old = this.store.get('', 'events', seen.namespace, seen.name);
        if (old) {
          this.touch(key, { ...seen, lastMs: nowMs });
          this.store.update('', 'events', { ...old, count: ((old.count as number) ?? 1) + 1, lastTimestamp: ts, metadata: { ...old.metadata } });
          return;
        }
      }
      const name = `${obj.name}.${this.nextNanos(nowMs).toString(16)}`;
      const event: KubeObject = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: { ...obj },
        reason,
        message,
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
      this.store.create('', 'events', event);
      this.touch(key, { name, namespace, lastMs: nowMs });
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

  private touch(key: string, v: { name: string; namespace: string; lastMs: number }): void {
    this.recent.delete(key);
    this.recent.set(key, v);
    if (this.recent.size > MAX_KEYS) this.recent.delete(this.recent.keys().next().value!);
  }
}

/** RFC 3339, second precision, UTC: how metav1.Time serialises. */
export function kubeTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
