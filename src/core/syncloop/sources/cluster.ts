import { setMaxListeners } from 'node:events';
import { realClock, type Clock } from '../../clock';
import type { GroupVersionResource, StoredObject } from '../../kube/objects/types';
import { kv } from '../log';
import { syncLoop } from '../loop';
import { PodCache } from '../pleg/podcache';
import { PlegRelister, PodsNotSynced, type PlegHealth } from '../pleg/relister';
import { ProbeInference } from '../prober/infer';
import { SyncLoop, type SyncLoopOptions } from '../syncloop';
import type { Pod } from '../../kube/objects/pod';
import { ConsistencyCheck, ConsistencyLister, CONSISTENCY_PERIOD_MS } from './consistency';
import { TypeFreshness } from './freshness';
import { freshnessClient } from './freshnessClient';
import { FreshnessMarks, freshnessKey } from './freshnessMarks';
import { Reflector, type ListWatchClient } from './reflector';
import { ConfigSink, EventsSink } from './sinks';
import type { AccessReviewer } from '../../kube/access/review';
import { planWatchScopes, reviewWatchAccess, type WatchedType, type WatchScope } from './watchscope';
import type { ReflectorOptions, ReflectorSink } from './reflector';
import type { SyncObserver } from '../observer';
import type { ObjectView } from '../../rows/objectView';
import type { PodSyncSnapshot } from '../podworkers';
import type { DesiredObject } from '../state/desired';
import type { ViewChangeListener } from '../state/actual';

export const PODS_GVR: GroupVersionResource = Object.freeze({ group: '', version: 'v1', resource: 'pods' });
function typeName(g: Pick<GroupVersionResource, 'group' | 'resource'>): string {
  return g.group ? `${g.resource}.${g.group}` : g.resource;
}

export const EVENTS_GVR: GroupVersionResource = Object.freeze({ group: '', version: 'v1', resource: 'events' });

export interface ClusterSyncOptions extends Omit<SyncLoopOptions, 'clock' | 'sources' | 'onHousekeeping' | 'runtimeErrors'> {
  client: ListWatchClient;
  clock?: Clock;
  /** Namespaces to watch; empty or unset = all namespaces. */
  namespaces?: string[];
  /** Types to keep in the model besides pods (the extension passes the loaded types); `namespaced: false` for cluster-scoped ones. */
  types?: WatchedType[];
  /**
   * With no namespaces chosen: asked once per run, before the first watch, whether the user may
   * list+watch each type across all namespaces (see watchscope.ts). Unset: no review; a cluster-wide
   * 403 at run time narrows a namespaced type to the context namespace once.
   */
  reviewer?: AccessReviewer;
  /** The kubeconfig context's namespace (default 'default', as kubectl): where a type the user may not watch across namespaces is watched. */
  contextNamespace?: string;
  /** Called once per type (and namespace) that is forbidden: not watched, not retried. */
  onForbidden?: (f: ForbiddenType) => void;
  pageSize?: number;
  /**
   * Only pods bound to this node (fieldSelector spec.nodeName=NAME on the pods watch, as a real
   * kubelet's API config source selects its own pods). Unset: every node (and unscheduled pods).
   */
  node?: string;
  plegPeriodMs?: number;
  /** A PLEG that has not relisted (its pods watches down) for this long is unhealthy. Default 3 min (upstream). */
  plegThresholdMs?: number;
  /** How often each watched type is listed again (from the watch cache) to catch missed watch events. Default 5 min. */
  consistencyPeriodMs?: number;
  /** A difference seen once is confirmed by a list this much later before the source is relisted. Default 2 s. */
  consistencyConfirmMs?: number;
  /** A watch silent for this long (no event, no bookmark) is reopened by housekeeping, from its last resourceVersion (no list). Default 3 min. */
  stallAfterMs?: number;
  /**
   * How long a source's LIST or watch-list may go without progress (a page; an initial event) before
   * it is given up and retried (Reflector's listProgressTimeoutMs, default 60 s). `kubeloop sync
   * --request-timeout` sets it, so a server that never answers is reported within that deadline.
   */
  listProgressTimeoutMs?: number;
  /**
   * Told every full list and watch event every source delivers, after the loop took it (the
   * flight recorder). Called synchronously; it must not throw and must not block.
   */
  observer?: SyncObserver;
  /**
   * The config sources' objects keep who wrote them (metadata.managedFields in their compact form,
   * core/kube/objects/managers.ts) for a flight recording's writers. Costs the walker the managers'
   * bytes it otherwise skips, and the loop the compact entries per object (a LIST asks for JSON): set
   * it only while recording (keepManagers()). Unset, the watches and the loop are as without it.
   */
  compactManagers?: boolean;
}

