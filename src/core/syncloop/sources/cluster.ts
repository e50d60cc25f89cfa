import { setMaxListeners } from 'node:events';
import { realClock, type Clock } from '../../clock';
import type { GroupVersionResource } from '../../timeline/events';
import { kv } from '../log';
import { syncLoop } from '../loop';
import { PlegRelister } from '../pleg/relister';
import { ProbeInference } from '../prober/infer';
import { SyncLoop, type SyncLoopOptions } from '../syncloop';
import type { Pod } from '../types';
import { ConsistencyCheck, type ListedSnapshot } from './consistency';
import { Reflector, type ListWatchClient } from './reflector';
import { ConfigSink, EventsSink } from './sinks';

export const PODS_GVR: GroupVersionResource = Object.freeze({ group: '', version: 'v1', resource: 'pods' });
export const EVENTS_GVR: GroupVersionResource = Object.freeze({ group: '', version: 'v1', resource: 'events' });

export interface ClusterSyncOptions extends Omit<SyncLoopOptions, 'clock' | 'sources' | 'onHousekeeping' | 'runtimeErrors'> {
  client: ListWatchClient;
  clock?: Clock;
  /** Namespaces to watch; empty or unset = all namespaces. */
  namespaces?: string[];
  /** Types to keep in the model besides pods (the extension passes the loaded types). */
  types?: GroupVersionResource[];
  pageSize?: number;
  plegPeriodMs?: number;
  /** A watch silent for this long (no event, no bookmark) is restarted by housekeeping. Default 3 min. */
  stallAfterMs?: number;
  /** Reflectors failing this many times in a row make the loop back off (the API is unreachable). */
  unreachableAfterErrors?: number;
}

/** The config source name of a type in a namespace: "api" for all pods, as the kubelet names its source. */
export function sourceName(gvr: GroupVersionResource, namespace?: string): string {
  const type = gvr.group === '' && gvr.resource === 'pods' ? '' : `:${gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource}`;
  return `api${type}${namespace ? `/${namespace}` : ''}`;
}

interface Running {
  reflector: Reflector;
  promise: Promise<void> | undefined;
  /** For pods: which PLEG list snapshot to compare with. */
  podsNamespace?: string | undefined;
  source?: string;
}

/**
 * ClusterSync: the sync loop wired to a cluster (issue 4, phase 2).
 *
 *   reflector per (type, namespace) --ConfigSink--> PodConfig.merge --> configCh
 *   reflector of pods                 --ProbeInference (flags, restarts)--> liveness/readiness/startup
 *   reflector of Events (Pod objects) --ProbeInference (Unhealthy, Killing)--> the same channels
 *   PlegRelister: paged list of pods every second --GenericPLEG--> plegCh
 *   syncLoop ticks syncCh (1 s) and housekeepingCh (2 s)
 *
 * Housekeeping's hook restarts reflectors whose loop died or whose watch went silent, and relists
 * the pods source when the PLEG's list shows the watch missed something (consistency.ts). While
 * every reflector keeps failing, the loop reports a runtime error and backs off, as the kubelet
 * does when its runtime is down.
 */
export class ClusterSync {
  readonly kl: SyncLoop;
  readonly probes = new ProbeInference();
  readonly relister: PlegRelister;
  readonly running: Running[] = [];
  readonly consistency = new ConsistencyCheck();
  private readonly podLists = new Map<string, ListedSnapshot>();
  private listSeq = 0;
  private readonly typesAndNamespaces: { types: GroupVersionResource[]; namespaces: (string | undefined)[] };
  private life: AbortController | undefined;
  private readonly clock: Clock;

