/**
 * The sync loop on a cluster, as the integration and apiserver tests run it: a KubeClient from a
 * kubeconfig, a ClusterSync with a timeline and a logger that keeps every line (warnings as "W ...",
 * errors as "E ..."), running until `stop()`. `stop()` aborts the loop, waits for it to end and closes
 * the client; it is safe to call twice. `ready` (default on) waits until every source has listed.
 */
import { KubeClient } from '../../src/core/kube/client';
import { ClusterSync, type ClusterSyncOptions } from '../../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../../src/core/timeline/store';
import { eventually } from './eventually';

export interface RunningSync {
  sync: ClusterSync;
  client: KubeClient;
  timeline: TimelineStore;
  /** Every log line of the loop, in order. */
  lines: string[];
  stop(): Promise<void>;
}

export async function startSync(
  kubeconfig: string | { client: KubeClient },
  opts: Omit<ClusterSyncOptions, 'client'> & { timelineSize?: number; ready?: boolean; readyTimeoutMs?: number } = {},
): Promise<RunningSync> {
  const { timelineSize = 10_000, ready = true, readyTimeoutMs = 30_000, ...syncOpts } = opts;
  const client = typeof kubeconfig === 'string' ? await KubeClient.fromKubeconfig({ kubeconfig }) : kubeconfig.client;
  const timeline = syncOpts.timeline ?? new TimelineStore(timelineSize);
  const lines: string[] = [];
  const sync = new ClusterSync({
    client,
    timeline,
    logger: { info: (l) => lines.push(l), warn: (l) => lines.push(`W ${l}`), error: (l) => lines.push(`E ${l}`) },
    ...syncOpts,
  });
  const ac = new AbortController();
  const running = sync.run(ac.signal);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      ac.abort();
      await running;
      client.close();
    })());
  if (ready) {
    try {
      await eventually(() => sync.allSourcesReady(), { description: 'every source of the sync loop listed', timeoutMs: readyTimeoutMs });
    } catch (e) {
      await stop();
      throw e;
    }
  }
  return { sync, client, timeline, lines, stop };
}
