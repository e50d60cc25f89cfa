/**
 * WorkerPool: Concurrency workers, a bounded task queue, one AbortSignal, exactly one result per task.
 *
 * Modeled on Kyverno's `pkg/cli/loader/worker.go` (a task queue and a result queue buffered to
 * QueueSize = 2 x Concurrency, N workers), keeping its vocabulary and none of its defects.
 *
 * Lifecycle: open --close()--> closing --(drained)--> closed
 *            open/closing --abort()--> aborted --(running tasks settled or detached)--> closed
 *
 * Guarantees (each one is also stated next to the code that keeps it):
 * 1. Every task accepted by submit() yields exactly one PoolResult: 'ok', 'error' or 'cancelled'.
 *    Nothing is dropped, nothing is delivered twice.
 * 2. submit() applies backpressure: when the queue (2 x Concurrency) is full it waits for room, in
 *    FIFO order. It rejects with PoolClosedError only when the pool was closed before the call, or
 *    aborted while the call was still waiting (the task was then never accepted, and the caller knows).
 * 3. One AbortController per pool, linked to the caller's signal; abort reaches every running task
 *    through its TaskContext.signal, and every queued task becomes a 'cancelled' result at once.
 * 4. Results never wait for the consumer: they go to a callback or to an unbounded AsyncQueue, so no
 *    worker can block on a full result queue and close() always completes.
 * 5. After the pool is closed nothing of it is left: no timers (per-task deadlines and abort-grace
 *    timers are cancelled when their task settles), no listener on the caller's signal.
 * 6. The per-task deadline counts progress: a task that calls ctx.progress() (the loader does on
 *    every page and every body chunk) is aborted only after taskTimeoutMs *without* progress, so a
 *    long list that keeps receiving is never killed, while one that stalls still is. A task that
 *    never reports progress sees a fixed deadline. Still one timer per running task: progress only
 *    records the time, and the timer, when it fires early, re-arms itself for the rest.
 */
import { abortReason, realClock, type Clock, type TimerHandle } from '../clock';
import { AsyncQueue } from './asyncQueue';
import { PoolClosedError, TaskTimeoutError } from './errors';
import { Fifo } from './fifo';
import type { LaneMember, SharedLanes } from './sharedLanes';

export const MIN_CONCURRENCY = 1;
export const MAX_CONCURRENCY = 32;
export const DEFAULT_CONCURRENCY = 4;

/** What a running task gets: its signal (pool abort or its own deadline), its worker lane and id. */
export interface TaskContext {
  signal: AbortSignal;
  workerId: number;
  taskId: number;
  /** The task made progress (a page, a body chunk): its deadline starts again from now (guarantee 6). Cheap. */
  progress(): void;
}

interface PoolResultBase<T> {
  taskId: number;
  task: T;
  /** Worker lane 0..Concurrency-1; -1 for a task cancelled while still queued. */
  workerId: number;
  startedAt: number; // Clock time; for a task that never started, the time it was cancelled
  endedAt: number;
  durationMs: number;
}

export type PoolResult<T, R> = PoolResultBase<T> &
  ({ status: 'ok'; value: R } | { status: 'error'; error: unknown } | { status: 'cancelled'; reason: unknown });

export interface PoolSummary {
  submitted: number;
  ok: number;
  error: number;
  cancelled: number;
  aborted: boolean;
  /** Tasks that ignored their aborted signal longer than abortGraceMs and were given up on. */
  detached: number;
  /** The first exception thrown by onResult, if any (it never stops the pool). */
  callbackError?: unknown;
}

export interface WorkerPoolOptions<T, R> {
  /** The work. It must honour ctx.signal; a task that does not is detached after abortGraceMs. */
  run: (task: T, ctx: TaskContext) => Promise<R>;
  /** Number of workers, an integer 1..32; default 4. */
  concurrency?: number;
  /** The caller's signal: aborting it aborts the pool. */
  signal?: AbortSignal;
  clock?: Clock;
  /**
   * Per-task idle deadline in ms: the task's signal aborts with TaskTimeoutError after this long
   * without ctx.progress() (from its start when it never calls it). 0 or unset: none.
   */
  taskTimeoutMs?: number;
  /** How long an aborted task may take to settle before the pool gives up on it. Default 2000 ms. */
  abortGraceMs?: number;
  /** Called when a task starts on a worker (before run). */
  onStart?: (info: { taskId: number; task: T; workerId: number; startedAt: number }) => void;
  /**
   * A budget of lanes shared with other pools (one per cluster of a multi-cluster load): a task
   * starts only on an idle worker of this pool AND with a seat of the budget (sharedLanes.ts). The
   * pool joins the budget when made, or adopts `member` (joined earlier by its owner, holding no
   * seat), and leaves it when closed, giving back every seat.
   */
  lanes?: { shared: SharedLanes; name: string; member?: LaneMember };
  /** Delivery by callback. When given, results() is not available (nothing is buffered twice). */
  onResult?: (result: PoolResult<T, R>) => void;
}