  constructor(readonly opts: ClusterSyncOptions) {
    this.clock = opts.clock ?? realClock;
    const namespaces = opts.namespaces?.length ? opts.namespaces : [undefined];
    const types = [PODS_GVR, ...(opts.types ?? []).filter((t) => !(t.group === '' && t.resource === 'pods'))];
    const sources: string[] = [];
    for (const t of types) for (const ns of namespaces) sources.push(sourceName(t, ns));
    this.kl = new SyncLoop({
      ...opts,
      clock: this.clock,
      sources,
      onHousekeeping: (signal) => this.housekeeping(signal),
      runtimeErrors: () => this.runtimeErrors(),
      probeProgress: (uid) => this.probes.progress(uid),
    });
    this.relister = new PlegRelister((signal) => this.listPods(signal), this.clock, this.kl.channels.pleg, opts.plegPeriodMs);
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
    const common = { clock: this.clock, logger: this.kl.logger, pageSize: this.opts.pageSize ?? 500, stallAfterMs: this.opts.stallAfterMs ?? 180_000, ...(this.opts.random ? { random: this.opts.random } : {}) };
    for (const t of types) {
      for (const ns of namespaces) {
        const source = sourceName(t, ns);
        const resource = { group: t.group, resource: t.resource };
        const isPods = t === PODS_GVR;
        const sink = new ConfigSink(this.kl, this.kl.podConfig, source, resource, isPods ? this.probes : undefined, life.signal, ns);
        const reflector = new Reflector(this.opts.client, sink, { ...common, gvr: t, ...(ns ? { namespace: ns } : {}), name: source });
        this.running.push({ reflector, promise: undefined, source, ...(isPods ? { podsNamespace: ns ?? '' } : {}) });
      }
    }
    for (const ns of namespaces) {
      const sink = new EventsSink(this.kl, this.probes, life.signal);
      const reflector = new Reflector(this.opts.client, sink, {
        ...common,
        gvr: EVENTS_GVR,
        ...(ns ? { namespace: ns } : {}),
        fieldSelector: 'involvedObject.kind=Pod',
        name: `events${ns ? `/${ns}` : ''}`,
      });
      this.running.push({ reflector, promise: undefined });
    }
    for (const r of this.running) r.promise = r.reflector.run(life.signal);
    const pleg = this.relister.run(life.signal);
    try {
      await syncLoop(this.kl, life.signal);
    } finally {
      life.abort(new Error('sync loop ended'));
      signal.removeEventListener('abort', onAbort);
      this.kl.podConfig.updates.close(); // sources blocked on a full configCh give up
      await Promise.allSettled([pleg, ...this.running.map((r) => r.promise)]);
    }
  }

  /** The PLEG's pod list: one paged list per namespace, remembered for the consistency check. */
  private async listPods(signal: AbortSignal): Promise<Pod[]> {
    const out: Pod[] = [];
    for (const ns of this.typesAndNamespaces.namespaces) {
      const l = await this.opts.client.list(PODS_GVR, { ...(ns ? { namespace: ns } : {}), limit: this.opts.pageSize ?? 500 }, { signal });
      this.podLists.set(ns ?? '', { items: l.items as Pod[], resourceVersion: l.resourceVersion, seq: ++this.listSeq });
      out.push(...(l.items as Pod[]));
    }
    return out;
  }

  /** Housekeeping's hook: restart dead or silent reflectors; relist pods sources that missed events. */
  private async housekeeping(signal: AbortSignal): Promise<void> {
    const life = this.life;
    if (!life || signal.aborted) return;
    for (const r of this.running) {
      const { reflector } = r;
      if (reflector.state === 'stopped' && !life.signal.aborted) {
        this.kl.logger.error(`Reflector stopped unexpectedly, restarting${kv({ reflector: reflector.opts.name })}`);
        r.promise = reflector.run(life.signal);
        continue;
      }
      if (reflector.stalled()) {
        reflector.relist('watch silent');
        continue;
      }
      if (r.podsNamespace === undefined || !r.source || reflector.state !== 'watching') continue;
      const listed = this.podLists.get(r.podsNamespace);
      if (!listed) continue;
      const missed = this.consistency.check(r.source, listed, this.kl.podConfig.storage.sourcePods(r.source));
      if (missed) reflector.relist(`watch missed events: ${missed.slice(0, 5).join(' ')}${missed.length > 5 ? ` +${missed.length - 5}` : ''}`);
    }
  }

  /** The loop's runtime check: every reflector failing repeatedly means the API server is unreachable. */
  private runtimeErrors(): Error | undefined {
    const n = this.opts.unreachableAfterErrors ?? 3;
    if (this.running.length === 0 || !this.running.every((r) => r.reflector.stats.consecutiveErrors >= n)) return undefined;
    return new Error(`API server unreachable: ${this.running[0]!.reflector.lastError ?? 'watches failing'}`);
  }

  /** Counters for the CLI summary and tests. */
  stats(): { reflectors: { name: string; state: string; lists: number; watches: number; expired: number; errors: number; relists: number }[]; pleg: { relists: number; errors: number; discarded: number } } {
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
      pleg: { relists: this.relister.relists, errors: this.relister.errors, discarded: this.relister.discarded },
    };
  }
}
