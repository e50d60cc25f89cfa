/**
 * WorkQueue: client-go's workqueue as the demo's controllers need it, keyed by "namespace/name".
 *
 * Guarantees:
 * - A key is queued at most once however often it is added (a burst of store events for one
 *   object becomes one reconcile), and never processed by two drains at once.
 * - add() only records the key; processing runs later in a macrotask (setImmediate), never inside
 *   the store write that triggered it, and yields to the event loop after a 10 ms slice.
 * - addAfter() re-queues a key after a delay on the given clock (a controller waiting for
 *   minReadySeconds, a back-off, a cron schedule); stop() cancels every pending timer.
 * - A throwing reconcile is reported to onError and the key is retried after a short back-off.
 */
import type { KubeletClock, KubeletTimer } from '../kubelet/kubeletClock';

const SLICE_MS = 10;
const RETRY_MS = 500;

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: KubeletTimer }>();
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly reconcile: (key: string) => void,
    private readonly clock: KubeletClock,
    private readonly onError: (e: unknown) => void,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  /** Adds key after ms (the earlier of two requests wins). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const cur = this.delayed.get(key);
    if (cur && cur.at <= at) return;
    cur?.timer.cancel();
    const timer = this.clock.setTimer(ms, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { at, timer });
  }

  get length(): number {
    return this.pending.size;
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    for (const d of this.delayed.values()) d.timer.cancel();
    this.delayed.clear();
  }

  private drain(): void {
    this.scheduled = false;
    const start = performance.now();
    while (!this.stopped && this.pending.size > 0) {
      const key = this.pending.values().next().value!;
      this.pending.delete(key);
      try {
        this.reconcile(key);
      } catch (e) {
        this.onError(e);
        this.addAfter(key, RETRY_MS);
      }
      if (performance.now() - start > SLICE_MS && this.pending.size > 0) {
        this.scheduled = true;
        setImmediate(() => this.drain());
        return;
      }
    }
  }
}

export const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  const namespace = key.slice(0, i);
  return { namespace: namespace || undefined, name: key.slice(i + 1) };
}