interface Entry<T> {
  taskId: number;
  task: T;
}

interface Running<T> {
  entry: Entry<T>;
  workerId: number;
  startedAt: number;
  ac: AbortController;
  deadline?: TimerHandle;
  /** Clock time of the last ctx.progress() (the start, before any). */
  lastProgress: number;
  grace?: TimerHandle;
  timedOut: boolean;
  settled: boolean;
}

interface Submitter<T> {
  entry: Entry<T>;
  resolve: (taskId: number) => void;
  reject: (e: Error) => void;
}

export function validateConcurrency(value: number | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  if (!Number.isInteger(value) || value < MIN_CONCURRENCY || value > MAX_CONCURRENCY) {
    throw new RangeError(`concurrency must be an integer from ${MIN_CONCURRENCY} to ${MAX_CONCURRENCY}, got ${String(value)}`);
  }
  return value;
}

export class WorkerPool<T, R> {
  readonly concurrency: number;
  /** Queue size = 2 x Concurrency, as upstream; here it bounds memory, it never drops. */
  readonly queueSize: number;
  private readonly clock: Clock;
  private readonly opts: WorkerPoolOptions<T, R>;
  private readonly ac = new AbortController();
  private state: 'open' | 'closing' | 'aborted' | 'closed' = 'open';
  private nextTaskId = 0;
  private readonly queue = new Fifo<Entry<T>>();
  private readonly submitters = new Fifo<Submitter<T>>();
  private readonly idle: number[] = [];
  private readonly running = new Map<number, Running<T>>();
  private readonly stream: AsyncQueue<PoolResult<T, R>> | undefined;
  private readonly summary: PoolSummary = { submitted: 0, ok: 0, error: 0, cancelled: 0, aborted: false, detached: 0 };
  private readonly donePromise: Promise<PoolSummary>;
  private resolveDone!: (s: PoolSummary) => void;
  private readonly onCallerAbort: (() => void) | undefined;
  private readonly seat: LaneMember | undefined;

  constructor(opts: WorkerPoolOptions<T, R>) {
    this.concurrency = validateConcurrency(opts.concurrency);
    if (opts.taskTimeoutMs !== undefined && !(opts.taskTimeoutMs >= 0)) throw new RangeError(`taskTimeoutMs must be >= 0, got ${opts.taskTimeoutMs}`);
    if (opts.abortGraceMs !== undefined && !(opts.abortGraceMs >= 0)) throw new RangeError(`abortGraceMs must be >= 0, got ${opts.abortGraceMs}`);
    this.queueSize = 2 * this.concurrency;
    this.opts = opts;
    this.clock = opts.clock ?? realClock;
    for (let w = this.concurrency - 1; w >= 0; w--) this.idle.push(w); // pop() hands out lane 0 first
    this.stream = opts.onResult ? undefined : new AsyncQueue<PoolResult<T, R>>();
    this.donePromise = new Promise((r) => (this.resolveDone = r));
    const wake = () => {
      if (this.state === 'open' || this.state === 'closing') this.dispatch();
    };
    this.seat = opts.lanes?.member ?? opts.lanes?.shared.join(opts.lanes.name, wake);
    if (this.seat) this.seat.wake = wake;
    // Upstream defect (workers ran on context.Background(), so cancel never reached an in-flight
    // list call): here the caller's signal aborts the pool, and the pool aborts every running task.
    const callerSignal = opts.signal;
    if (callerSignal) {
      if (callerSignal.aborted) {
        void this.abort(abortReason(callerSignal));
      } else {
        this.onCallerAbort = () => this.abort(abortReason(callerSignal));
        callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
      }
    }
  }

