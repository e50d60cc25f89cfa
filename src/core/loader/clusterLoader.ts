/**
 * ClusterLoader: discovery -> LoadTasks -> WorkerPool -> a stream of LoadTaskResults.
 *
 * Modeled on Kyverno's NewClusterLoader / executeTasks / processTask, with its defects made
 * impossible:
 * - kyverno#17053 (silent drop, then a 5-minute hang per lost task): tasks are fed to the pool by
 *   one feeder that awaits room (backpressure), and every accepted task has exactly one result, so
 *   the load ends exactly when the pool closes. No count of "expected results" is kept.
 * - cancellation that never reached workers: one AbortController per load, linked to the caller's
 *   signal, feeds the pool; the pool aborts every running task's signal; that signal destroys the
 *   in-flight HTTP request. Tasks still queued become 'cancelled' results at once.
 * - kyverno#17049 (timer per loop iteration, loop that never ends): the per-task deadline is one
 *   pool timer per running task, cancelled when the task settles; there is no polling loop. It is
 *   an idle deadline: every page and every body chunk received counts as progress, so a long list
 *   over a slow link is not killed while it keeps receiving; one that stalls is. A body chunk counts
 *   only within PAGE_TRICKLE_ALLOWANCE deadlines of the task's last page (or its start): a server
 *   that trickles one page for ever cannot hold a lane, and the load, for ever.
 * - PR #17166 (one failing RESTMapping empties the whole load; partial pages thrown away): a
 *   failing type is one 'error' result with its HTTP status and message, the items it did receive
 *   (marked partial), and the rest of the load goes on.
 *
 * - a user who may not list across namespaces (the issue of 0 objects and a 403 per type): the
 *   plan comes from the access reviews (scope.ts), so a type goes straight to where the user may
 *   list it, or is answered forbidden without a request; an all-namespaces task the reviews could not
 *   rule out and the server refuses (403) is replaced by one task per fallback namespace. Each
 *   (type, namespace) pair is planned at most once per load, the replaced task has no result of its
 *   own, and the load still ends exactly when the last task (planned or replacing) has its result.
 *
 * Results stream as each task completes (an async iterator, or a callback), so a tree can show the
 * first types while the last are still loading. Memory: the transport keeps no page bytes after
 * parsing, managedFields are dropped, metadata-only mode keeps only metadata.
 */
import { abortReason, realClock, type Clock } from '../clock';
import { KubeApiError } from '../kube';
import { AsyncQueue, PoolClosedError, WorkerPool, type LaneMember, type PoolResult } from '../pool';
import type { LoaderTaskEvent } from '../timeline/events';
import { resolveLoaderOptions, type ClusterLoaderOptions, type ResolvedLoaderOptions } from './options';
import { selectTypes } from './plan';
import { DEFAULT_NAMESPACE, reviewAccess, type AccessReviewer } from '../kube/access/review';
import { planScopedTasks, type ScopeInput } from './scope';
import { listableResources } from '../kube';
import { AUTO_BASE_LANES, AUTO_LOOPBACK_FAR_MS, autoConcurrency, type ConcurrencyAuto } from './autoConcurrency';
import { distanceRttMs } from '../kube/transport/rtt';
import { listsAtServer, pageSeats, readFlowControl, type FlowControlFacts, type FlowControlReader } from './apf';
import { describeError, emptyResult, emptySummary, isNamespaces, reasonText } from './results';
import { apiCostOf, RunState, type Progress } from './runState';

export { emptySummary } from './results';

/**
 * How many task deadlines one page may take while its body keeps arriving: far more than a real
 * page needs (500 objects: seconds, even over a slow link), and a bound on one that never ends.
 */
export const PAGE_TRICKLE_ALLOWANCE = 4;
import type { ListTransfer } from '../kube/listwatch/list';
import { TableColumnError } from '../kube/listwatch/table';
import { readsProtobuf } from '../kube/protobuf';
import type { LoaderClient, LoadPlan, LoadSummary, LoadTask, LoadTaskResult } from './types';

