/**
 * `kubeloop load`: load every listable resource type of a cluster with the pooled ClusterLoader and
 * report what was loaded.
 *
 *   kubeloop load [--kubeconfig FILE] [--context NAME] [--concurrency N] [--page-size N]
 *                 [--namespace NS]... [--selector SEL] [--include T]... [--exclude T]...
 *                 [--metadata-only] [--timeout SECONDS] [--request-timeout DURATION] [--qps N] [--burst N] [--json]
 *                 [--no-discovery-cache] [--compression auto|always|never] [--no-protobuf]
 *
 * Discovery is kept on disk as kubectl keeps it ($XDG_CACHE_HOME/kubeloop/discovery, 6 hours;
 * --no-discovery-cache asks the server every time); proxies come from the kubeconfig's proxy-url or
 * HTTPS_PROXY / NO_PROXY, as kubectl's.
 *
 * Exit status: 0 every type loaded; 2 some types failed; 1 fatal (bad flags, missing or broken
 * kubeconfig, unknown context, unreachable server / discovery failed); 130 interrupted (Ctrl-C
 * cancels the in-flight requests, then what was loaded is printed).
 * `--json` prints one JSON object on one line (see toJson); otherwise a table and a summary line.
 */
import { apiCostLine } from '../app/load/apiCost';
import { discardPrestartedIoThread, KubeClient, KubeConfigError, loadKubeContext, type KubeContext, type TransportStats } from '../core/kube';
import { DEFAULT_BURST, DEFAULT_QPS } from '../core/kube';
import { depthNotices } from '../core/kube/objects/depth';
import {
  AUTO_BASE_LANES,
  AUTO_MAX_LANES,
  AUTO_SERVER_MS,
  ClusterLoader,
  type ClusterLoaderOptions,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  noRightsText,
  nothingPermitted,
  type LoadPlan,
  type LoadSummary,
  type LoadTaskResult,
} from '../core/loader';
import { MAX_CONCURRENCY } from '../core/pool';
import { MULTI_DEFAULT_LANES, MULTI_REACH_TIMEOUT_MS } from '../core/loader/multiCluster';
import { loadMany } from './loadMany';
import type { ListTransfer } from '../core/kube/listwatch/list';
import { treeTransferFor } from '../core/rows/tableView';
import { formatCount } from '../core/formatCount';
import { redactUrl } from '../core/kube/redactUrl';
import { credentialsWithheld } from '../core/kube/transport/auth';
import { cliWriter, type Writer } from './terminal';
import { parseRequestTimeout } from './requestTimeout';

export interface LoadIO {
  /** Written through cliWriter (terminal.ts): a terminal gets server text with its control characters shown. */
  stdout: Writer;
  stderr: Writer;
  /** Aborted on Ctrl-C: cancels the load; exit status 130. */
  signal?: AbortSignal;
}