/** A sink that also tells the observer what it was given, once the inner sink has taken it. */
function observed(inner: ReflectorSink, observer: SyncObserver | undefined, source: string, type: GroupVersionResource): ReflectorSink {
  if (!observer) return inner;
  return {
    async replace(items, rv) {
      await inner.replace(items, rv);
      observer.replace(source, type, items);
    },
    async apply(event, obj) {
      await inner.apply(event, obj);
      observer.apply(source, type, event, obj);
    },
  };
}

/** The config source name of a type in a namespace: "api" for all pods, as the kubelet names its source. */
export function sourceName(gvr: GroupVersionResource, namespace?: string): string {
  const type = gvr.group === '' && gvr.resource === 'pods' ? '' : `:${gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource}`;
  return `api${type}${namespace ? `/${namespace}` : ''}`;
}

/** A type the loop does not watch because the user may not: named once in the log, the timeline and here. */
export interface ForbiddenType {
  gvr: GroupVersionResource;
  /** Where it was refused; undefined: across all namespaces (or at the cluster scope). */
  namespace: string | undefined;
  message: string;
  /** 'review': planned out by the access review, no request made; 'request': the server answered 403. */
  by: 'review' | 'request';
}

/** What every reflector of one run shares. */
type CommonReflectorOptions = Pick<ReflectorOptions, 'clock' | 'logger' | 'stallAfterMs' | 'listProgressTimeoutMs' | 'random'> & { pageSize: number };

interface Running {
  reflector: Reflector;
  promise: Promise<void> | undefined;
  /** For config sources: the consistency check of their source. */
  consistency?: ConsistencyLister;
  source?: string;
  /** For config sources: is what the source holds current (freshness.ts). */
  freshness?: TypeFreshness;
  /** Its freshness on the timeline, when the loop has one. */
  marks?: FreshnessMarks;
}

/** One config source's freshness: its type, where it is watched, and the record. */
export interface SourceFreshness {
  source: string;
  gvr: GroupVersionResource;
  /** Where it is watched now; undefined: all namespaces (or the cluster scope). */
  namespace: string | undefined;
  freshness: TypeFreshness;
}

/**
 * ClusterSync: the sync loop wired to a cluster (issue 4, phase 2).
 *
 *   reflector per (type, namespace) --ConfigSink--> PodConfig.merge --> configCh
 *   reflector of pods                 --ProbeInference (flags, restarts)--> liveness/readiness/startup
 *   reflector of Events (Pod objects) --ProbeInference (Unhealthy, Killing)--> the same channels
 *   PlegRelister: every second, the pods the pods sources hold --GenericPLEG--> plegCh
 *   ConsistencyLister per config source: every 5 min, a list from the watch cache (consistency.ts),
 *     the sources' first checks staggered over the first period; a TypeFreshness per config source
 *   syncLoop ticks syncCh (1 s) and housekeepingCh (2 s)
 *
 * Requests: one watch per (type, namespace) while the watches hold (a streaming watch-list where
 * the server has it, else a list and a watch; a watch that ends normally resumes from its last
 * resourceVersion, no list), plus one metadata-only list from the watch cache per config source
 * per consistency period. The PLEG and the loop never poll the API. With no namespaces chosen and a reviewer, the
 * run starts with the access reviews (SSAR list and watch at the cluster scope, else rules reviews;
 * watchscope.ts): each type is then watched across all namespaces, in the context's namespace, or
 * not at all (forbidden: logged at warning level and put on the timeline once, never requested).
 * A cluster-wide 403 narrows a namespaced type to the context's namespace once; any other 403
 * makes the type forbidden. One forbidden type never stops the loop.
 *
 * Housekeeping's hook restarts reflectors whose loop died and reopens watches gone silent (from
 * their last resourceVersion: a quiet type, whose watch gets no bookmarks, costs a watch, not a
 * list). An unhealthy PLEG (its pods watches down for longer than the threshold) is the loop's
 * runtime error, as the kubelet words it: the loop skips its iterations, with backoff, until the
 * PLEG relists again (runtimeErrors).
 */
