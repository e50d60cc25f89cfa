/**
 * KubeClient: the API the rest of core uses (the loader and the sync loop). One context, one
 * transport (one keep-alive agent, one rate limiter), and four operations:
 *
 *   const client = await KubeClient.connect(loadKubeContext({ kubeconfig, context }), { qps, burst });
 *   const d = await client.discover({ signal });                  // groups, resources, failures
 *   const types = listableResources(d);                           // preferred versions, `list` verb
 *   const l = await client.list(gvr, { limit: 500 }, { signal }); // all pages; 410 -> a fresh paged list (bounded)
 *   const end = await client.watch(gvr, { resourceVersion: l.resourceVersion, allowWatchBookmarks: true },
 *                                  (ev) => ..., signal);          // resolves with how it ended
 *   client.close();                                               // no socket outlives it
 *
 * Every operation takes an AbortSignal that aborts its in-flight request at once.
 *
 * Discovery: each request has a deadline (discoveryTimeoutMs, default 32 s); with `discoveryCache`
 * it is kept on disk as kubectl keeps it (discovery/cache.ts; off unless asked: the CLI and the
 * extension ask). Only a client's first discovery may come from the disk (a process's one load, a
 * VS Code session's first); later ones ask the server, so a Refresh sees CRDs made since. A cached
 * discovery is refreshed on a miss: discover({ fresh: true }) bypasses it, and a list that answers
 * 404 (the type went away since) invalidates the entry.
 */
import { discover, DEFAULT_DISCOVERY_TIMEOUT_MS, type DiscoverOptions } from './discovery/discover';
import { DiscoveryCache, type DiscoveryCacheOptions } from './discovery/cache';
import type { Discovery } from './discovery/parse';
import { KubeApiError } from './errors';
import { loadKubeContext, type KubeContext, type LoadKubeContextOptions } from './config/kubeconfig';
import { listAll, type ListHooks, type ListOptions, type ListResult } from './listwatch/list';
import { KubeTransport, type TransportOptions } from './transport/transport';
import type { GroupVersionResource, KubeObject } from './objects/types';
import { selfSubjectAccessReview, selfSubjectRulesReview, whoAmI, type AccessReview, type ResourceAttributes, type RulesReview } from './access/selfSubject';
import { watch, type WatchEnd, type WatchEvent, type WatchOptions } from './listwatch/watch';
import { defaultContainer, openPodLog, type PodLogOpen, type PodLogOptions } from './listwatch/podLog';
import { followOwnerLogs, type LogOwner, type OwnerLogEnd, type OwnerLogHooks, type OwnerLogOptions } from './listwatch/ownerLogs';
import { realClock } from '../clock';

export interface ClientOptions extends TransportOptions {
  /** Deadline of each discovery request, ms (0 = none); default 32 s. */
  discoveryTimeoutMs?: number;
  /** Deadline of a whole discovery, ms (0 = none); default 64 s. */
  discoveryOverallTimeoutMs?: number;
  /** Keep discovery on disk (true: in the default folder with kubectl's 6 h TTL). Default off. */
  discoveryCache?: boolean | DiscoveryCacheOptions;
  /** false: every list and watch asks for JSON (ListOptions.protobuf), to compare. Default on. */
  protobuf?: boolean;
}

export class KubeClient {
  /** The disk cache of discovery, when on. */
  readonly discoveryCache: DiscoveryCache | undefined;
  private servedFromCache = false;
  private discovered = false;

  private constructor(
    readonly transport: KubeTransport,
    private readonly opts: ClientOptions,
  ) {
    const c = opts.discoveryCache;
    this.discoveryCache = c ? new DiscoveryCache(transport.context, c === true ? {} : c) : undefined;
  }

  static async connect(context: KubeContext, opts: ClientOptions = {}): Promise<KubeClient> {
    return new KubeClient(await KubeTransport.create(context, opts), opts);
  }

  /** loadKubeContext + connect. Throws KubeConfigError for configuration problems. */
  static async fromKubeconfig(load: LoadKubeContextOptions, opts: ClientOptions = {}): Promise<KubeClient> {
    return KubeClient.connect(loadKubeContext(load), opts);
  }

