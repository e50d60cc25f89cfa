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
 */
import { discover, type DiscoverOptions } from './discovery';
import type { Discovery } from './discoveryParse';
import { loadKubeContext, type KubeContext, type LoadKubeContextOptions } from './kubeconfig';
import { listAll, type ListHooks, type ListOptions, type ListResult } from './list';
import { KubeTransport, type TransportOptions } from './transport';
import type { GroupVersionResource } from './types';
import { watch, type WatchEnd, type WatchEvent, type WatchOptions } from './watch';

export class KubeClient {
  private constructor(readonly transport: KubeTransport) {}

  static async connect(context: KubeContext, opts: TransportOptions = {}): Promise<KubeClient> {
    return new KubeClient(await KubeTransport.create(context, opts));
  }

  /** loadKubeContext + connect. Throws KubeConfigError for configuration problems. */
  static async fromKubeconfig(load: LoadKubeContextOptions, opts: TransportOptions = {}): Promise<KubeClient> {
    return KubeClient.connect(loadKubeContext(load), opts);
  }

  get context(): KubeContext {
    return this.transport.context;
  }

  get server(): string {
    return this.transport.context.server;
  }

  discover(opts: DiscoverOptions = {}): Promise<Discovery> {
    return discover(this.transport, opts);
  }

  list(gvr: GroupVersionResource, opts: ListOptions = {}, hooks: ListHooks = {}): Promise<ListResult> {
    return listAll(this.transport, gvr, opts, hooks);
  }

  watch(gvr: GroupVersionResource, opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd> {
    return watch(this.transport, gvr, opts, onEvent, signal);
  }

  close(): void {
    this.transport.close();
  }
}