type Warming = ReturnType<NonNullable<NonNullable<LoaderClient['transport']>['preconnect']>>;
/**
 * Connections warmed per lane far away: a lane has up to two requests open, its page and,
 * pipelined, the next one (listStream.ts), so a multi-page list uses two connections from its
 * first page on. Near, one per lane (preconnect).
 */
const CONNECTIONS_PER_LANE = 2;
/** How long confirmRtt waits for the warm probe's answer before it probes by itself. */
const WARM_PROBE_WAIT_MS = 3000;
/** The warm probe's figure that widens the pool by itself (ms): far beyond a busy server's delay. */
const WARM_PROBE_DECIDES_MS = 20;

export interface StartOptions {
  signal?: AbortSignal;
  /** Delivery by callback; when given, LoadRun.results is not available. */
  onResult?: (r: LoadTaskResult) => void;
  /** Called once the plan is known (before the first task starts). */
  onPlan?: (plan: LoadPlan) => void;
  /**
   * Called when an all-namespaces task answered 403 and is replaced by per-namespace tasks (the
   * plan's tasks change accordingly; the replaced task has no result of its own).
   */
  onNarrow?: (replaced: LoadTask, by: LoadTask[]) => void;
}

export interface LoadRun {
  /** Results in completion order (single consumer). Throws if onResult was given. */
  readonly results: AsyncIterable<LoadTaskResult>;
  /** Resolves once every task has its result (or discovery failed); never rejects. */
  readonly done: Promise<LoadSummary>;
  /** Resolves with the plan, or undefined if discovery failed or the load was cancelled first. */
  readonly plan: Promise<LoadPlan | undefined>;
  /** Aborts every in-flight request; the load settles as 'cancelled'. Idempotent. */
  cancel(reason?: unknown): void;
}

export class ClusterLoader {
  readonly options: ResolvedLoaderOptions;
  private readonly clock: Clock;

  /** Throws RangeError for invalid options. */
  constructor(
    private readonly client: LoaderClient,
    options: ClusterLoaderOptions = {},
  ) {
    this.options = resolveLoaderOptions(options);
    this.clock = this.options.clock ?? realClock;
  }

  start(opts: StartOptions = {}): LoadRun {
    const ac = new AbortController();
    const callerSignal = opts.signal;
    const onCallerAbort = () => ac.abort(abortReason(callerSignal!));
    if (callerSignal?.aborted) ac.abort(abortReason(callerSignal));
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const stream = opts.onResult ? undefined : new AsyncQueue<LoadTaskResult>();
    const deliver = opts.onResult ?? ((r: LoadTaskResult) => stream!.push(r));
    let resolvePlan!: (p: LoadPlan | undefined) => void;
    const plan = new Promise<LoadPlan | undefined>((r) => (resolvePlan = r));
    const done = this.run(
      ac.signal,
      deliver,
      (p) => {
        resolvePlan(p);
        opts.onPlan?.(p);
      },
      opts.onNarrow,
    ).finally(() => {
      resolvePlan(undefined);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      stream?.end();
    });
    return {
      get results(): AsyncIterable<LoadTaskResult> {
        if (!stream) throw new Error('this load delivers results to onResult; results is not available');
        return stream;
      },
      done,
      plan,
      cancel: (reason?: unknown) => ac.abort(reason ?? new Error('load cancelled')),
    };
  }

  /** Convenience: runs a whole load and collects every result. */
  async load(signal?: AbortSignal): Promise<{ summary: LoadSummary; results: LoadTaskResult[]; plan?: LoadPlan }> {
    const results: LoadTaskResult[] = [];
    const run = this.start({ signal, onResult: (r) => results.push(r) });
    const summary = await run.done;
    return { summary, results, plan: await run.plan };
  }