export const LOAD_USAGE = `usage: kubeloop load [flags]

Loads every listable resource type (CRDs included) with a pool of workers and prints what it loaded.

flags:
  --kubeconfig FILE     kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        context to use (default: the current context). Repeat it to load several
                        clusters in one run, on one shared pool of workers (see below)
  --all-contexts        load every context of the kubeconfig in one run
  --lanes N             several contexts: lists running at once across all of them, 1..${MAX_CONCURRENCY}
                        (default ${MULTI_DEFAULT_LANES}; each cluster's own pool still bounds it)
  --reach-timeout SECONDS  several contexts: a cluster with no answer this long after the start is
                        given up on and reported unreachable (default ${MULTI_REACH_TIMEOUT_MS / 1000})
  --concurrency N       parallel list workers, 1..${MAX_CONCURRENCY}, used exactly. Default: from the
                        measured round-trip time, ${AUTO_BASE_LANES} on a LAN, widened far away so the
                        server still works on about ${AUTO_BASE_LANES} lists at once:
                        floor(${AUTO_BASE_LANES} x (1 + RTT / ${AUTO_SERVER_MS} ms)), ${AUTO_BASE_LANES}..${AUTO_MAX_LANES}
  --page-size N         objects per page (limit), 1..${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})
  -n, --namespace NS    only this namespace (repeatable); cluster-scoped types are still loaded once.
                        Without it: all namespaces, and a type the user may not list across
                        namespaces (403) is listed in the context's namespace instead
  -l, --selector SEL    label selector, e.g. app=web,tier!=db
  --include TYPE        only these types (repeatable): pods, po, Pod, deployments.apps, deployments.v1.apps
  --exclude TYPE        skip these types (repeatable), same forms
  --metadata-only       fetch PartialObjectMetadataList and keep only metadata (much less memory)
  --transfer MODE       full (default) | metadata | table (server-side Table rows, includeObject=Metadata)
                        | auto (what the extension's tree fetches: per type, Table, metadata or full)
  --timeout SECONDS     per-task timeout: a list is given up after this long without receiving
                        anything (one type in one namespace), 0 = none (default 300)
  --request-timeout D   deadline of one server request, its whole answer included (kubectl's flag):
                        seconds, or a duration such as 30s, 1m; 0 = none (default 0). A request past
                        it is retried (5 times at most), then its type fails
  --qps N               client-side rate limit, requests/s; 0 = none (default ${DEFAULT_QPS})
  --burst N             rate limit burst (default ${DEFAULT_BURST})
  --json                print one JSON object instead of the table
  --no-discovery-cache  ask the server for discovery instead of the 6-hour disk cache
                        ($XDG_CACHE_HOME/kubeloop/discovery, as kubectl's ~/.kube/cache/discovery)
  --compression MODE    gzip: auto (default: asked for, but not of a server on this machine
                        unless a round trip of 20 ms or more says it is a tunnel), always, never
  --disable-compression the same as --compression never (kubectl's flag)
  --no-protobuf         ask for JSON only (default: protobuf where the server offers it and KubeLoop
                        reads it: built-in kinds, metadata-only lists; JSON otherwise)

proxies: the kubeconfig cluster's proxy-url, else HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as kubectl

several contexts: each cluster is loaded with its own credentials, discovery, rate limit (--qps,
--burst apply to each) and pool, and the lists of all of them share --lanes fairly: no cluster takes
every lane, and one still discovering keeps a lane ready for its first list. A cluster that fails or
does not answer is reported with its reason and never stops the others. --json prints
{"clusters": [...]}, one object per context as for one context, plus "unreachable".

exit status: 0 all types loaded, 2 some types failed (or, with several contexts, a cluster failed),
1 fatal error, 130 interrupted`;

export interface LoadFlags {
  kubeconfig?: string;
  context?: string;
  /** Every --context given, in order (several: a multi-cluster load). */
  contexts: string[];
  allContexts: boolean;
  lanes?: number;
  reachTimeoutSeconds?: number;
  concurrency?: number;
  pageSize?: number;
  namespaces: string[];
  selector?: string;
  include: string[];
  exclude: string[];
  metadataOnly: boolean;
  /** --transfer: what each list asks for; default full objects (auto: the tree's per-type choice). */
  transfer?: ListTransfer | 'auto';
  timeoutSeconds?: number;
  /** --request-timeout, ms (0 = none). */
  requestTimeoutMs?: number;
  qps?: number;
  burst?: number;
  json: boolean;
  help: boolean;
  noDiscoveryCache?: boolean;
  disableCompression?: boolean;
  /** --no-protobuf: every list and watch asks for JSON. */
  noProtobuf?: boolean;
}

/** The loader's options from the flags (the context's namespace aside), for one context or several. */
export function loaderOptions(flags: LoadFlags): Omit<ClusterLoaderOptions, 'lanes' | 'contextNamespace'> {
  return {
    concurrency: flags.concurrency,
    pageSize: flags.pageSize,
    namespaces: flags.namespaces,
    labelSelector: flags.selector,
    include: flags.include,
    exclude: flags.exclude,
    metadataOnly: flags.metadataOnly,
    transfer: transferOption(flags),
    taskTimeoutMs: flags.timeoutSeconds === undefined ? undefined : flags.timeoutSeconds * 1000,
    requestTimeoutMs: flags.requestTimeoutMs,
    // The command reports counts, never objects: each item is counted and let go with its page,
    // so memory holds the pages in flight rather than the cluster (a million-object cluster must
    // not need gigabytes here).
    transform: () => undefined,
    // and so a protobuf page's items are counted, not decoded, and a type the walker does not read
    // whole (custom resources) is counted from its metadata-only list, in protobuf, instead of full
    // objects in JSON (loader options.ts); a JSON answer is still parsed whole
    countsOnly: true,
  };
}