export class ClusterSync {
  private readonly loop: SyncLoop;
  readonly probes = new ProbeInference();
  readonly relister: PlegRelister;
  readonly running: Running[] = [];
  readonly consistency = new ConsistencyCheck();
  private plegUnhealthySince: number | undefined;
  private readonly typesAndNamespaces: { types: WatchedType[]; namespaces: (string | undefined)[] };
  /** The types the user may not watch, in the order found. */
  readonly forbidden: ForbiddenType[] = [];
  /** Forbidden-type messages housekeeping has yet to put on the timeline (once each). */
  private unreported: string[] = [];
  private life: AbortController | undefined;
  private readonly clock: Clock;

  constructor(readonly opts: ClusterSyncOptions) {
    this.clock = opts.clock ?? realClock;
    const namespaces = opts.namespaces?.length ? opts.namespaces : [undefined];
    const types: WatchedType[] = [PODS_GVR, ...(opts.types ?? []).filter((t) => !(t.group === '' && t.resource === 'pods'))];
    const sources: string[] = [];
    for (const t of types) for (const ns of namespaces) sources.push(sourceName(t, ns));
    const podCache = new PodCache();
    this.loop = new SyncLoop({
      ...opts,
      clock: this.clock,
      podCache,
      sources,
      onHousekeeping: (signal) => this.housekeeping(signal),
      runtimeErrors: () => this.runtimeErrors(),
      probeProgress: (uid) => this.probes.progress(uid),
    });
    this.relister = new PlegRelister(() => this.readPods(), this.clock, this.loop.channels.pleg, opts.plegPeriodMs, opts.plegThresholdMs, undefined, podCache);
    this.typesAndNamespaces = { types, namespaces };
  }

  /** Runs the sources and the loop until the signal aborts (or configCh closes). Never rejects for a source's failure. */
  async run(signal: AbortSignal): Promise<void> {
    const life = new AbortController();
    // Every reflector, watch and request of this run listens on this one signal (about three per
    // watched type): many listeners are by design, not a leak, so Node's warning at 11 is lifted.
    setMaxListeners(0, life.signal);
    this.life = life;
    const onAbort = () => life.abort(signal.reason);
    if (signal.aborted) life.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const { types, namespaces } = this.typesAndNamespaces;
    // With no namespaces chosen, each type's scope follows the user's rights (one review per run).
    let scopes: Map<WatchedType, WatchScope> | undefined;
    if (namespaces[0] === undefined) {
      try {
        scopes = await this.planScopes([...types, EVENTS_GVR], life.signal);
      } catch (e) {
        signal.removeEventListener('abort', onAbort);
        if (life.signal.aborted) return;
        throw e;
      }
    }
    const scopeOf = (t: WatchedType, ns: string | undefined): WatchScope => (ns !== undefined ? { namespace: ns } : (scopes?.get(t) ?? {}));
    const common: CommonReflectorOptions = {
      clock: this.clock,
      logger: this.loop.logger,
      pageSize: this.opts.pageSize ?? 500,
      stallAfterMs: this.opts.stallAfterMs ?? 180_000,
      ...(this.opts.listProgressTimeoutMs ? { listProgressTimeoutMs: this.opts.listProgressTimeoutMs } : {}),
      ...(this.opts.random ? { random: this.opts.random } : {}),
    };
    for (const t of types) for (const ns of namespaces) this.addConfigSource(t, ns, scopeOf(t, ns), common, life.signal);
    this.staggerChecks();
    for (const ns of namespaces) this.addEventsSource(ns, scopeOf(EVENTS_GVR, ns), common, life.signal);
    for (const r of this.running) r.promise = r.reflector.run(life.signal);
    const checks = this.running.flatMap((r) => (r.consistency ? [r.consistency.run(life.signal)] : []));
    const pleg = this.relister.run(life.signal);
    try {
      await syncLoop(this.loop, life.signal);
    } finally {
      life.abort(new Error('sync loop ended'));
      signal.removeEventListener('abort', onAbort);
      this.loop.podConfig.updates.close(); // sources blocked on a full configCh give up
      await Promise.allSettled([pleg, ...checks, ...this.running.map((r) => r.promise)]);
    }
  }