  private async run(
    signal: AbortSignal,
    deliver: (r: LoadTaskResult) => void,
    onPlan: (p: LoadPlan) => void,
    onNarrow?: StartOptions['onNarrow'],
  ): Promise<LoadSummary> {
    const t0 = this.clock.now();
    const summary = emptySummary();
    const before = { ...this.client.transport?.stats };
    const finish = (outcome: LoadSummary['outcome'], error?: unknown, st?: RunState): LoadSummary => {
      summary.outcome = outcome;
      if (error !== undefined) summary.error = error;
      summary.durationMs = this.clock.now() - t0;
      const now = this.client.transport?.stats;
      if (now) summary.requests = now.requests - (before.requests ?? 0);
      if (st) summary.apiCost = apiCostOf(st, summary, before, now);
      return summary;
    };
    // A member of the shared lanes from the start, so that while this cluster's discovery and
    // reviews run one seat stays free for its first list (sharedLanes.ts, guarantee 2): joined at
    // the pool's making, a cluster whose plan came after the others' had found every seat taken
    // (measured, 5 clusters on 16 lanes: the last one's namespaces waited 60 ms for a seat). The
    // pool adopts it and leaves it when closed; a load that makes no pool leaves it here.
    const o = this.options;
    const member = o.lanes?.member ?? o.lanes?.shared.join(o.lanes.name);
    let prepared: { plan: LoadPlan; facts: FlowControlFacts | undefined };
    try {
      prepared = await this.prepare(signal);
    } catch (e) {
      member?.leave();
      return signal.aborted ? finish('cancelled', abortReason(signal)) : finish('failed', e);
    }
    const { plan: loadPlan, facts } = prepared;
    this.describePlan(summary, loadPlan, facts);
    onPlan(loadPlan);
    const st = new RunState(signal, summary, loadPlan, this.clock, facts, (r) => {
      summary.results++;
      summary[r.outcome === 'ok' ? 'ok' : r.outcome === 'error' ? 'failed' : 'cancelled']++;
      if (r.forbidden) summary.forbidden++;
      if (r.outcome === 'ok') summary.objects += r.count;
      else summary.partialObjects += r.count;
      summary.retries += r.retries;
      summary.bytes += r.bytes;
      deliver(r);
    });
    try {
      const pool = this.makePool(st, member, onNarrow);
      await this.feed(st, pool);
      const ps = await pool.close();
      if (ps.aborted || signal.aborted) {
        // Tasks never submitted because the cancel came first still get their 'cancelled' result.
        const now = this.clock.now();
        for (const task of st.queue) {
          st.count({ ...emptyResult(task, now), outcome: 'cancelled', reason: 'Cancelled', message: reasonText(abortReason(signal)) });
        }
        return finish('cancelled', abortReason(signal), st);
      }
      return finish(summary.failed > 0 ? 'partial' : 'ok', undefined, st);
    } finally {
      st.throttle.close();
    }
  }