/** The loader's `transfer` for --transfer (auto: the tree's per-type choice). */
export function transferOption(flags: LoadFlags): ClusterLoaderOptions['transfer'] {
  return flags.transfer === 'auto' ? (task) => treeTransferFor(task.gvr) : flags.transfer;
}

/**
 * Whether the load starts the I/O thread: not for metadata-only lists (faster on this thread,
 * list.ts), nor for --transfer table, whose Table pages are then parsed here, managedFields and all
 * (on the I/O thread, ioTable.ts would cut those first).
 */
export function wantsIoThread(flags: LoadFlags): boolean {
  return !flags.metadataOnly && (flags.transfer ?? 'full') !== 'metadata' && flags.transfer !== 'table';
}

export class UsageError extends Error {}

const num = (flag: string, v: string, integer: boolean): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag}: expected ${integer ? 'an integer' : 'a number'}, got "${v}"`);
  return n;
};

export function parseLoadFlags(argv: string[]): LoadFlags {
  const f: LoadFlags = { contexts: [], allContexts: false, namespaces: [], include: [], exclude: [], metadataOnly: false, json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${arg}: missing value`);
      return v;
    };
    switch (arg) {
      case '--kubeconfig':
        f.kubeconfig = value();
        break;
      case '--context':
        f.contexts.push(value());
        f.context ??= f.contexts[0];
        break;
      case '--all-contexts':
        f.allContexts = true;
        break;
      case '--lanes':
        f.lanes = num(arg, value(), true);
        break;
      case '--reach-timeout':
        f.reachTimeoutSeconds = num(arg, value(), false);
        break;
      case '--concurrency':
        f.concurrency = num(arg, value(), true);
        break;
      case '--page-size':
        f.pageSize = num(arg, value(), true);
        break;
      case '-n':
      case '--namespace':
        f.namespaces.push(value());
        break;
      case '-l':
      case '--selector':
        f.selector = value();
        break;
      case '--include':
        f.include.push(...value().split(',').filter(Boolean));
        break;
      case '--exclude':
        f.exclude.push(...value().split(',').filter(Boolean));
        break;
      case '--metadata-only':
        f.metadataOnly = true;
        break;
      case '--transfer': {
        const mode = value();
        if (mode !== 'full' && mode !== 'metadata' && mode !== 'table' && mode !== 'auto')
          throw new UsageError(`--transfer must be full, metadata, table or auto, got "${mode}"`);
        f.transfer = mode;
        break;
      }
      case '--timeout':
        f.timeoutSeconds = num(arg, value(), false);
        break;
      case '--request-timeout':
        try {
          f.requestTimeoutMs = parseRequestTimeout(value());
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        break;
      case '--qps':
        f.qps = num(arg, value(), false);
        break;
      case '--burst':
        f.burst = num(arg, value(), true);
        break;
      case '--json':
        f.json = true;
        break;
      case '--no-discovery-cache':
        f.noDiscoveryCache = true;
        break;
      case '--disable-compression':
        f.disableCompression = true;
        break;
      case '--no-protobuf':
        f.noProtobuf = true;
        break;
      case '--compression': {
        const mode = value();
        if (mode !== 'auto' && mode !== 'always' && mode !== 'never') throw new UsageError(`--compression must be auto, always or never, got "${mode}"`);
        f.disableCompression = mode === 'auto' ? undefined : mode === 'never';
        break;
      }
      case '-h':
      case '--help':
        f.help = true;
        break;
      default:
        throw new UsageError(`unknown flag "${argv[i]}"`);
    }
  }
  if (f.allContexts && f.contexts.length > 0) throw new UsageError('--all-contexts and --context: give one or the other');
  if (f.lanes !== undefined && (f.lanes < 1 || f.lanes > MAX_CONCURRENCY)) throw new UsageError(`--lanes: must be 1..${MAX_CONCURRENCY}, got ${f.lanes}`);
  if (f.reachTimeoutSeconds !== undefined && !(f.reachTimeoutSeconds > 0))
    throw new UsageError(`--reach-timeout: must be > 0 seconds, got ${f.reachTimeoutSeconds}`);
  if (f.timeoutSeconds !== undefined && f.timeoutSeconds < 0) throw new UsageError(`--timeout: must be >= 0 seconds, got ${f.timeoutSeconds}`);
  if (f.qps !== undefined && f.qps < 0) throw new UsageError(`--qps: must be >= 0 (0 = no limit), got ${f.qps}`);
  if (f.burst !== undefined && f.burst < 1) throw new UsageError(`--burst: must be an integer >= 1, got ${f.burst}`);
  return f;
}

