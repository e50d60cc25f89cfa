/**
 * EventCorrelator: what client-go's tools/record events_cache.go does to every Event before it is
 * written, so the demo cluster's Events look like a real kubelet's (numbers from client-go):
 *
 * 1. Spam filter (EventSourceObjectSpamFilter): a token bucket per source + involved object
 *    (component, host, kind, namespace, name, uid, apiVersion) with a burst of 25 and a refill of
 *    one token every 5 minutes (qps 1/300). An Event without a token is dropped.
 * 2. Aggregation (EventAggregator): Events with the same source, object, type and reason but
 *    different messages are counted per 10-minute window; from the 10th distinct message on they
 *    become one Event with the message "(combined from similar events): <latest message>".
 * 3. Deduplication (eventLogger): an Event with the same key as one already written (same object,
 *    fieldPath, type, reason, message, source — or the aggregate key) updates it: count + 1, a new
 *    lastTimestamp (and message); otherwise a new Event is created.
 *
 * Memory: every cache is an LRU of 4096 keys (client-go's maxLruCacheEntries). Pure: time comes in
 * as an argument (simulated ms, so a faster demo refills faster).
 */
export const MAX_LRU_CACHE_ENTRIES = 4096;
export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_MS = 600_000;
export const SPAM_BURST = 25;
export const SPAM_QPS = 1 / 300;
export const COMBINED_PREFIX = '(combined from similar events): ';

export interface CorrelatedEvent {
  source: { component: string; host?: string };
  involvedObject: { kind: string; namespace?: string; name: string; uid?: string; apiVersion: string; fieldPath?: string };
  type: string;
  reason: string;
  message: string;
}

export type Correlation = { skip: true } | { skip: false; key: string; message: string; aggregated: boolean };

class Lru<V> {
  private readonly m = new Map<string, V>();
  constructor(private readonly cap = MAX_LRU_CACHE_ENTRIES) {}
  get(k: string): V | undefined {
    const v = this.m.get(k);
    if (v !== undefined) {
      this.m.delete(k);
      this.m.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.cap) this.m.delete(this.m.keys().next().value!);
  }
  get size(): number {
    return this.m.size;
  }
}

export class EventCorrelator {
  private readonly spam = new Lru<{ tokens: number; at: number }>();
  private readonly aggregate = new Lru<{ localKeys: Set<string>; lastMs: number }>();

  /** Decides what becomes of one Event recorded at `nowMs`. */
  correlate(e: CorrelatedEvent, nowMs: number): Correlation {
    if (!this.takeToken(spamKey(e), nowMs)) return { skip: true };
    const aKey = aggregateKey(e);
    let rec = this.aggregate.get(aKey);
    if (!rec || nowMs - rec.lastMs > AGGREGATE_INTERVAL_MS) rec = { localKeys: new Set(), lastMs: nowMs };
    rec.localKeys.add(e.message);
    rec.lastMs = nowMs;
    this.aggregate.set(aKey, rec);
    if (rec.localKeys.size < AGGREGATE_MAX_EVENTS) return { skip: false, key: eventKey(e), message: e.message, aggregated: false };
    return { skip: false, key: aKey, message: COMBINED_PREFIX + e.message, aggregated: true };
  }

  /** Token bucket (flowcontrol.NewTokenBucketRateLimiter): starts full, refills at SPAM_QPS. */
  private takeToken(key: string, nowMs: number): boolean {
    const b = this.spam.get(key) ?? { tokens: SPAM_BURST, at: nowMs };
    b.tokens = Math.min(SPAM_BURST, b.tokens + ((nowMs - b.at) / 1000) * SPAM_QPS);
    b.at = nowMs;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.spam.set(key, b);
    return ok;
  }
}

const SEP = '\u0000';

function objectPart(e: CorrelatedEvent): string[] {
  const o = e.involvedObject;
  return [e.source.component, e.source.host ?? '', o.kind, o.namespace ?? '', o.name, o.uid ?? '', o.apiVersion];
}

/** getSpamKey: source and object. */
export function spamKey(e: CorrelatedEvent): string {
  return objectPart(e).join(SEP);
}

/** EventAggregatorByReasonFunc: source, object, type, reason (not the message, not the fieldPath). */
export function aggregateKey(e: CorrelatedEvent): string {
  return [...objectPart(e), e.type, e.reason].join(SEP);
}

/** getEventKey: source, object with fieldPath, type, reason, message. */
export function eventKey(e: CorrelatedEvent): string {
  return [...objectPart(e), e.involvedObject.fieldPath ?? '', e.type, e.reason, e.message].join(SEP);
}
