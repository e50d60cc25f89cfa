/**
 * Time slices for long work on a thread shared with others (the extension host runs every
 * extension the user has): a first list of 500,000 pods, or 50,000 pod workers starting at once,
 * runs as a chain of synchronous steps and resolved promises that never gives the event loop back.
 * Such work asks `hostSlicer.due()` at safe points and awaits what it returns.
 *
 * Guarantees:
 * - `due()` returns undefined (go on, synchronously) while the current stretch of this thread has
 *   run less than `sliceMs`; the stretch starts at the first `due()` after the thread was free
 *   (timers, I/O and other callbacks ran), so an isolated event never waits for a macrotask.
 * - Once the slice is spent it returns a promise resolved on a later macrotask (setImmediate), so
 *   timers, I/O and other work run first. Callers parked that way resume in the order they parked
 *   (FIFO), a few at a time: the next one is let go only while the new slice has time left, so a
 *   crowd of parked callers cannot form one long stretch again.
 * - Nothing stays parked: the queue is drained slice by slice until it is empty; a caller that
 *   parks while others wait joins the end of the queue.
 * Costs one clock read per call while not parked. Work between two calls is not cut: callers ask
 * often enough (a few hundred items between calls) that a step stays well under a slice.
 */
export const SLICE_MS = 8;

export class TimeSlicer {
  private since = 0;
  private armed = false;
  private parked: Array<() => void> = [];
  private head = 0;
  private pumping = false;

  constructor(
    readonly sliceMs = SLICE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Undefined: go on now. A promise: await it before the next step (resolved on a later macrotask). */
  due(): Promise<void> | undefined {
    if (this.pumping) return this.park(); // others wait their turn: join the queue
    const t = this.now();
    if (!this.armed) {
      // The first call since the thread was free starts the stretch; the immediate marks its end.
      this.armed = true;
      this.since = t;
      setImmediate(this.disarm);
      return undefined;
    }
    return t - this.since < this.sliceMs ? undefined : this.park();
  }

  /** Callers waiting for a slice now (for tests). */
  get waiting(): number {
    return this.parked.length - this.head;
  }

  private park(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.parked.push(resolve);
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(this.pump);
      }
    });
  }

  private readonly disarm = (): void => {
    this.armed = false;
  };

  private readonly pump = (): void => {
    this.since = this.now();
    this.armed = true;
    setImmediate(this.disarm);
    this.release(true);
  };

  /**
   * Lets the next parked caller go, then (after its continuation started) the next, while the
   * slice has time; a turn always lets at least one go, so the queue drains whatever the slice.
   */
  private readonly release = (first = false): void => {
    if (this.head === this.parked.length) {
      this.parked = [];
      this.head = 0;
      this.pumping = false;
      return;
    }
    if (!first && this.now() - this.since >= this.sliceMs) {
      setImmediate(this.pump);
      return;
    }
    const resolve = this.parked[this.head]!;
    this.parked[this.head++] = undefined as unknown as () => void; // no reference kept to a resumed caller
    resolve();
    queueMicrotask(() => this.release());
  };
}

/** The slicer of this thread: every long job on it shares one budget. */
export const hostSlicer = new TimeSlicer();

/**
 * Steps of a long job: a generator that yields at safe points (between items) and returns the
 * job's result. The same steps run to the end at once (runSteps) or sliced (runStepsSliced).
 */
export type Steps<R> = Generator<void, R, void>;

/** Runs every step now, synchronously (tests, small inputs). */
export function runSteps<R>(steps: Steps<R>): R {
  for (;;) {
    const n = steps.next();
    if (n.done) return n.value;
  }
}

/** Runs the steps, giving the thread back whenever the slicer says the slice is spent. */
export async function runStepsSliced<R>(steps: Steps<R>, slicer: TimeSlicer = hostSlicer): Promise<R> {
  for (;;) {
    const n = steps.next();
    if (n.done) return n.value;
    const wait = slicer.due();
    if (wait) await wait;
  }
}

/** How many items a step covers: a yield point every STEP_ITEMS items of a loop. */
export const STEP_ITEMS = 256;