const typeName = (r: LoadTaskResult) => (r.task.gvr.group ? `${r.task.gvr.resource}.${r.task.gvr.group}` : r.task.gvr.resource);

/** The `--json` document. */
/**
 * `wire`: the transport's counters (TransportStats) and whether discovery came from the disk cache.
 * `transport` in the output: body bytes as received (wireBytes, compressed where gzip) and decoded
 * (bytesReceived), gzip answers, requests; for comparing with other clients over a slow link.
 */
export function toJson(
  ctx: KubeContext,
  loader: Pick<ClusterLoader, 'options'>,
  summary: LoadSummary,
  results: LoadTaskResult[],
  plan?: LoadPlan,
  wire?: { stats: TransportStats; discoveryCached: boolean; proxied: boolean },
) {
  const o = loader.options;
  const sorted = [...results].sort((a, b) => a.taskId - b.taskId);
  return {
    context: ctx.name,
    server: ctx.server,
    concurrency: summary.concurrency ?? o.concurrency,
    // Set when --concurrency was not given: the measured RTT (ms) and the lanes chosen from it.
    concurrencyAuto: summary.concurrencyAuto ?? null,
    pageSize: o.pageSize,
    metadataOnly: o.metadataOnly,
    transfer: typeof o.transfer === 'function' ? 'auto' : o.transfer,
    namespaces: o.namespaces,
    selector: o.labelSelector ?? null,
    outcome: summary.outcome,
    durationMs: Math.round(summary.durationMs),
    resourceTypes: summary.resourceTypes,
    tasks: summary.tasks,
    results: summary.results,
    objects: summary.objects,
    partialObjects: summary.partialObjects,
    cancelled: summary.cancelled,
    requests: summary.requests ?? null,
    retries: summary.retries,
    discoveryMode: summary.discoveryMode ?? null,
    discoveryFailures: summary.discoveryFailures,
    contextNamespace: o.contextNamespace ?? ctx.namespace ?? null,
    fallbackNamespaces: plan?.fallbackNamespaces ?? [],
    forbidden: summary.forbidden,
    // Counted: requests, bytes, 429s; estimated: seats (core/loader/loadCost.ts); null before a plan.
    apiCost: summary.apiCost ?? null,
    discoveryCached: wire?.discoveryCached ?? false,
    transport: wire
      ? {
          requests: wire.stats.requests,
          wireBytes: wire.stats.wireBytes,
          bytesReceived: wire.stats.bytesReceived,
          gzipResponses: wire.stats.gzipResponses,
          streamedPages: wire.stats.streamedPages,
          proxied: wire.proxied,
          rttMs: wire.stats.rttMs === undefined ? null : Math.round(wire.stats.rttMs * 10) / 10,
        }
      : null,
    skipped: summary.skippedTypes,
    failed: sorted
      .filter((r) => r.outcome === 'error')
      .map((r) => ({
        ...r.task.gvr,
        namespace: r.task.namespace ?? null,
        status: r.status ?? null,
        reason: r.reason ?? null,
        message: r.message ?? '',
        ...(r.forbidden ? { forbidden: r.forbidden } : {}),
      })),
    types: sorted
      .filter((r) => r.outcome !== 'cancelled' || r.worker >= 0)
      .map((r) => ({
        ...r.task.gvr,
        namespaced: r.task.namespaced,
        namespace: r.task.namespace ?? null,
        outcome: r.outcome,
        count: r.count,
        pages: r.pages,
        retries: r.retries,
        durationMs: Math.round(r.durationMs),
        worker: r.worker,
      })),
  };
}

