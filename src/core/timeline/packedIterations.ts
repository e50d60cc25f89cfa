/**
 * PackedIterations: the timeline ring's columns for sync-loop iterations, the events a churning
 * cluster makes hundreds of a second. An iteration kept as a JS object costs ~210 bytes (the event,
 * its worker details, a message string of its own); packed, its numbers and codes sit in typed
 * arrays and its strings are references (~90 bytes), so a full 100,000-event ring holds ~12 MB less
 * of the extension host's heap.
 *
 * Guarantees:
 * - `pack` accepts an event only when `unpack` gives back an event deep-equal to it (same fields,
 *   same values; only the property order may differ): any field or value outside the packed shape
 *   (a probes list, an unknown field, an explicit `undefined`, a non-integer count, an object that is not a plain one) is refused and
 *   the caller keeps the object as it is.
 * - Memory is fixed by the capacity, except the tables of operation and handler names (at most
 *   65,535 each, then events with new names are refused) and a bounded table that shares equal
 *   message strings (cleared when full, so it never holds more than MESSAGE_TABLE_MAX entries).
 */
import type { PodWorkerDetails, SyncIterationEvent, SyncSource } from './events';

/** Eight at most: a source is 3 bits of the codes. */
const SOURCES: readonly SyncSource[] = ['config', 'pleg', 'sync', 'probe', 'housekeeping', 'informer', 'podworker', 'freshness'];
const OUTCOMES: readonly SyncIterationEvent['outcome'][] = ['ok', 'error', 'skipped'];
const WORKER_STATES: readonly PodWorkerDetails['state'][] = ['syncing', 'terminating', 'terminated'];
const EVENT_FIELDS = new Set(['kind', 't', 'durationMs', 'source', 'op', 'key', 'uid', 'handler', 'outcome', 'message', 'node', 'worker', 'inferred', 'data']);
const WORKER_FIELDS = new Set(['state', 'coalesced', 'nextDueT', 'gracePeriodSeconds', 'waitedMs']);
const MAX_NAMES = 0xffff;
export const MESSAGE_TABLE_MAX = 4096;

/** Flags: which optional fields the packed event has. */
const HAS_WORKER = 1;
const INFERRED = 2;
const HAS_NEXT_DUE = 4;
const HAS_GRACE = 8;
const HAS_WAITED = 16;

/** Strings by index, for the few distinct operation and handler names. */
class NameTable {
  private readonly index = new Map<string, number>();
  readonly names: string[] = [];
  /** The name's index, or -1 when the table is full. */
  indexOf(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      if (this.names.length >= MAX_NAMES) return -1;
      i = this.names.length;
      this.names.push(name);
      this.index.set(name, i);
    }
    return i;
  }
}

export class PackedIterations {
  private t = new Float64Array(0);
  private duration = new Float64Array(0);
  private nextDueT = new Float64Array(0);
  private grace = new Float64Array(0);
  private waited = new Float64Array(0);
  private coalesced = new Uint32Array(0);
  private op = new Uint16Array(0);
  private handler = new Uint16Array(0);
  /** source | outcome << 3 | worker state << 5 (each 0-based). */
  private codes = new Uint8Array(0);
  private flags = new Uint8Array(0);
  private readonly key: (string | undefined)[] = [];
  private readonly uid: (string | undefined)[] = [];
  private readonly node: (string | undefined)[] = [];
  private readonly message: (string | undefined)[] = [];
  private readonly data: (string | undefined)[] = [];
  private readonly ops = new NameTable();
  private readonly handlers = new NameTable();
  private messages = new Map<string, string>();
  /** Slots the columns have room for: grows by doubling up to the capacity, so a ring that stays small costs little. */
  private room = 0;

  constructor(readonly capacity: number) {}

