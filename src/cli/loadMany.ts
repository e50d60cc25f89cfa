/**
 * `kubeloop load --context A --context B` / `--all-contexts`: several clusters in one run, on one
 * shared budget of lanes (core's loadClusters). Each cluster has its own client (credentials, rate
 * limiter, discovery cache, its channel of the process's one I/O thread) and its own report; a cluster that cannot be set up, fails
 * or does not answer is reported with its reason and never stops the others.
 *
 * Exit status: 0 every cluster loaded every type; 2 some cluster failed or some types did; 1 only
 * for a problem with the run itself (bad flags, no kubeconfig, no contexts); 130 interrupted.
 */
import { credentialsWithheld } from '../core/kube/transport/auth';
import { KubeClient, KubeConfigError, listContextNames, loadKubeContexts, type KubeContext } from '../core/kube';
import { resolveLoaderOptions } from '../core/loader';
import { loadClusters, MULTI_DEFAULT_LANES, MULTI_REACH_TIMEOUT_MS, type ClusterOutcome, type ClusterTarget } from '../core/loader/multiCluster';
import { apiCostLine } from '../app/load/apiCost';
import { loaderOptions, summaryLine, table, toJson, wantsIoThread, type LoadFlags, type LoadIO } from './load';
import { formatCount } from '../core/formatCount';
import { redactUrl } from '../core/kube/redactUrl';

interface Prepared {
  name: string;
  ctx?: KubeContext;
  client?: KubeClient;
  /** Why the cluster could not even be set up (a broken context, bad credentials file). */
  setupError?: string;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function loadMany(flags: LoadFlags, io: LoadIO): Promise<number> {
  let names: string[];
  try {
    names = flags.allContexts ? listContextNames({ kubeconfig: flags.kubeconfig }).names : [...new Set(flags.contexts)];
  } catch (e) {
    io.stderr.write(`kubeloop load: ${e instanceof KubeConfigError ? e.message : describe(e)}\n`);
    return 1;
  }
  if (names.length === 0) {
    io.stderr.write('kubeloop load: --all-contexts: the kubeconfig has no contexts\n');
    return 1;
  }
  const options = loaderOptions(flags);
  let resolved;
  try {
    resolved = resolveLoaderOptions(options);
  } catch (e) {
    io.stderr.write(`kubeloop load: ${describe(e)}\n`);
    return 1;
  }
  // The configuration is read once for every context; a context it cannot give is that cluster's failure.
  let contexts: (KubeContext | Error)[];
  try {
    contexts = loadKubeContexts({ kubeconfig: flags.kubeconfig }, names);
  } catch (e) {
    contexts = names.map(() => (e instanceof Error ? e : new Error(String(e))));
  }
  const prepared: Prepared[] = await Promise.all(
    names.map(async (name, i): Promise<Prepared> => {
      try {
        const ctx = contexts[i]!;
        if (ctx instanceof Error) throw ctx;
        const withheld = credentialsWithheld(ctx);
        if (withheld) io.stderr.write(`warning: ${withheld}\n`);
        const client = await KubeClient.connect(ctx, {
          qps: flags.qps,
          burst: flags.burst,
          requestTimeoutMs: flags.requestTimeoutMs,
          ioThread: wantsIoThread(flags),
          discoveryCache: !flags.noDiscoveryCache,
          disableCompression: flags.disableCompression,
          ...(flags.noProtobuf ? { protobuf: false } : {}),
        });
        return { name, ctx, client };
      } catch (e) {
        return { name, setupError: describe(e) };
      }
    }),
  );
  const lanes = flags.lanes ?? MULTI_DEFAULT_LANES;
  const reachTimeoutMs = (flags.reachTimeoutSeconds ?? MULTI_REACH_TIMEOUT_MS / 1000) * 1000;
  const t0 = performance.now();
  try {
    const ready = prepared.filter((p) => p.client);
    const targets: ClusterTarget[] = ready.map((p) => ({
      name: p.name,
      client: p.client!,
      options: { ...options, ...(p.ctx!.namespace ? { contextNamespace: p.ctx!.namespace } : {}) },
    }));
    const outcomes = await loadClusters(targets, {
      lanes,
      reachTimeoutMs,
      ...(io.signal ? { signal: io.signal } : {}),
      onSettled: (o) => {
        if (!flags.json) io.stderr.write(`${o.name}: ${oneLine(o)}\n`);
      },
    });
    const byName = new Map(outcomes.map((o) => [o.name, o]));
    const durationMs = Math.round(performance.now() - t0);
    const clusters = prepared.map((p) => {
      const o = byName.get(p.name);
      if (!o || !p.ctx || !p.client) return { context: p.name, outcome: 'failed', error: p.setupError ?? 'not loaded', unreachable: false };
      const wire = { stats: p.client.transport.stats, discoveryCached: o.plan?.discovery.cachedAgeMs !== undefined, proxied: !!p.client.transport.proxy };
      return {
        ...toJson(p.ctx, { options: resolved }, o.summary, o.results, o.plan, wire),
        unreachable: !!o.unreachable,
        firstResultMs: o.firstResultMs === undefined ? null : Math.round(o.firstResultMs),
        settledMs: Math.round(o.settledMs),
        ...(o.summary.outcome === 'failed' ? { error: describe(o.summary.error) } : {}),
      };
    });
    const cancelled = outcomes.some((o) => o.summary.outcome === 'cancelled' && !o.unreachable);
    const bad = clusters.some((c) => c.outcome !== 'ok');
    if (flags.json) {
      const objects = outcomes.reduce((n, o) => n + o.summary.objects, 0);
      io.stdout.write(JSON.stringify({ lanes, reachTimeoutMs, durationMs, objects, clusters }) + '\n');
    } else {
      for (const p of prepared) {
        const o = byName.get(p.name);
        io.stdout.write(`\n== context ${p.name}${p.ctx ? ` (${redactUrl(p.ctx.server)})` : ''}\n`);
        if (!o) {
          io.stdout.write(`not loaded: ${p.setupError}\n`);
          continue;
        }
        if (o.results.length > 0) io.stdout.write(table(o.results));
        io.stdout.write(o.summary.outcome === 'failed' ? `Failed: ${describe(o.summary.error)}\n` : summaryLine(o.summary, resolved));
        if (o.summary.apiCost) io.stdout.write(`${apiCostLine(o.summary.apiCost)}\n`); // as a lone load prints it
      }
      const ok = clusters.filter((c) => c.outcome === 'ok').length;
      io.stdout.write(`\n${ok}/${clusters.length} clusters loaded in ${(durationMs / 1000).toFixed(2)} s on ${lanes} shared lanes.\n`);
    }
    return cancelled ? 130 : bad ? 2 : 0;
  } finally {
    for (const p of prepared) p.client?.close();
  }
}

/** "12,345 objects in 1.20 s" / "unreachable: no answer ..." / "failed: ...". */
function oneLine(o: ClusterOutcome): string {
  const s = o.summary;
  if (o.unreachable) return `unreachable: ${o.unreachable.message}`;
  if (s.outcome === 'failed') return `failed: ${describe(s.error)}`;
  return `${s.outcome}: ${formatCount(s.objects)} objects, ${s.ok}/${s.tasks} task(s) in ${(s.durationMs / 1000).toFixed(2)} s`;
}