  /** Discovery, the access reviews and the priority level, then the plan. Throws what discovery threw, or the abort. */
  private async prepare(signal: AbortSignal): Promise<{ plan: LoadPlan; facts: FlowControlFacts | undefined }> {
    const o = this.options;
    let warming: Warming | undefined;
    try {
      const scope = this.scopeInput();
      // The reviews do not depend on discovery: both go out at once.
      // While discovery and the reviews are out, the lanes' connections are dialled.
      warming = this.preconnect(o.include.length > 0 ? o.include.length * Math.max(1, o.namespaces.length) : Infinity);
      const reviewing = reviewAccess(o.accessReview ? this.reviewer() : undefined, scope.candidates, signal, { clock: this.clock });
      reviewing.catch(() => undefined); // awaited below; a discovery failure must not leave it unhandled
      let discovery = await this.client.discover({ signal });
      // Discovery's answers named the priority level (APF headers): its facts are read while the reviews are out.
      const reading = this.flowControl(signal);
      reading.catch(() => undefined);
      let { selected, unmatched, skipped } = selectTypes(listableResources(discovery), o.include, o.exclude);
      if (unmatched.length > 0 && discovery.cachedAgeMs !== undefined) {
        // A cached discovery that misses a type asked for may be out of date: ask the server, once.
        discovery = await this.client.discover({ signal, fresh: true });
        ({ selected, unmatched, skipped } = selectTypes(listableResources(discovery), o.include, o.exclude));
      }
      const sp = planScopedTasks(selected, scope.input, await reviewing);
      // A load of at most 4 lists (a refresh of one type) runs the same on any pool: no probe.
      if (o.autoConcurrency && sp.tasks.filter((t) => t.forbidden === undefined).length > AUTO_BASE_LANES) await this.confirmRtt(signal, warming);
      // A cached discovery carried no headers: the reviews' or the probe's answers may have.
      const facts = (await reading) ?? (await this.flowControl(signal));
      const plan: LoadPlan = {
        discovery,
        types: selected,
        tasks: sp.tasks,
        unmatchedFilters: unmatched,
        access: sp.access,
        fallbackNamespaces: sp.fallback,
        skippedTypes: skipped,
      };
      return { plan, facts };
    } finally {
      warming?.stop();
    }
  }

  /** The priority level's facts (apf.ts), when the transport saw one named and can read. */
  private async flowControl(signal: AbortSignal): Promise<FlowControlFacts | undefined> {
    const t = this.client.transport;
    if (!t?.getJson) return undefined;
    // the transport itself: its facts are read once (apf.ts keys them by it)
    return readFlowControl(t as FlowControlReader, signal);
  }

  /** The summary's and the plan's account of the plan, and the pool size. */
  private describePlan(summary: LoadSummary, loadPlan: LoadPlan, facts: FlowControlFacts | undefined): void {
    summary.discoveryMode = loadPlan.discovery.mode;
    summary.discoveryFailures = loadPlan.discovery.failures;
    summary.unmatchedFilters = loadPlan.unmatchedFilters;
    summary.skippedTypes = loadPlan.skippedTypes;
    summary.resourceTypes = loadPlan.types.length;
    summary.tasks = loadPlan.tasks.length;
    // Sized here, after discovery and the reviews: their requests measured the RTT (rtt.ts) and
    // named the priority level (apf.ts).
    summary.concurrency = this.options.concurrency;
    if (this.options.autoConcurrency) {
      summary.concurrencyAuto = this.lanesFor(listsAtServer(facts));
      summary.concurrency = summary.concurrencyAuto.lanes;
    }
    loadPlan.concurrency = summary.concurrency;
    if (summary.concurrencyAuto) loadPlan.concurrencyAuto = summary.concurrencyAuto;
  }

  /**
   * The pool, whose results replace a refused all-namespaces task by per-namespace tasks (each
   * (type, namespace) planned at most once per load) or are counted.
   */
  private makePool(st: RunState, member: LaneMember | undefined, onNarrow: StartOptions['onNarrow']): WorkerPool<LoadTask, void> {
    const o = this.options;
    return new WorkerPool<LoadTask, void>({
      concurrency: st.summary.concurrency!,
      clock: this.clock,
      signal: st.signal,
      taskTimeoutMs: o.taskTimeoutMs,
      ...(o.lanes ? { lanes: { ...o.lanes, member } } : {}), // the member joined above (options are valid here: the pool does not throw)
      run: (task, ctx) => this.runTask(task, ctx.workerId, ctx.signal, st, ctx.progress),
      onResult: (r) => {
        st.outstanding--;
        if (r.task.id === st.headStart) st.headStart = undefined;
        const result = this.toResult(r, st.progress.get(r.task.id));
        st.progress.delete(r.task.id);
        if (result.worker >= 0) {
          this.emit({
            phase: 'finish',
            task: result.task,
            worker: result.worker,
            t: result.endedAt,
            count: result.count,
            pages: result.pages,
            retries: result.retries,
            durationMs: result.durationMs,
            outcome: result.outcome,
            status: result.status,
            message: result.message,
          });
        }
        const by = st.narrow(result);
        if (by.length > 0) {
          // Not a failure of the load: the same type, listed where the user may list it.
          const i = st.plan.tasks.indexOf(result.task);
          st.plan.tasks.splice(i, 1, ...by);
          st.summary.tasks += by.length - 1;
          st.summary.narrowed++;
          st.queue.push(...by);
          onNarrow?.(result.task, by);
        } else {
          st.count(result);
        }
        st.notify();
      },
    });
  }