  /** One config source: a reflector of type `t` in `ns` (all namespaces: undefined) into the merge; for pods, its consistency check too. */
  private addConfigSource(t: WatchedType, ns: string | undefined, planned: WatchScope, common: CommonReflectorOptions, signal: AbortSignal): void {
    const source = sourceName(t, ns);
    const isPods = t === PODS_GVR;
    if (planned.forbidden !== undefined) {
      this.forbid(source, { gvr: t, namespace: planned.namespace, message: planned.forbidden, by: 'review' });
      return;
    }
    const resource = { group: t.group, resource: t.resource };
    const inner = new ConfigSink(
      this.loop,
      this.loop.podConfig,
      source,
      resource,
      isPods ? this.probes : undefined,
      signal,
      ns,
      isPods ? this.relister : undefined,
    );
    const sink = observed(inner, this.opts.observer, source, t);
    const fieldSelector = isPods && this.opts.node ? `spec.nodeName=${this.opts.node}` : undefined;
    const scope = { ...(planned.namespace ? { namespace: planned.namespace } : {}), ...(fieldSelector ? { fieldSelector } : {}) };
    const freshness = new TypeFreshness(this.clock);
    const reflector = new Reflector(freshnessClient(this.opts.client, freshness), sink, {
      ...common,
      gvr: t,
      ...scope,
      name: source,
      ...(t.metadataOnly && !isPods ? { metadataOnly: t.kind ? { kind: t.kind } : {} } : {}),
      ...(this.opts.compactManagers ? { compactManagers: true } : {}),
      ...this.narrowing(source, t, planned),
    });
    const consistency = new ConsistencyLister({
      client: this.opts.client,
      clock: this.clock,
      gvr: t,
      ...scope,
      pageSize: common.pageSize,
      source,
      reflector,
      // Live: each page is compared with what the source holds as it arrives (no copy of the source).
      held: () => ({ get: (uid) => this.loop.podConfig.storage.held(source, uid), values: () => this.loop.podConfig.storage.sourceValues(source) }),
      check: this.consistency,
      freshness,
      ...(this.opts.consistencyPeriodMs !== undefined ? { periodMs: this.opts.consistencyPeriodMs } : {}),
      ...(this.opts.consistencyConfirmMs !== undefined ? { confirmMs: this.opts.consistencyConfirmMs } : {}),
    });
    const timeline = this.loop.timeline;
    const marks = timeline
      ? new FreshnessMarks(freshness, {
          key: () => freshnessKey(t, reflector.namespace),
          clock: this.clock,
          origin: this.loop.origin,
          append: (e) => timeline.append(e),
          ...(this.loop.opts.node ? { node: this.loop.opts.node } : {}),
        })
      : undefined;
    this.running.push({ reflector, promise: undefined, source, consistency, freshness, ...(marks ? { marks } : {}) });
  }

  /**
   * Spreads the config sources' first consistency checks evenly over the first period (the i-th
   * of n at (i+1)/n of it), so a steady state costs one list every period/n, never n at once.
   */
  private staggerChecks(): void {
    const listers = this.running.flatMap((r) => (r.consistency ? [r.consistency] : []));
    const period = this.opts.consistencyPeriodMs ?? CONSISTENCY_PERIOD_MS;
    listers.forEach((l, i) => (l.firstCheckMs = (period * (i + 1)) / listers.length));
  }