  get context(): KubeContext {
    return this.transport.context;
  }

  get server(): string {
    return this.transport.context.server;
  }

  /** `fresh`: ask the server even when the disk cache has an entry (and store the answer). */
  async discover(opts: DiscoverOptions & { fresh?: boolean } = {}): Promise<Discovery> {
    const { fresh, ...o } = opts;
    // Only the default form is cached (aggregated, falling back to every legacy version).
    const cache = o.legacyOnly || o.preferredOnly ? undefined : this.discoveryCache;
    if (cache && !fresh && !this.discovered) {
      const hit = await cache.read();
      if (hit) {
        this.servedFromCache = this.discovered = true;
        return { ...hit.discovery, cachedAgeMs: hit.ageMs };
      }
    }
    const d = await discover(this.transport, {
      timeoutMs: this.opts.discoveryTimeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS,
      overallTimeoutMs: this.opts.discoveryOverallTimeoutMs,
      ...o,
    });
    this.discovered = true;
    if (cache) {
      this.servedFromCache = false;
      await cache.write(d);
    }
    return d;
  }

  async list(gvr: GroupVersionResource, opts: ListOptions = {}, hooks: ListHooks = {}): Promise<ListResult> {
    try {
      return await listAll(this.transport, gvr, this.opts.protobuf === false ? { ...opts, protobuf: false } : opts, hooks);
    } catch (e) {
      // A type planned from cached discovery is gone: the entry is out of date (kubectl, too,
      // invalidates its cache on such a miss); the next discovery asks the server.
      if (this.servedFromCache && e instanceof KubeApiError && e.status === 404) {
        this.servedFromCache = false;
        await this.discoveryCache?.invalidate();
      }
      throw e;
    }
  }

  watch(gvr: GroupVersionResource, opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd> {
    return watch(this.transport, gvr, this.opts.protobuf === false ? { ...opts, protobuf: false } : opts, onEvent, signal);
  }

  /** The log of one container instance, read with the user's rights (listwatch/podLog.ts). */
  podLog(namespace: string, pod: string, opts: PodLogOptions, signal?: AbortSignal): Promise<PodLogOpen> {
    return openPodLog(this.transport, namespace, pod, opts, signal);
  }

  /** A pod's containers, its default container (kubectl's) first; init containers not. */
  async podContainers(namespace: string, pod: string, signal?: AbortSignal): Promise<string[]> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`;
    const d = defaultContainer((await this.transport.getJson<KubeObject>({ path, signal })).body);
    const names = d.all.filter((c) => !c.endsWith(' (init)'));
    return d.name ? [d.name, ...names.filter((c) => c !== d.name)] : names;
  }

  /** An owner's pods' logs, interleaved by time and tagged (listwatch/ownerLogs.ts). */
  ownerLogs(namespace: string, owner: LogOwner, opts: OwnerLogOptions, hooks: OwnerLogHooks, signal?: AbortSignal): Promise<OwnerLogEnd> {
    return followOwnerLogs(this.transport, namespace, owner, opts, hooks, realClock, signal);
  }

  /** SelfSubjectAccessReview: may the user do this? (read-only: a review stores nothing) */
  accessReview(a: ResourceAttributes, opts: { signal?: AbortSignal } = {}): Promise<AccessReview> {
    return selfSubjectAccessReview(this.transport, a, opts.signal);
  }

  /** SelfSubjectRulesReview: the user's rules in one namespace. */
  rulesReview(namespace: string, opts: { signal?: AbortSignal } = {}): Promise<RulesReview> {
    return selfSubjectRulesReview(this.transport, namespace, opts.signal);
  }

  /** SelfSubjectReview: the user name the server authenticated, if it says. */
  whoAmI(opts: { signal?: AbortSignal } = {}): Promise<string | undefined> {
    return whoAmI(this.transport, opts.signal);
  }

  close(): void {
    this.transport.close();
  }
}