  /**
   * The feeder: one task at a time, waiting for room (backpressure), so nothing is ever dropped.
   * In a load that shares its lanes with other clusters, this cluster's other lists wait for its
   * namespaces list (the first in the queue) to answer: started with it, the first pages of every
   * cluster's big lists reach the one parsing thread at the same time as the small namespaces
   * page and are parsed ahead of it (measured, 5 clusters: namespaces answered in 80-150 ms
   * instead of 10-20). The cost is one round trip before the cluster's other lists start; a
   * cluster loading alone (no lanes, or no other member on them when its namespaces are
   * submitted) does not wait: there its first big pages compete only with its own namespaces
   * page, and the wait only delayed the rest (a single-context palette load of 20,000 objects:
   * 1.8-2.1 s with it, 1.4-1.5 s without). `headStart`: the task waited for, until its result.
   */
  private async feed(st: RunState, pool: WorkerPool<LoadTask, void>): Promise<void> {
    const lanes = this.options.lanes;
    try {
      for (;;) {
        const task = st.headStart === undefined ? st.queue.shift() : undefined;
        if (!task) {
          if (st.outstanding === 0) break;
          await new Promise<void>((r) => (st.wake = r));
          continue;
        }
        if (task.forbidden !== undefined) {
          const at = this.clock.now();
          st.count({ ...emptyResult(task, at), outcome: 'error', status: 403, reason: 'Forbidden', message: task.forbidden, forbidden: 'review' });
          continue;
        }
        st.outstanding++;
        // set before the submit: its result may come before the feeder runs again
        if (lanes && lanes.shared.members > 1 && isNamespaces(task) && st.queue.length > 0) st.headStart = task.id;
        try {
          await pool.submit(task);
        } catch (e) {
          st.outstanding--;
          st.headStart = undefined;
          st.queue.unshift(task);
          throw e;
        }
      }
    } catch (e) {
      if (!(e instanceof PoolClosedError)) throw e; // only refused after a cancel: the summary says so
    }
  }

  /**
   * Before a widened pool: one idle-time RTT probe (KubeTransport.probeRtt). The samples taken so
   * far are upper bounds that a busy start inflates, so they may only keep 4 lanes on their own;
   * a wider pool needs the probe to agree. Costs one round trip, only when widening is in question.
   */
  private async confirmRtt(signal: AbortSignal, warming: Warming | undefined): Promise<void> {
    const t = this.client.transport;
    if (!t?.probeRtt || !this.widening()) return;
    // The I/O thread's probe on a warmed connection, sent as soon as a handshake put widening in
    // question, is usually answered while the reviews are still out. Far away it decides. Near, it
    // may have met the server busy with this load's discovery (seen: 7 ms on a busy loopback), so a
    // figure under WARM_PROBE_DECIDES_MS is checked by the idle-time probe as before.
    if (warming && (await warming.probed(WARM_PROBE_WAIT_MS, signal)) && (t.stats.rttMs ?? 0) >= WARM_PROBE_DECIDES_MS) return;
    if (!this.widening()) return;
    await t.probeRtt(signal);
  }