  /** Makes room for slots 0..slot (a ring fills its slots in order before it wraps). */
  private ensure(slot: number): void {
    if (slot < this.room) return;
    const room = Math.min(this.capacity, Math.max(1024, this.room * 2, slot + 1));
    const grow = <A extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(a: A, make: (n: number) => A): A => {
      const b = make(room);
      b.set(a);
      return b;
    };
    this.t = grow(this.t, (n) => new Float64Array(n));
    this.duration = grow(this.duration, (n) => new Float64Array(n));
    this.nextDueT = grow(this.nextDueT, (n) => new Float64Array(n));
    this.grace = grow(this.grace, (n) => new Float64Array(n));
    this.waited = grow(this.waited, (n) => new Float64Array(n));
    this.coalesced = grow(this.coalesced, (n) => new Uint32Array(n));
    this.op = grow(this.op, (n) => new Uint16Array(n));
    this.handler = grow(this.handler, (n) => new Uint16Array(n));
    this.codes = grow(this.codes, (n) => new Uint8Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    for (const a of [this.key, this.uid, this.node, this.message, this.data]) while (a.length < room) a.push(undefined);
    this.room = room;
  }

  /** Packs `e` into `slot` and returns true, or returns false (slot untouched but its strings) when `e` does not fit the packed shape. */
  pack(slot: number, e: SyncIterationEvent): boolean {
    if (!packable(e)) return false;
    const source = SOURCES.indexOf(e.source);
    const outcome = OUTCOMES.indexOf(e.outcome);
    const w = e.worker;
    const state = w ? WORKER_STATES.indexOf(w.state) : 0;
    const op = this.ops.indexOf(e.op);
    const handler = this.handlers.indexOf(e.handler);
    if (source < 0 || outcome < 0 || state < 0 || op < 0 || handler < 0) return false;
    this.ensure(slot);
    let flags = 0;
    if (w) {
      flags |= HAS_WORKER;
      this.coalesced[slot] = w.coalesced;
      if (w.nextDueT !== undefined) {
        flags |= HAS_NEXT_DUE;
        this.nextDueT[slot] = w.nextDueT;
      }
      if (w.gracePeriodSeconds !== undefined) {
        flags |= HAS_GRACE;
        this.grace[slot] = w.gracePeriodSeconds;
      }
      if (w.waitedMs !== undefined) {
        flags |= HAS_WAITED;
        this.waited[slot] = w.waitedMs;
      }
    }
    if (e.inferred) flags |= INFERRED;
    this.t[slot] = e.t;
    this.duration[slot] = e.durationMs;
    this.op[slot] = op;
    this.handler[slot] = handler;
    this.codes[slot] = source | (outcome << 3) | (state << 5);
    this.flags[slot] = flags;
    this.key[slot] = e.key;
    this.uid[slot] = e.uid;
    this.node[slot] = e.node;
    this.message[slot] = e.message === undefined ? undefined : this.shared(e.message);
    this.data[slot] = e.data;
    return true;
  }

  /** Drops the strings a slot refers to (the ring put an unpacked event there). */
  release(slot: number): void {
    if (slot >= this.room) return;
    this.key[slot] = this.uid[slot] = this.node[slot] = this.message[slot] = this.data[slot] = undefined;
  }

  /** A fresh event equal to the one packed into `slot`. */
  unpack(slot: number): SyncIterationEvent {
    const codes = this.codes[slot];
    const flags = this.flags[slot];
    const e: SyncIterationEvent = {
      kind: 'iteration',
      t: this.t[slot],
      durationMs: this.duration[slot],
      source: SOURCES[codes & 7],
      op: this.ops.names[this.op[slot]],
      key: this.key[slot]!,
      handler: this.handlers.names[this.handler[slot]],
      outcome: OUTCOMES[(codes >> 3) & 3],
    };
    const uid = this.uid[slot];
    if (uid !== undefined) e.uid = uid;
    const message = this.message[slot];
    if (message !== undefined) e.message = message;
    const node = this.node[slot];
    if (node !== undefined) e.node = node;
    const data = this.data[slot];
    if (data !== undefined) e.data = data;
    if (flags & HAS_WORKER) {
      const w: PodWorkerDetails = { state: WORKER_STATES[(codes >> 5) & 3], coalesced: this.coalesced[slot] };
      if (flags & HAS_NEXT_DUE) w.nextDueT = this.nextDueT[slot];
      if (flags & HAS_GRACE) w.gracePeriodSeconds = this.grace[slot];
      if (flags & HAS_WAITED) w.waitedMs = this.waited[slot];
      e.worker = w;
    }
    if (flags & INFERRED) e.inferred = true;
    return e;
  }

  /** One string object for equal messages ("syncing; 2 updates coalesced into one sync" recurs thousands of times). */
  private shared(m: string): string {
    const known = this.messages.get(m);
    if (known !== undefined) return known;
    if (this.messages.size >= MESSAGE_TABLE_MAX) this.messages = new Map();
    this.messages.set(m, m);
    return m;
  }
}

/** Whether every field of `e` is one the columns hold, with a value they hold exactly. */
function packable(e: SyncIterationEvent): boolean {
  if (Object.getPrototypeOf(e) !== Object.prototype) return false;
  for (const k in e) {
    if (!EVENT_FIELDS.has(k)) return false;
    if ((e as unknown as Record<string, unknown>)[k] === undefined) return false;
  }
  if (typeof e.t !== 'number' || typeof e.durationMs !== 'number' || typeof e.key !== 'string' || typeof e.op !== 'string' || typeof e.handler !== 'string')
    return false;
  if (
    (e.uid !== undefined && typeof e.uid !== 'string') ||
    (e.node !== undefined && typeof e.node !== 'string') ||
    (e.message !== undefined && typeof e.message !== 'string') ||
    (e.data !== undefined && typeof e.data !== 'string')
  )
    return false;
  if (e.inferred !== undefined && e.inferred !== true) return false;
  const w = e.worker;
  if (w !== undefined) {
    if (typeof w !== 'object' || w === null || Object.getPrototypeOf(w) !== Object.prototype) return false;
    for (const k in w) {
      if (!WORKER_FIELDS.has(k)) return false;
      if ((w as unknown as Record<string, unknown>)[k] === undefined) return false;
    }
    if (!Number.isInteger(w.coalesced) || w.coalesced < 0 || w.coalesced > 0xffffffff) return false;
    if (w.nextDueT !== undefined && typeof w.nextDueT !== 'number') return false;
    if (w.gracePeriodSeconds !== undefined && typeof w.gracePeriodSeconds !== 'number') return false;
    if (w.waitedMs !== undefined && typeof w.waitedMs !== 'number') return false;
  }
  return true;
}
