/**
 * Recorder: turns what the sync loop's watches deliver (a reflector's full list, then its watch
 * events) and the timeline's events into recording records, through a RecordingWriter.
 *
 * Guarantees:
 * - Every object is masked (core/kube/objects/redact.ts), its managedFields kept in their recorded
 *   form (managed.ts: who wrote each version, for the writers model), and cut at MAX_OBJECT_DEPTH (core/kube/objects/depth.ts:
 *   a walk of one nested deeper would overflow the stack and stop the recording) before it is
 *   diffed or written, keyframes included. What
 *   it holds per key is the object the watch delivered (the sync loop holds the same one, and never
 *   changes an object it was given, nor does the recorder), not a masked copy: a copy (a Secret, or
 *   any object with managedFields, which is every object a real API server sends) would live as
 *   long as the key's version, one more old-generation object per change. Masked copies are made
 *   when a change is written (the version before and the new one, diffed masked) and die young. It
 *   is never given a client or a kubeconfig, so no credential can reach it.
 * - A full list (replace) is recorded as the changes it makes: objects new to that source are
 *   added, changed ones modified, and ones the source held but the list lacks deleted, so replaying
 *   the deltas rebuilds exactly what the watches showed. An unchanged object is not recorded again.
 * - Cheap on the watch path: a list, a watch event or a timeline event is only queued (its time
 *   taken, the object by reference); masking, the diff and serializing run when the writer flushes
 *   (or when holds() or size is asked), one record after another in the order they came, so the
 *   recording is the same as if each had been handled at once. The objects, lists and events
 *   given must not change afterwards (the sync loop never changes what it was given, nor the
 *   timeline an event once appended; a list is copied).
 * - Memory: one entry per held key, referencing the object the sync loop holds too (Events, which
 *   the loop does not hold, are the recorder's own), the queue (flushed at
 *   QUEUE_LIMIT entries whatever the timer) and the writer's pending records (bounded, see
 *   writer.ts).
 * - Flushes at least every flushEveryMs (default 1 s) while started: a killed process loses at most
 *   about that much.
 * - Never throws into the watch path: a failed writer stops recording and is reported once.
 */
import { realClock, type Clock, type TimerHandle } from '../clock';
import { cappedView } from '../kube/objects/depth';
import { redactObject } from '../kube/objects/redact';
import type { TimelineEvent } from '../timeline/events';
import { deltaOf } from './diff';
import { withRecordedManagedFields } from './managed';
import { objectKey, type Obj } from './records';
import type { RecordingWriter } from './writer';
import type { SyncObserver } from '../syncloop/observer';

export interface RecordedType {
  group: string;
  resource: string;
}

interface Meta {
  name?: string;
  namespace?: string;
}

export interface RecorderOptions {
  clock?: Clock;
  /** Wall-clock ms (default Date.now). */
  now?: () => number;
  flushEveryMs?: number;
  onError?: (e: Error) => void;
}

/** Queued entries that force a flush before the timer's (a burst of watch events). */
const QUEUE_LIMIT = 4096;

/** What a queued entry is. */
const Q_TIMELINE = 0;
const Q_PUT = 1;
const Q_DELETE = 2;
const Q_LIST = 3;

/** One held object: one map entry per key, so a change looks its key up once. */
interface Held {
  /** The object as delivered (unmasked: masked whenever it is written). */
  o: Obj;
  /** Its type (which masking depends on). */
  type: RecordedType;
  /** The JSON length of the object when last written whole (an estimate after patches). */
  bytes: number;
  /** The source whose key set holds the key (the last that delivered it). */
  source: string;
}

/** The queue, one index across five arrays (no object per entry): what, when, source, type, object (or event, or list). */
class Queue {
  what: number[] = [];
  t: number[] = [];
  source: (string | undefined)[] = [];
  type: (RecordedType | undefined)[] = [];
  ref: unknown[] = [];

  clear(): void {
    // Kept at their size: the next second's entries need about as many.
    this.what.length = 0;
    this.t.length = 0;
    this.source.length = 0;
    this.type.length = 0;
    this.ref.length = 0;
  }
}