  /** The pods' Events in `ns` (all namespaces: undefined) into the probe inference; no config source. */
  private addEventsSource(ns: string | undefined, planned: WatchScope, common: CommonReflectorOptions, signal: AbortSignal): void {
    if (planned.forbidden !== undefined) {
      this.forbid(undefined, { gvr: EVENTS_GVR, namespace: planned.namespace, message: planned.forbidden, by: 'review' });
      return;
    }
    const name = `events${ns ? `/${ns}` : ''}`;
    const sink = observed(new EventsSink(this.loop, this.probes, signal), this.opts.observer, name, EVENTS_GVR);
    const reflector = new Reflector(this.opts.client, sink, {
      ...common,
      gvr: EVENTS_GVR,
      ...(planned.namespace ? { namespace: planned.namespace } : {}),
      fieldSelector: 'involvedObject.kind=Pod',
      name,
      ...this.narrowing(undefined, EVENTS_GVR, planned),
    });
    this.running.push({ reflector, promise: undefined });
  }

  /** The review's plan per type (logged: where each narrowed type is watched), or undefined without a reviewer. */
  private async planScopes(types: WatchedType[], signal: AbortSignal): Promise<Map<WatchedType, WatchScope>> {
    const ctx = this.opts.contextNamespace || 'default';
    const facts = this.opts.reviewer ? await reviewWatchAccess(this.opts.reviewer, ctx, signal, this.clock) : undefined;
    for (const e of facts?.reviewErrors ?? [])
      this.loop.logger.info(`Access review failed, a cluster-wide 403 will narrow the watch instead${kv({ err: e })}`, 0);
    const plan = planWatchScopes(types, ctx, facts);
    const out = new Map<WatchedType, WatchScope>();
    types.forEach((t, i) => {
      const p = plan[i]!;
      out.set(t, p);
      if (p.namespace !== undefined && p.forbidden === undefined) {
        this.loop.logger.info(
          `Watching in the context namespace only: the user may not list and watch it across all namespaces${kv({ type: typeName(t), namespace: p.namespace })}`,
          0,
        );
      }
    });
    return out;
  }

  /** The reflector options that narrow a cluster-wide 403 once and report a forbidden type once. */
  private narrowing(
    source: string | undefined,
    gvr: GroupVersionResource,
    planned: WatchScope,
  ): { narrowTo?: string; onForbidden: (message: string, namespace: string | undefined) => void } {
    return {
      ...(planned.narrowTo && !planned.namespace ? { narrowTo: planned.narrowTo } : {}),
      onForbidden: (message, namespace) => this.forbid(source, { gvr, namespace, message, by: 'request' }, false),
    };
  }

  /**
   * Records a forbidden type once: the config source stops being waited for, the warning is logged
   * (the reflector has logged its own for a 403), the next housekeeping iteration carries it on the
   * timeline as an error, and onForbidden hears of it.
   */
  private forbid(source: string | undefined, f: ForbiddenType, log = true): void {
    this.forbidden.push(f);
    if (source) this.loop.podConfig.removeSource(source);
    const line = `Not watching ${typeName(f.gvr)}${f.namespace ? ` in namespace "${f.namespace}"` : ''}: ${f.message}`;
    if (log)
      (this.loop.logger.warn ?? this.loop.logger.error).call(
        this.loop.logger,
        `Reflector forbidden, not watched${kv({ type: typeName(f.gvr), namespace: f.namespace ?? '(all namespaces)', err: f.message })}`,
      );
    this.unreported.push(line);
    this.opts.onForbidden?.(f);
  }

  /** Where a type is watched now: its namespace, undefined for all namespaces, 'forbidden' when it is not watched. */
  watchScope(gvr: Pick<GroupVersionResource, 'group' | 'resource'>): string | undefined | 'forbidden' {
    const same = (g: Pick<GroupVersionResource, 'group' | 'resource'>) => g.group === gvr.group && g.resource === gvr.resource;
    const r = this.running.find((x) => same(x.reflector.opts.gvr) && x.reflector.state !== 'forbidden');
    if (r) return r.reflector.namespace;
    return this.forbidden.some((f) => same(f.gvr)) ? 'forbidden' : undefined;
  }

