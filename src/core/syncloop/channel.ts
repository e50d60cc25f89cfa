import { abortReason } from '../clock';

/**
 * Channel: a typed, bounded FIFO with Go channel semantics, the pipe between a sync-loop source and
 * syncLoopIteration.
 *
 * Guarantees:
 * - Memory is bounded: at most `capacity` values are buffered; a sender that finds no room either
 *   gets `false` (trySend) or waits (send) until a receiver makes room or its signal aborts.
 * - Order: values are received in the order they were accepted; blocked senders are admitted in
 *   the order they blocked (FIFO), so one source's messages never overtake each other.
 * - A send that rejected (abort, close) never delivers its value; a send that resolved delivered it
 *   exactly once.
 * - Receivers never miss a wake-up: readiness listeners fire whenever a value arrives or the channel
 *   closes; listeners are removed by the handle they return, so nothing accumulates per select.
 * - sendReceived resolves only once a receiver has taken the value (a rendezvous, for a sender that
 *   must know the receiver has handled one message before it sends the next elsewhere); if the
 *   channel closes first it rejects.
 */
export class ChannelClosedError extends Error {
  constructor(name: string) {
    super(`send on closed channel ${name}`);
    this.name = 'ChannelClosedError';
  }
}

interface BlockedSender<T> {
  value: T;
  resolve: () => void;
  reject: (e: Error) => void;
  done: boolean;
}

export type RecvResult<T> = { ok: true; value: T } | { ok: false; value?: undefined };

export class Channel<T> {
  private readonly ring: (T | undefined)[];
  private head = 0;
  private size = 0;
  private closed_ = false;
  private readonly blocked: BlockedSender<T>[] = [];
  /** Listeners in registration order; an array, not a Set: a Set shrinking as a select's listener left reallocated its table, on every select. */
  private readonly readable: (() => void)[] = [];
  /** Values accepted into the buffer, and taken out of it, since the channel was made. */
  private accepted = 0;
  private received = 0;
  /** sendReceived callers waiting for their value (the seq-th accepted) to be taken; in seq order. */
  private readonly receipts: { seq: number; resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(
    readonly capacity: number,
    readonly name = 'channel',
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array(capacity);
  }

  /** Values buffered now (not counting blocked senders). */
  get length(): number {
    return this.size;
  }

  /** Senders waiting for room. */
  get waitingSenders(): number {
    return this.blocked.length;
  }

  get closed(): boolean {
    return this.closed_;
  }

  /** Ready for a receive: a value is buffered, or the channel is closed (receive then reports ok: false). */
  get ready(): boolean {
    return this.size > 0 || this.closed_;
  }

  /** Non-blocking send (Go's select with default). False when full. Throws on a closed channel. */
  trySend(value: T): boolean {
    if (this.closed_) throw new ChannelClosedError(this.name);
    if (this.size >= this.capacity || this.blocked.length > 0) return false;
    this.push(value);
    return true;
  }

  /** Blocking send: resolves once the value is in the buffer; rejects on abort or close. */
  send(value: T, signal?: AbortSignal): Promise<void> {
    if (this.closed_) return Promise.reject(new ChannelClosedError(this.name));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.trySend(value)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        if (entry.done) return;
        entry.done = true;
        const i = this.blocked.indexOf(entry);
        if (i >= 0) this.blocked.splice(i, 1);
        reject(abortReason(signal!));
      };
      const entry: BlockedSender<T> = {
        value,
        done: false,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      this.blocked.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Blocking send that resolves once a receiver has taken the value (not merely buffered it). A
   * receiver in the same thread takes it synchronously, so a caller resumed by this has the receiver's
   * handling of the value ordered before anything it sends next. Rejects when the signal aborts or the
   * channel closes before the value was taken (the value may still be taken later: it was buffered).
   */
  async sendReceived(value: T, signal?: AbortSignal): Promise<void> {
    await this.send(value, signal);
    // Buffered: it is the accepted-th value. FIFO: it is taken when `received` reaches that count.
    const seq = this.accepted;
    if (this.received >= seq) return;
    if (signal?.aborted) throw abortReason(signal);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.receipts.indexOf(r);
        if (i >= 0) this.receipts.splice(i, 1);
        reject(abortReason(signal!));
      };
      const r = {
        seq,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e: Error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      this.receipts.push(r);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Non-blocking receive. ok: false when empty (or closed and drained). */
  tryRecv(): RecvResult<T> {
    if (this.size === 0) return { ok: false };
    const value = this.ring[this.head] as T;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
    this.received++;
    this.admitBlocked();
    while (this.receipts.length > 0 && this.receipts[0]!.seq <= this.received) this.receipts.shift()!.resolve();
    return { ok: true, value };
  }

  /** Blocking receive: waits for a value; ok: false once the channel is closed and drained. */
  async recv(signal?: AbortSignal): Promise<RecvResult<T>> {
    for (;;) {
      const r = this.tryRecv();
      if (r.ok || this.closed_) return r;
      await waitAny([this], signal);
    }
  }

  /** Closes the channel: buffered values stay receivable, blocked and future senders are rejected. */
  close(): void {
    if (this.closed_) return;
    this.closed_ = true;
    for (const b of this.blocked.splice(0)) {
      b.done = true;
      b.reject(new ChannelClosedError(this.name));
    }
    // A closed channel's loop has stopped: nobody will take what is buffered.
    for (const r of this.receipts.splice(0)) r.reject(new ChannelClosedError(this.name));
    this.notify();
  }

  /** Registers fn to run (once per registration, possibly spuriously) when the channel may have become ready. */
  onReadable(fn: () => void): () => void {
    this.readable.push(fn);
    return () => {
      const i = this.readable.indexOf(fn);
      if (i >= 0) this.readable.splice(i, 1);
    };
  }

  /** Listener count, for tests that prove selects leave nothing behind. */
  get listenerCount(): number {
    return this.readable.length;
  }

  private push(value: T): void {
    this.ring[(this.head + this.size) % this.capacity] = value;
    this.size++;
    this.accepted++;
    this.notify();
  }

  private admitBlocked(): void {
    while (this.size < this.capacity && this.blocked.length > 0) {
      const b = this.blocked.shift()!;
      b.done = true;
      this.ring[(this.head + this.size) % this.capacity] = b.value;
      this.size++;
      this.accepted++;
      b.resolve();
    }
    if (this.size > 0) this.notify();
  }

  private notify(): void {
    const fns = this.readable;
    if (fns.length === 0) return;
    if (fns.length === 1) return fns[0]!();
    // A listener removes itself (and may add others) while we call: call the ones registered now.
    for (const fn of fns.slice()) fn();
  }
}

/** Resolves when any channel may be ready; rejects on abort. Leaves no listener behind. */
export function waitAny(channels: readonly Channel<unknown>[], signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (channels.some((c) => c.ready)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const offs: (() => void)[] = [];
    const cleanup = () => {
      for (const off of offs) off();
      signal?.removeEventListener('abort', onAbort);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onAbort = () => {
      cleanup();
      reject(abortReason(signal!));
    };
    for (const c of channels) offs.push(c.onReadable(onReady));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
