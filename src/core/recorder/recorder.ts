/**
 * Recorder: turns what the sync loop's watches deliver (a reflector's full list, then its watch
 * events) and the timeline's events into recording records, through a RecordingWriter.
 *
 * Guarantees:
 * - Every object is masked (core/kube/redact.ts) before it is held or written; the recorder keeps
 *   only masked copies, which are also the keyframes' content. It is never given a client or a
 *   kubeconfig, so no credential can reach it.
 * - A full list (replace) is recorded as the changes it makes: objects new to that source are
 *   added, changed ones modified, and ones the source held but the list lacks deleted, so replaying
 *   the deltas rebuilds exactly what the watches showed. An unchanged object is not recorded again.
 * - Memory: one masked object per held key (the set the sync loop holds) plus the writer's pending
 *   records (bounded, see writer.ts).
 * - Flushes at least every flushEveryMs (default 1 s) while started: a killed process loses at most
 *   about that much.
 * - Never throws into the watch path: a failed writer stops recording and is reported once.
 */
import { realClock, type Clock, type TimerHandle } from '../clock';
import { redactObject } from '../kube/redact';
import type { TimelineEvent } from '../timeline/events';
import { deltaOf } from './diff';
import { objectKey, type Obj } from './records';
import type { RecordingWriter } from './writer';

export interface RecordedType {
  group: string;
  resource: string;
}

interface Meta {
  name?: string;
  namespace?: string;
}

/** What the sync loop's sources tell an observer (ClusterSync's `observer` option). */
export interface SyncObserver {
  /** A reflector's full list for source `source` (a type in one namespace or all). */
  replace(source: string, type: RecordedType, items: readonly Obj[]): void;
  /** One watch event of that source. */
  apply(source: string, type: RecordedType, event: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Obj): void;
}

export interface RecorderOptions {
  clock?: Clock;
  /** Wall-clock ms (default Date.now). */
  now?: () => number;
  flushEveryMs?: number;
  onError?: (e: Error) => void;
}

export class Recorder implements SyncObserver {
  /** key -> masked object: the state the keyframes hold. */
  private readonly held = new Map<string, Obj>();
  /** source -> keys it holds (a relist deletes only its own). */
  private readonly bySource = new Map<string, Set<string>>();
  /** key -> the JSON length of its object, once measured. */
  private readonly bytes = new Map<string, number>();
  private timer: TimerHandle | undefined;
  private reported = false;
  private readonly now: () => number;
  private readonly clock: Clock;

  constructor(
    readonly writer: RecordingWriter,
    private readonly opts: RecorderOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.clock = opts.clock ?? realClock;
  }

  /** The snapshot function for the writer's keyframes. */
  static snapshotOf(r: () => Recorder | undefined): () => Iterable<[string, Obj]> {
    return () => r()?.held.entries() ?? [];
  }

  /** Whether an object (objectKey: `resource[.group]/namespace/name`) is held now. */
  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** How many objects are held now. */
  get size(): number {
    return this.held.size;
  }

  /** Starts the periodic flush; stops with the signal (then flushes and closes the writer). */
  start(signal: AbortSignal): Promise<void> {
    const every = this.opts.flushEveryMs ?? 1000;
    const tick = () => {
      if (signal.aborted) return;
      // Not `signal`: a flush under way when the run ends must finish, not fail the writer; the
      // close that follows writes the rest.
      void this.writer.flush(new AbortController().signal).then(() => this.check());
      this.timer = this.clock.setTimer(every, tick);
    };
    this.timer = this.clock.setTimer(every, tick);
    return new Promise<void>((resolve) => {
      const end = () => {
        this.timer?.cancel();
        void this.writer
          .close(new AbortController().signal)
          .then(() => this.check())
          .finally(resolve);
      };
      if (signal.aborted) end();
      else signal.addEventListener('abort', end, { once: true });
    });
  }

  replace(source: string, type: RecordedType, items: readonly Obj[]): void {
    const before = this.bySource.get(source) ?? new Set<string>();
    const now = new Set<string>();
    for (const item of items) {
      const key = this.keyOf(type, item);
      if (!key) continue;
      now.add(key);
      this.put(key, type, item);
    }
    for (const key of before) if (!now.has(key)) this.remove(key);
    this.bySource.set(source, now);
  }

  apply(source: string, type: RecordedType, event: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Obj): void {
    const key = this.keyOf(type, obj);
    if (!key) return;
    let keys = this.bySource.get(source);
    if (!keys) this.bySource.set(source, (keys = new Set()));
    if (event === 'DELETED') {
      keys.delete(key);
      this.remove(key);
    } else {
      keys.add(key);
      this.put(key, type, obj);
    }
  }

  timeline(e: TimelineEvent): void {
    this.writer.add({ k: 'T', t: this.now(), e });
    this.check();
  }

  private keyOf(type: RecordedType, obj: Obj): string | undefined {
    const m = obj.metadata as Meta | undefined;
    return m?.name ? objectKey(type, m.namespace, m.name) : undefined;
  }

  private put(key: string, type: RecordedType, obj: Obj): void {
    const masked = redactObject(type, obj);
    const old = this.held.get(key);
    const d = deltaOf(old, masked, this.bytes.get(key));
    if (!d) return; // unchanged (a relist repeating it)
    this.held.set(key, masked);
    // The object's JSON length as first measured: an estimate, only used to choose patch or whole.
    if ('p' in d) this.bytes.set(key, d.size);
    else this.bytes.delete(key);
    const t = this.now();
    const op = old ? 'M' : 'A';
    if ('p' in d) {
      // The patch's JSON was made to weigh it: the record's line reuses it instead of a second pass.
      this.writer.add({ k: 'D', t, op, key, p: d.p }, `{"k":"D","t":${JSON.stringify(t)},"op":"${op}","key":${JSON.stringify(key)},"p":${d.json}}`);
    } else {
      this.writer.add({ k: 'D', t, op, key, o: d.o });
    }
    this.check();
  }

  private remove(key: string): void {
    this.bytes.delete(key);
    if (!this.held.delete(key)) return;
    this.writer.add({ k: 'D', t: this.now(), op: 'D', key });
    this.check();
  }

  private check(): void {
    const e = this.writer.failed;
    if (e && !this.reported) {
      this.reported = true;
      this.opts.onError?.(e);
    }
  }
}