  /** The pool's own signal: aborted by abort() or by the caller's signal. */
  get signal(): AbortSignal {
    return this.ac.signal;
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Counts at this instant (for progress displays and tests). */
  stats(): { queued: number; running: number; waitingSubmitters: number; state: string } {
    return { queued: this.queue.length, running: this.running.size, waitingSubmitters: this.submitters.length, state: this.state };
  }

  /**
   * Accepts a task; resolves with its task id once it is in the queue (or running).
   *
   * Upstream defect kyverno#17053 (silent drop): SubmitTask did a non-blocking send and dropped the
   * task when the queue was full, while executeTasks still waited for len(tasks) results and hung
   * five minutes per lost task. Here a full queue makes the caller wait (FIFO) and the task is
   * never dropped; the only refusals are loud (PoolClosedError) and happen before acceptance.
   */
  submit(task: T): Promise<number> {
    if (this.state !== 'open') {
      return Promise.reject(new PoolClosedError(this.state === 'aborted' ? 'aborted' : 'closed'));
    }
    const entry: Entry<T> = { taskId: this.nextTaskId++, task };
    if (this.queue.length < this.queueSize && this.submitters.length === 0) {
      this.accept(entry);
      this.dispatch();
      return Promise.resolve(entry.taskId);
    }
    return new Promise<number>((resolve, reject) => this.submitters.push({ entry, resolve, reject }));
  }

  /** The result stream (single consumer). Unavailable when results go to onResult. */
  results(): AsyncIterable<PoolResult<T, R>> {
    if (!this.stream) throw new Error('this WorkerPool delivers results to onResult; results() is not available');
    return this.stream;
  }

  /**
   * Stops accepting new submissions and resolves when every accepted task (and every submitter
   * already waiting for room) has produced its result. Idempotent: every call returns the same promise.
   *
   * Upstream defect (Close could hang when workers blocked sending on a full result channel): our
   * workers never wait on the consumer (see deliver()), so draining always makes progress.
   */
  close(): Promise<PoolSummary> {
    if (this.state === 'open') this.state = 'closing';
    this.maybeFinish();
    return this.donePromise;
  }

  /** Resolves when the pool is closed (after close() or abort()). */
  get done(): Promise<PoolSummary> {
    return this.donePromise;
  }

  /**
   * Cancels everything: waiting submitters are rejected (their tasks were never accepted), queued
   * tasks become 'cancelled' results now, running tasks see their signal abort. Implies close().
   * Idempotent.
   */
  abort(reason?: unknown): Promise<PoolSummary> {
    if (this.state === 'aborted' || this.state === 'closed') return this.donePromise;
    this.state = 'aborted';
    this.summary.aborted = true;
    const why = reason ?? new PoolClosedError('aborted', 'worker pool aborted');
    this.ac.abort(why);
    for (const s of this.submitters.drain()) s.reject(new PoolClosedError('aborted'));
    const now = this.clock.now();
    for (const entry of this.queue.drain()) {
      this.deliver({ taskId: entry.taskId, task: entry.task, workerId: -1, startedAt: now, endedAt: now, durationMs: 0, status: 'cancelled', reason: why });
    }
    for (const r of this.running.values()) {
      r.ac.abort(why);
      this.armGrace(r);
    }
    this.maybeFinish();
    return this.donePromise;
  }

  private accept(entry: Entry<T>): void {
    this.summary.submitted++;
    this.queue.push(entry);
  }

  /** Moves work forward: idle workers take queued tasks, then waiting submitters fill the freed room. */
  private dispatch(): void {
    for (;;) {
      while (this.idle.length > 0 && this.queue.length > 0) {
        if (this.seat && !this.seat.tryTake()) break; // woken when a shared seat frees
        this.start(this.queue.shift()!, this.idle.pop()!);
      }
      if (this.seat && (this.idle.length === 0 || this.queue.length === 0)) this.seat.unwant();
      let moved = false;
      while (this.queue.length < this.queueSize && this.submitters.length > 0) {
        const s = this.submitters.shift()!;
        this.accept(s.entry);
        s.resolve(s.entry.taskId);
        moved = true;
      }
      if (!moved || this.idle.length === 0) return;
    }
  }

  private start(entry: Entry<T>, workerId: number): void {
    const startedAt = this.clock.now();
    const r: Running<T> = { entry, workerId, startedAt, lastProgress: startedAt, ac: new AbortController(), timedOut: false, settled: false };
    this.running.set(entry.taskId, r);
    const timeoutMs = this.opts.taskTimeoutMs;
    if (timeoutMs) {
      // Upstream defect kyverno#17049 (a time.After per loop iteration leaked timers, and `break`
      // inside select never left the loop): one deadline timer per task, cancelled in settle().
      // Progress does not touch the timer (a page or a chunk may come thousands of times a
      // second); the timer, when it fires, re-arms itself for the idle time still owed.
      const arm = (ms: number) => {
        r.deadline = this.clock.setTimer(ms, () => {
          r.deadline = undefined;
          if (r.settled) return;
          const idle = this.clock.now() - r.lastProgress;
          if (idle < timeoutMs) return arm(timeoutMs - idle);
          r.timedOut = true;
          r.ac.abort(new TaskTimeoutError(timeoutMs, r.lastProgress > r.startedAt));
          this.armGrace(r);
        });
      };
      arm(timeoutMs);
    }
    try {
      this.opts.onStart?.({ taskId: entry.taskId, task: entry.task, workerId, startedAt: r.startedAt });
    } catch (e) {
      this.summary.callbackError ??= e;
    }
    let p: Promise<R>;
    try {
      const progress = () => {
        if (!r.timedOut && !r.settled) r.lastProgress = this.clock.now();
      };
      p = Promise.resolve(this.opts.run(entry.task, { signal: r.ac.signal, workerId, taskId: entry.taskId, progress }));
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (value) => this.settle(r, { status: 'ok', value }),
      (error) => this.settle(r, this.classify(r, error)),
    );
  }

  private classify(r: Running<T>, error: unknown): { status: 'error'; error: unknown } | { status: 'cancelled'; reason: unknown } {
    // The task saw its deadline through its signal; its own error (which may carry partial progress)
    // is the result. Only a detached task (armGrace) reports the bare TaskTimeoutError.
    if (r.timedOut) return { status: 'error', error };
    if (this.ac.signal.aborted) return { status: 'cancelled', reason: this.ac.signal.reason };
    return { status: 'error', error };
  }

  /**
   * A task whose signal aborted gets abortGraceMs to settle. One that ignores its signal is given up
   * on: it gets its one result now and whatever it settles with later is ignored (settled flag).
   * This is what makes close() complete even with a task that never honours cancellation.
   */
  private armGrace(r: Running<T>): void {
    if (r.settled || r.grace) return;
    r.grace = this.clock.setTimer(this.opts.abortGraceMs ?? 2000, () => {
      r.grace = undefined;
      this.summary.detached++;
      this.settle(r, r.timedOut ? { status: 'error', error: r.ac.signal.reason } : { status: 'cancelled', reason: r.ac.signal.reason });
    });
  }

  private settle(r: Running<T>, outcome: { status: 'ok'; value: R } | { status: 'error'; error: unknown } | { status: 'cancelled'; reason: unknown }): void {
    // Exactly once: a detached task's late settlement lands here and is ignored.
    if (r.settled) return;
    r.settled = true;
    r.deadline?.cancel();
    r.grace?.cancel();
    r.deadline = r.grace = undefined;
    this.running.delete(r.entry.taskId);
    const endedAt = this.clock.now();
    this.deliver({
      taskId: r.entry.taskId,
      task: r.entry.task,
      workerId: r.workerId,
      startedAt: r.startedAt,
      endedAt,
      durationMs: endedAt - r.startedAt,
      ...outcome,
    } as PoolResult<T, R>);
    this.idle.push(r.workerId);
    this.seat?.give();
    if (this.state !== 'aborted') this.dispatch();
    this.maybeFinish();
  }

  /** Never blocks: a callback call or a push onto an unbounded queue (guarantee 4). */
  private deliver(result: PoolResult<T, R>): void {
    this.summary[result.status]++;
    if (this.opts.onResult) {
      try {
        this.opts.onResult(result);
      } catch (e) {
        this.summary.callbackError ??= e; // the consumer's failure is its own; the pool goes on
      }
    } else {
      this.stream!.push(result);
    }
  }

  private maybeFinish(): void {
    if (this.state !== 'closing' && this.state !== 'aborted') return;
    if (this.running.size > 0 || this.queue.length > 0 || this.submitters.length > 0) return;
    this.state = 'closed';
    this.seat?.leave();
    if (this.onCallerAbort) this.opts.signal!.removeEventListener('abort', this.onCallerAbort);
    this.stream?.end();
    this.resolveDone({ ...this.summary });
  }
}