  /**
   * The latency-aware lane count from what the transport measured (autoConcurrency.ts; a loopback
   * server by its request samples), from a base of `apfBase` LISTs at the server when APF allows fewer.
   */
  private lanesFor(apfBase?: number): ConcurrencyAuto {
    const t = this.client.transport;
    const loopback = !!t?.loopback;
    if (!t) return this.capped(autoConcurrency(undefined, { apfBase }));
    // With no request sample, a loopback address whose handshakes were quick is near by them too.
    const quick = loopback && (t.stats.rttMs ?? Infinity) < AUTO_LOOPBACK_FAR_MS ? t.stats.rttMs : undefined;
    return this.capped(autoConcurrency(distanceRttMs(t.stats, loopback) ?? quick, { loopback, apfBase }));
  }

  /** The latency-aware count, no more than autoConcurrencyMax (a multi-cluster load's fair share). */
  private capped(a: ConcurrencyAuto): ConcurrencyAuto {
    const max = this.options.autoConcurrencyMax;
    return max !== undefined && a.lanes > max ? { ...a, lanes: max } : a;
  }

  /**
   * Whether the samples so far put a wider pool in question (then an idle-time request sample must
   * confirm it): no sample yet; far by every sample; or, for a loopback address, a handshake that
   * took long enough for a tunnel and no request sample that says otherwise.
   */
  private widening(): boolean {
    // A pool capped at the base size cannot widen: nothing to confirm, no lanes to dial ahead.
    if ((this.options.autoConcurrencyMax ?? Infinity) <= AUTO_BASE_LANES) return false;
    const t = this.client.transport;
    if (!t || t.stats.rttMs === undefined) return true;
    if (!t.loopback) return autoConcurrency(t.stats.rttMs).lanes > AUTO_BASE_LANES;
    return t.stats.rttMs >= AUTO_LOOPBACK_FAR_MS && (t.stats.requestRttMs ?? Infinity) >= AUTO_LOOPBACK_FAR_MS;
  }

  /**
   * Dials the pool's connections while discovery and the reviews are still out (see
   * KubeTransport.preconnect): two per lane the pool will have (the latency-aware count follows
   * the RTT as it is measured), a lane of no more than `types` (a refresh of one type dials two).
   */
  private preconnect(types: number): Warming | undefined {
    const t = this.client.transport;
    const o = this.options;
    // Full objects and Table pages are walked on the I/O thread (list.ts; ioTable.ts trims the Tables
    // there), on the connections spares feed: so are the tree's per-type choices, whose bulk (pods)
    // is Table rows. Metadata-only lists stay on the calling thread's agent unless a counting load
    // streams them (countsOnly): a load of nothing else has no use for a spare.
    if (!t?.preconnect || types === 0 || (o.transfer === 'metadata' && !o.countsOnly)) return undefined;
    // While a loopback address's widening is in question, its connections are dialled as if it were
    // as far as its handshakes say (the relay, a tunnel): a connection costs the server no request.
    const lanes = () =>
      !o.autoConcurrency ? o.concurrency : t.loopback && this.widening() ? this.capped(autoConcurrency(t.stats.rttMs)).lanes : this.lanesFor().lanes;
    // Near (loopback, not shown far), one connection per lane ahead: a lane's second connection,
    // for the pipelined page, is dialled when a list has a next page (most types have one page; on 5
    // clusters x 20,000 objects 12 of 40 warmed connections were never used, 12 handshakes of CPU
    // on a machine whose CPU is the bound). Far, the dial costs round trips: both go ahead.
    // Not before a first sample: with none, nothing says the server is far yet.
    const shownFar = () => t.stats.rttMs !== undefined && this.widening();
    return t.preconnect(
      () => (t.loopback && !shownFar() ? 1 : CONNECTIONS_PER_LANE) * Math.min(types, lanes()),
      () => o.autoConcurrency && shownFar(),
    );
  }