  /**
   * The PLEG's observed set: the pods every pods source holds now (no request). Untrustworthy while
   * a pods reflector is not watching (down, backing off, or relisting): the relist then fails.
   */
  private *readPods(): Generator<Pod> {
    const pods = this.running.filter((r) => r.reflector.opts.gvr === PODS_GVR && r.source !== undefined && r.reflector.state !== 'forbidden');
    const behind = pods.find((r) => r.reflector.state !== 'watching');
    if (behind)
      throw new PodsNotSynced(
        `pods source ${behind.source} is ${behind.reflector.state}${behind.reflector.lastError ? `: ${behind.reflector.lastError}` : ''}`,
      );
    for (const r of pods) yield* this.loop.podConfig.storage.sourceValues(r.source!) as IterableIterator<Pod>;
  }

  /**
   * The config sources' objects keep who wrote them (ClusterSyncOptions.compactManagers) from now on,
   * or stop: each watch is reopened from where it was (no list); what the loop holds keeps the form it
   * came in until its next change.
   */
  keepManagers(on: boolean): void {
    for (const r of this.running) if (r.source !== undefined) r.reflector.keepManagers(on);
  }

  /**
   * Shows an observer that starts now (a flight recording begun while the loop runs) what the loop
   * already holds, without asking the API server for it again: each config source's objects as its
   * full list (from the merge's storage). Sources whose storage does not hold the objects whole list
   * again, one request each: the pods sources (the merge keeps the loop's copy of a pod,
   * config/loopPod.ts, and a recording keeps pods as the API has them) and the Events sources (they
   * feed the probe inference only); the relist's SET merges into no update where nothing changed.
   * Safe against a merge under way: the observer takes lists and events as states (an object it
   * already holds in that state is no change), and every merge after this call reaches it through
   * the sinks as usual.
   */
  seedObserver(observer: SyncObserver): { seeded: number; relisted: number } {
    let seeded = 0;
    let relisted = 0;
    for (const r of this.running) {
      if (r.reflector.state === 'forbidden') continue;
      if (r.source !== undefined && r.reflector.opts.gvr !== PODS_GVR) {
        const items = this.loop.podConfig.storage.sourcePods(r.source);
        observer.replace(r.source, r.reflector.opts.gvr, items);
        seeded += items.length;
      } else {
        r.reflector.relist('an observer started');
        relisted++;
      }
    }
    return { seeded, relisted };
  }

  // What the loop holds, read-only: the runners, the CLI and the tests ask ClusterSync, never the loop.

  /** Every config source has sent its first full list and the loop has handled it (upstream sourcesReady). */
  allSourcesReady(): boolean {
    return this.loop.allSourcesReady();
  }

  /** Every source this run started is watching: listed, its watch open (a source forbidden at run time is not). */
  allWatching(): boolean {
    return this.running.every((r) => r.reflector.state === 'watching');
  }

  /** The row the loop shows for an object key (actualStateOfWorld), or undefined. */
  view(key: string): ObjectView | undefined {
    return this.loop.actual.get(key);
  }

  /** Every row the loop shows, in no set order. */
  views(): IterableIterator<ObjectView> {
    return this.loop.actual.values();
  }

  /** Hears every row change (key, old, new) until the returned function is called; a throwing listener harms no other. */
  onViewChange(listener: ViewChangeListener): () => void {
    return this.loop.actual.subscribe(listener);
  }

  /** What the API server last said exists under key (desiredStateOfWorld), or undefined. */
  desired(key: string): DesiredObject | undefined {
    return this.loop.desired.get(key);
  }

  /** Every object the API server says exists, in no set order. */
  desiredObjects(): IterableIterator<DesiredObject> {
    return this.loop.desired.values();
  }

  /** A copy of the pod worker's state for a pod UID; undefined once no worker holds it (never started, or cleaned up). */
  worker(uid: string): PodSyncSnapshot | undefined {
    return this.loop.podWorkers.snapshot(uid);
  }

  /** The pod workers alive now, finished ones not yet cleaned up included. */
  get workerCount(): number {
    return this.loop.podWorkers.size;
  }

  /** The objects one config source holds now (the merge's storage; see sourceName; pods as the loop's copies, config/loopPod.ts), as a new array. */
  held(source: string): StoredObject[] {
    return this.loop.podConfig.storage.sourcePods(source);
  }