export function table(results: LoadTaskResult[]): string {
  const rows = [...results]
    .filter((r) => r.outcome !== 'cancelled' || r.worker >= 0)
    .sort((a, b) => typeName(a).localeCompare(typeName(b)) || (a.task.namespace ?? '').localeCompare(b.task.namespace ?? ''))
    .map((r) => [
      typeName(r),
      r.task.gvr.version,
      r.task.namespaced ? (r.task.namespace ?? '*') : '-',
      String(r.count),
      String(r.pages),
      String(r.retries),
      `${(r.durationMs / 1000).toFixed(2)}s`,
      r.worker >= 0 ? String(r.worker) : '-',
      r.outcome === 'ok'
        ? 'ok'
        : r.outcome === 'cancelled'
          ? 'cancelled'
          : r.forbidden
            ? 'forbidden'
            : `${r.status ?? r.reason ?? 'error'} ${r.status ? (r.reason ?? '') : ''}`.trim(),
    ]);
  const head = ['TYPE', 'VERSION', 'NAMESPACE', 'COUNT', 'PAGES', 'RETRIES', 'DURATION', 'WORKER', 'STATUS'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const right = new Set([3, 4, 5, 6, 7]);
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [fmt(head), ...rows.map(fmt)].join('\n') + '\n';
}

/** "16 workers (auto: RTT 100 ms)", "4 workers". */
function workers(s: LoadSummary, o: ClusterLoader['options']): string {
  const n = `${s.concurrency ?? o.concurrency} workers`;
  const a = s.concurrencyAuto;
  return a ? `${n} (auto: ${a.rttMs === null ? 'no RTT measured' : `RTT ${a.rttMs} ms`})` : n;
}

export function summaryLine(s: LoadSummary, o: ClusterLoader['options']): string {
  const what = `${formatCount(s.objects)} objects of ${s.ok} task(s) over ${s.resourceTypes} types${s.forbidden ? ` (${s.forbidden} forbidden)` : ''}`;
  const tail = `${(s.durationMs / 1000).toFixed(2)} s, ${workers(s, o)}, page size ${o.pageSize}${o.metadataOnly ? ', metadata only' : o.transfer !== 'full' ? `, transfer ${typeof o.transfer === 'function' ? 'auto' : o.transfer}` : ''}; ${s.requests ?? '?'} requests, ${s.retries} retries`;
  switch (s.outcome) {
    case 'ok':
      return `Loaded ${what} in ${tail}.\n`;
    case 'partial':
      return `Loaded ${what}; ${s.failed} task(s) FAILED, in ${tail}.\n`;
    case 'cancelled':
      return `Interrupted: loaded ${what} before the cancel; ${s.cancelled} task(s) cancelled${s.failed ? `, ${s.failed} failed` : ''}; ${tail}.\n`;
    default:
      return `Failed: ${tail}.\n`;
  }
}

/**
 * Every type was forbidden: say who (the server's SelfSubjectReview, else the kubeconfig's user),
 * where, and what they may not do, so the user knows which binding to ask for.
 */
async function noRightsMessage(client: KubeClient, ctx: KubeContext, namespaces: string[], signal?: AbortSignal): Promise<string> {
  const user = (await client.whoAmI({ signal }).catch(() => undefined)) ?? ctx.user?.name ?? 'anonymous';
  return `kubeloop load: ${noRightsText({ user, context: ctx.name, server: ctx.server }, namespaces)}`;
}

function fatal(io: LoadIO, msg: string): number {
  io.stderr.write(`kubeloop load: ${msg}\n`);
  return 1;
}

export async function runLoad(argv: string[], io: LoadIO): Promise<number> {
  // An object cut for nesting too deep (core/kube/objects/depth.ts) is still loaded: said once per object.
  const offDepth = depthNotices.subscribe((m) => io.stderr.write(`warning: ${m}\n`));
  try {
    return await load(argv, { ...io, stdout: cliWriter(io.stdout), stderr: cliWriter(io.stderr) });
  } finally {
    offDepth();
    discardPrestartedIoThread(); // a thread the launcher started and this run never took
  }
}

async function load(argv: string[], io: LoadIO): Promise<number> {
  let flags: LoadFlags;
  try {
    flags = parseLoadFlags(argv);
  } catch (e) {
    return fatal(io, `${(e as Error).message}\n\n${LOAD_USAGE}`);
  }
  if (flags.help) {
    io.stdout.write(LOAD_USAGE + '\n');
    return 0;
  }
  if (flags.allContexts || flags.contexts.length > 1) return loadMany(flags, io);
  let ctx: KubeContext;
  let loader: ClusterLoader;
  let client: KubeClient;
  try {
    ctx = loadKubeContext({ kubeconfig: flags.kubeconfig, context: flags.context });
    const withheld = credentialsWithheld(ctx);
    if (withheld) io.stderr.write(`warning: ${withheld}\n`);
    // A metadata-only load parses on this thread alone (list.ts): no I/O thread to start.
    client = await KubeClient.connect(ctx, {
      qps: flags.qps,
      burst: flags.burst,
      requestTimeoutMs: flags.requestTimeoutMs,
      ioThread: wantsIoThread(flags),
      discoveryCache: !flags.noDiscoveryCache,
      disableCompression: flags.disableCompression,
      ...(flags.noProtobuf ? { protobuf: false } : {}),
    });
  } catch (e) {
    return fatal(io, e instanceof KubeConfigError ? e.message : `cannot set up a client: ${(e as Error).message}`);
  }
  try {
    try {
      loader = new ClusterLoader(client, { ...loaderOptions(flags), contextNamespace: ctx.namespace });
    } catch (e) {
      return fatal(io, (e as Error).message);
    }
    const { summary, results, plan } = await loader.load(io.signal);
    if (summary.outcome === 'failed') {
      const err = summary.error as Error;
      return fatal(io, `cannot load from ${redactUrl(ctx.server)} (context "${ctx.name}"): ${err?.message ?? String(err)}`);
    }
    for (const u of summary.unmatchedFilters) io.stderr.write(`warning: --include/--exclude "${u}" matches no resource type\n`);
    for (const s of summary.skippedTypes) io.stderr.write(`note: not loading ${s.group ? `${s.resource}.${s.group}` : s.resource}: ${s.reason}\n`);
    for (const f of summary.discoveryFailures)
      io.stderr.write(`warning: discovery of ${f.groupVersion} failed${f.status ? ` (${f.status})` : ''}: ${f.message}\n`);
    if (flags.json) {
      const wire = { stats: client.transport.stats, discoveryCached: plan?.discovery.cachedAgeMs !== undefined, proxied: !!client.transport.proxy };
      io.stdout.write(JSON.stringify(toJson(ctx, loader, summary, results, plan, wire)) + '\n');
    } else {
      io.stdout.write(table(results));
      for (const r of results.filter((x) => x.outcome === 'error').sort((a, b) => a.taskId - b.taskId)) {
        io.stderr.write(
          `${r.forbidden ? 'forbidden' : 'failed'}: ${typeName(r)}${r.task.namespace ? ` in ${r.task.namespace}` : ''}: ${r.status ? `${r.status} ${r.reason}: ` : ''}${r.message}\n`,
        );
      }
      io.stdout.write(summaryLine(summary, loader.options));
      if (summary.apiCost) io.stdout.write(`${apiCostLine(summary.apiCost)}\n`);
    }
    if (nothingPermitted(summary)) {
      io.stderr.write(
        `${await noRightsMessage(client, ctx, plan?.fallbackNamespaces.length ? plan.fallbackNamespaces : loader.options.namespaces, io.signal)}\n`,
      );
    }
    return summary.outcome === 'cancelled' ? 130 : summary.outcome === 'partial' ? 2 : 0;
  } finally {
    client.close();
  }
}

/** Entry for the dispatcher: real stdio, Ctrl-C cancels (a second Ctrl-C exits at once). */
export async function runLoadCommand(argv: string[]): Promise<number> {
  const ac = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    process.stderr.write('\ninterrupted: cancelling in-flight requests (Ctrl-C again to quit now)\n');
    ac.abort(new Error('interrupted by Ctrl-C'));
  };
  process.on('SIGINT', onSigint);
  try {
    return await runLoad(argv, { stdout: process.stdout, stderr: process.stderr, signal: ac.signal });
  } finally {
    process.off('SIGINT', onSigint);
  }
}