  /** The candidate namespaces and the scope input of this load. */
  private scopeInput(): { input: ScopeInput; candidates: string[] } {
    const o = this.options;
    const input: ScopeInput = {
      namespaces: o.namespaces,
      contextNamespace: o.contextNamespace ?? this.client.context?.namespace,
      labelSelector: o.labelSelector,
    };
    return { input, candidates: o.namespaces.length > 0 ? o.namespaces : [input.contextNamespace || DEFAULT_NAMESPACE] };
  }

  private reviewer(): AccessReviewer | undefined {
    const c = this.client;
    if (!c.accessReview || !c.rulesReview) return undefined;
    return { accessReview: (a, opts) => c.accessReview!(a, opts), rulesReview: (ns, opts) => c.rulesReview!(ns, opts) };
  }

  /**
   * `alive`: the task made progress (a page, a body chunk); the per-task timeout counts from the
   * last one. The list starts once the throttle gives it a turn (laneThrottle.ts); while it waits,
   * every other list's end counts as the load's progress.
   */
  private async runTask(task: LoadTask, worker: number, signal: AbortSignal, st: RunState, alive: () => void): Promise<void> {
    const p: Progress = { sink: [], dropped: 0, pages: 0, retries: 0, bytes: 0, maxPageBytes: 0, resourceVersion: '', fellBack: false };
    st.progress.set(task.id, p);
    const o = this.options;
    const transfer =
      typeof o.transfer === 'function' ? o.transfer(task) : o.countsOnly && o.transfer === 'full' && !readsProtobuf(task.gvr, true) ? 'metadata' : o.transfer;
    try {
      await st.throttle.acquire(signal, alive);
    } finally {
      // The task's bar starts when its list may start, not when a lane took it: a list held back
      // by a halving waits above, and its bar would claim the wait as listing. A wait that ends
      // in a cancellation is a bar of no length, so every 'finish' has its 'start'.
      p.turnAt = this.clock.now();
      this.emit({ phase: 'start', task, worker, t: p.turnAt });
    }
    const start = p.turnAt;
    try {
      await this.listTask(task, transfer, worker, signal, p, alive, st);
    } catch (e) {
      // A Table without a column the transform reads (another server version's printer): this
      // type is listed again as full objects, from its first page; nothing of the first try stays.
      if (transfer !== 'table' || !(e instanceof TableColumnError)) throw e;
      this.emit({ phase: 'retry', task, worker, t: this.clock.now(), retries: ++p.retries, message: `${e.message}; listing full objects instead` });
      p.sink.length = 0;
      Object.assign(p, { dropped: 0, pages: 0, bytes: 0, resourceVersion: '', fellBack: false });
      await this.listTask(task, 'full', worker, signal, p, alive, st);
    } finally {
      st.throttle.release();
      p.seats = pageSeats(p.maxPageBytes, st.listSeats);
      st.spans.push({ start, end: this.clock.now(), seats: p.seats });
    }
  }