  /** The PLEG's health (upstream Healthy()), for the status and the CLI. */
  plegHealth(): PlegHealth {
    return this.relister.health();
  }

  /** Housekeeping's hook: restart dead or silent reflectors; report forbidden types once. */
  private async housekeeping(signal: AbortSignal): Promise<void> {
    const life = this.life;
    if (!life || signal.aborted) return;
    for (const r of this.running) {
      const { reflector } = r;
      if (reflector.state === 'forbidden') continue; // reported once; a forbidden request is not retried
      if (reflector.state === 'stopped' && !life.signal.aborted) {
        this.loop.logger.error(`Reflector stopped unexpectedly, restarting${kv({ reflector: reflector.opts.name })}`);
        r.promise = reflector.run(life.signal);
        continue;
      }
      if (reflector.stalled()) reflector.rewatch('watch silent');
      r.marks?.poll(); // a type stale by time alone (a watch down, a silent server) goes on the timeline here
    }
    if (this.unreported.length) {
      // Once: this housekeeping iteration is the timeline's error for these types.
      const lines = [...this.unreported];
      this.unreported = [];
      throw new Error(lines.join('; '));
    }
  }

  /**
   * The loop's runtime check (upstream runtimeState.runtimeErrors): an unhealthy PLEG is a runtime
   * error, and the loop skips its iterations ("Skipping pod synchronization") until it relists
   * again, as the kubelet's does. An API server that does not answer is no runtime error: a
   * kubelet's loop goes on without it (its PLEG is local). Ours goes on too, on what it last saw,
   * and its PLEG, fed by the pods watches, turns unhealthy once they have been down for the
   * threshold (3 minutes).
   */
  private runtimeErrors(): Error | undefined {
    const h = this.relister.health();
    if (!h.healthy) {
      const message = `PLEG is not healthy: ${h.message}`;
      if (this.plegUnhealthySince === undefined) {
        // Once as it turns unhealthy, with why its relists fail (the loop logs every skip after).
        const cause = this.relister.lastError instanceof Error ? this.relister.lastError.message : undefined;
        this.loop.logger.error(`${message}${kv({ cause })}`);
        this.plegUnhealthySince = this.clock.now();
      }
      return new Error(message);
    }
    if (this.plegUnhealthySince !== undefined) {
      this.loop.logger.info(`PLEG is healthy again${kv({ relists: this.relister.relists })}`, 0);
      this.plegUnhealthySince = undefined;
    }
    return undefined;
  }

  /** Each config source's freshness (forbidden ones, which are not watched, left out). */
  freshness(): SourceFreshness[] {
    return this.running.flatMap((r) =>
      r.freshness && r.source !== undefined && r.reflector.state !== 'forbidden'
        ? [{ source: r.source, gvr: r.reflector.opts.gvr, namespace: r.reflector.namespace, freshness: r.freshness }]
        : [],
    );
  }

  /** Counters for the CLI summary and tests. */
  stats(): {
    reflectors: { name: string; state: string; lists: number; watches: number; expired: number; errors: number; relists: number }[];
    pleg: { relists: number; errors: number; discarded: number; healthy: boolean };
    consistency: { lists: number; errors: number; relists: number };
    workers: { syncs: number; errors: number; cancelled: number };
  } {
    const checks = this.running.flatMap((r) => (r.consistency ? [r.consistency] : []));
    return {
      reflectors: this.running.map(({ reflector: r }) => ({
        name: r.opts.name,
        state: r.state,
        lists: r.stats.lists,
        watches: r.stats.watches,
        expired: r.stats.expired,
        errors: r.stats.errors,
        relists: r.stats.relistRequests,
      })),
      pleg: { relists: this.relister.relists, errors: this.relister.errors, discarded: this.relister.discarded, healthy: this.relister.healthy() },
      consistency: {
        lists: checks.reduce((n, c) => n + c.lists, 0),
        errors: checks.reduce((n, c) => n + c.errors, 0),
        relists: checks.reduce((n, c) => n + c.relists, 0),
      },
      workers: { ...this.loop.podWorkers.stats },
    };
  }
}