export class Recorder implements SyncObserver {
  /** key -> the held object: the state the keyframes hold. */
  private readonly held = new Map<string, Held>();
  /** source -> keys it holds (a relist deletes only its own). */
  private readonly bySource = new Map<string, Set<string>>();
  /** The queue being filled, and the other one (being drained, or empty). */
  private q = new Queue();
  private spare = new Queue();
  private draining = false;
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
    writer.beforeFlush(() => this.drain());
  }

  /** The snapshot function for the writer's keyframes. */
  static snapshotOf(r: () => Recorder | undefined): () => Iterable<[string, Obj]> {
    return () => {
      const rec = r();
      return rec ? rec.objects() : [];
    };
  }

  private *objects(): Generator<[string, Obj]> {
    for (const [key, h] of this.held) yield [key, written(h.type, h.o)];
  }

  /** Whether an object (objectKey: `resource[.group]/namespace/name`) is held now. */
  holds(key: string): boolean {
    this.drain();
    return this.held.has(key);
  }

  /** How many objects are held now. */
  get size(): number {
    this.drain();
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

  replace(source: string, type: RecordedType, items: readonly object[]): void {
    this.enqueue(Q_LIST, source, type, items.slice());
  }

  apply(source: string, type: RecordedType, event: 'ADDED' | 'MODIFIED' | 'DELETED', obj: object): void {
    this.enqueue(event === 'DELETED' ? Q_DELETE : Q_PUT, source, type, obj);
  }

  timeline(e: TimelineEvent): void {
    this.enqueue(Q_TIMELINE, undefined, undefined, e);
  }

  private enqueue(what: number, source: string | undefined, type: RecordedType | undefined, ref: unknown): void {
    if (this.writer.done) return;
    const q = this.q;
    q.what.push(what);
    q.t.push(this.now());
    q.source.push(source);
    q.type.push(type);
    q.ref.push(ref);
    if (q.what.length >= QUEUE_LIMIT) void this.writer.flush(new AbortController().signal).then(() => this.check());
  }

  /**
   * Handles what is queued, in order, giving the writer its records. Re-entered (the writer flushing
   * early while this gives it records) it returns at once: the outer call goes on.
   */
  private drain(): void {
    if (this.draining || this.q.what.length === 0) return;
    this.draining = true;
    // Entries queued while this runs (the writer's early flush) go to the other queue.
    const q = this.q;
    this.q = this.spare;
    const { what: qWhat, t: qT, source: qSource, type: qType, ref: qRef } = q;
    try {
      for (let i = 0; i < qWhat.length; i++) {
        const what = qWhat[i]!;
        const t = qT[i]!;
        if (what === Q_TIMELINE) this.writer.timeline(t, qRef[i] as TimelineEvent);
        else if (what === Q_LIST) this.list(t, qSource[i]!, qType[i]!, qRef[i] as Obj[]);
        else this.change(t, qSource[i]!, qType[i]!, what === Q_DELETE, qRef[i] as Obj);
      }
    } finally {
      q.clear();
      this.spare = q;
      this.draining = false;
    }
    this.check();
  }

  private list(t: number, source: string, type: RecordedType, items: readonly Obj[]): void {
    const before = this.bySource.get(source) ?? new Set<string>();
    const now = new Set<string>();
    for (const item of items) {
      const key = this.keyOf(type, item);
      if (!key) continue;
      now.add(key);
      this.put(t, source, key, type, item);
    }
    for (const key of before) if (!now.has(key)) this.remove(t, key);
    this.bySource.set(source, now);
  }

  private change(t: number, source: string, type: RecordedType, deleted: boolean, obj: Obj): void {
    const key = this.keyOf(type, obj);
    if (!key) return;
    if (deleted) {
      this.bySource.get(source)?.delete(key);
      this.remove(t, key);
      return;
    }
    // A key its source already holds (a modification, mostly) needs no set update.
    if (this.put(t, source, key, type, obj)) return;
    let keys = this.bySource.get(source);
    if (!keys) this.bySource.set(source, (keys = new Set()));
    keys.add(key);
  }

  private keyOf(type: RecordedType, obj: Obj): string | undefined {
    const m = obj.metadata as Meta | undefined;
    return m?.name ? objectKey(type, m.namespace, m.name) : undefined;
  }

  /** Records `obj` as key's state; true when `source` already held the key (its key set is up to date). */
  private put(t: number, source: string, key: string, type: RecordedType, obj: Obj): boolean {
    const h = this.held.get(key);
    if (!h) {
      const json = JSON.stringify(written(type, obj));
      // Its length known from now on: the next change weighs its patch against it without serializing again.
      this.held.set(key, { o: obj, type, bytes: json.length, source });
      this.writer.delta(t, 'A', key, 1, json);
      return false;
    }
    const same = h.source === source;
    h.source = source;
    if (h.o === obj) return same; // the same version (a relist repeating what the loop holds)
    const d = deltaOf(written(h.type, h.o), written(type, obj), h.bytes);
    h.o = obj;
    h.type = type;
    if (!d) return same; // unchanged (a relist repeating it)
    if ('p' in d) {
      // The patch's JSON was made to weigh it: the record reuses it.
      this.writer.delta(t, 'M', key, 2, d.json);
    } else {
      const json = JSON.stringify(d.o);
      h.bytes = json.length;
      this.writer.delta(t, 'M', key, 1, json);
    }
    return same;
  }

  private remove(t: number, key: string): void {
    if (!this.held.delete(key)) return;
    this.writer.delta(t, 'D', key, 0, undefined);
  }

  private check(): void {
    const e = this.writer.failed;
    if (e && !this.reported) {
      this.reported = true;
      this.opts.onError?.(e);
    }
  }
}

/**
 * An object as the recording has it: masked, its managedFields in their recorded form (managed.ts),
 * and cut at MAX_OBJECT_DEPTH (a copy of the path to a cut; usually `obj` itself).
 */
function written(type: RecordedType, obj: Obj): Obj {
  return cappedView(withRecordedManagedFields(redactObject(type, obj), obj));
}