  private async listTask(
    task: LoadTask,
    transfer: ListTransfer,
    worker: number,
    signal: AbortSignal,
    p: Progress,
    alive: () => void,
    st: RunState,
  ): Promise<void> {
    const transform = this.options.transform;
    const o = this.options;
    let pageAt = this.clock.now();
    const trickleMs = PAGE_TRICKLE_ALLOWANCE * o.taskTimeoutMs;
    const chunk = () => {
      if (this.clock.now() - pageAt < trickleMs) alive();
    };
    const retried = (status: number | undefined, message: string) =>
      this.emit({ phase: 'retry', task, worker, t: this.clock.now(), retries: p.retries, status, message });
    const r = await this.client.list(
      task.gvr,
      {
        namespace: task.namespace,
        labelSelector: task.labelSelector,
        limit: o.pageSize,
        metadataOnly: transfer === 'metadata',
        transfer,
        requestTimeoutMs: o.requestTimeoutMs,
        // what the loader's results feed reads rows, not data: ConfigMaps and Secrets come in protobuf, without it
        rowsOnly: true,
        // a counting load's metadata-only lists (countsOnly) take the lanes' warmed connections, as its full lists do,
        // and its pages' items are counted, not decoded
        ...(o.countsOnly ? { streamMetadata: true, countsOnly: true } : {}),
      },
      {
        signal,
        sink: p.sink,
        onProgress: chunk,
        onPage: (page) => {
          pageAt = this.clock.now();
          alive();
          // The page's objects are the sink's last page.items entries: transform them in place.
          if (transform) {
            const from = p.sink.length - page.items;
            let kept = from;
            for (let i = from; i < p.sink.length; i++) {
              const t = transform(p.sink[i]!, task);
              if (t !== undefined) p.sink[kept++] = t;
            }
            p.dropped += p.sink.length - kept;
            p.sink.length = kept;
          }
          p.pages++;
          p.bytes += page.bytes;
          p.maxPageBytes = Math.max(p.maxPageBytes, page.bytes);
          this.emit({ phase: 'page', task, worker, t: this.clock.now(), count: page.items, pages: p.pages });
        },
        onRetry: (info) => {
          p.retries++;
          const e = info.error;
          if (e instanceof KubeApiError && e.status === 429) st.throttle.throttled(info.kind === 'retry-after' ? info.delayMs : 0);
          const what = e instanceof KubeApiError ? `${e.status} ${e.reason}` : e.kind;
          retried(e instanceof KubeApiError ? e.status : undefined, `${what}; retry in ${Math.round(info.delayMs)} ms`);
        },
        onFallback: (e) => {
          p.fellBack = true;
          p.dropped = 0; // the list starts over: what was counted so far is discarded with the sink
          retried(e.status, `${e.status} ${e.reason}: continue token expired; restarting the paged list`);
        },
      },
    );
    p.resourceVersion = r.resourceVersion;
  }

  private toResult(r: PoolResult<LoadTask, void>, p: Progress | undefined): LoadTaskResult {
    const base: LoadTaskResult = {
      ...emptyResult(r.task, r.endedAt),
      worker: r.workerId,
      startedAt: p?.turnAt ?? r.startedAt,
      durationMs: p?.turnAt !== undefined ? r.endedAt - p.turnAt : r.durationMs,
      items: p?.sink ?? [],
      count: (p?.sink.length ?? 0) + (p?.dropped ?? 0),
      pages: p?.pages ?? 0,
      retries: p?.retries ?? 0,
      bytes: p?.bytes ?? 0,
      fellBackToFullList: p?.fellBack ?? false,
      ...(p?.seats !== undefined ? { seats: p.seats } : {}),
    };
    if (r.status === 'ok') return { ...base, outcome: 'ok', resourceVersion: p?.resourceVersion ?? '' };
    if (r.status === 'cancelled') return { ...base, outcome: 'cancelled', partial: true, reason: 'Cancelled', message: reasonText(r.reason) };
    const failed: LoadTaskResult = { ...base, outcome: 'error', partial: true, ...describeError(r.error) };
    if (failed.status === 403) failed.forbidden = 'request';
    return failed;
  }

  private emit(e: { phase: LoaderTaskEvent['phase']; task: LoadTask; worker: number; t: number } & Partial<LoaderTaskEvent>): void {
    const on = this.options.onEvent;
    if (!on) return;
    const { task, ...rest } = e;
    const ev: LoaderTaskEvent = { kind: 'task', loadId: this.options.loadId, taskId: task.id, gvr: task.gvr, ...rest, t: e.t - this.options.timeOrigin };
    if (task.namespace !== undefined) ev.namespace = task.namespace;
    try {
      on(ev);
    } catch {
      // a timeline subscriber's failure is its own; the load goes on
    }
  }
}
