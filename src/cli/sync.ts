/**
 * `kubeloop sync`: runs the sync loop headless against a cluster, printing what every iteration did.
 *
 *   kubeloop sync [--kubeconfig FILE] [--context NAME] [--namespace NS]... [--node NAME]
 *                 [--consistency-period SECONDS] [--duration SECONDS] [--request-timeout DURATION] [--no-protobuf] [--json] [--workers]
 *                 [--freshness [--freshness-period DURATION]]
 *                 [--kubelet-log FILE [--compare]]
 *                 [--watch TYPE]... [--record FILE [--record-max-mb N] [--record-max-hours H]]
 *
 * Without --json: the handler log lines, as the kubelet prints them at -v=4 (errors on stderr,
 * among them "PLEG is not healthy: ..." while the pods watches are down for over 3 minutes).
 * With --json: one JSON object per iteration, one per line: at (wall-clock ISO time), t (ms since
 * start), source, op, key, handler, durationMs, outcome, and when present message, node, uid, data
 * and inferred (--workers adds the pod workers' syncs, source "podworker"). --node scopes the pods to one
 * node (fieldSelector spec.nodeName). Runs until --duration elapses or Ctrl-C; exit 0 then, 1 when
 * the kubeconfig or flags are unusable, 2 when no source ever listed (the API server was not reached),
 * 3 when the user may not list and watch pods anywhere the loop looks (it ends at once, saying so).
 *
 * With no --namespace, each type is watched where the user's rights allow (one access review at
 * start, see core/syncloop/sources/watchscope.ts): across all namespaces, else in the context's
 * namespace; a type forbidden everywhere is named once on stderr and not watched.
 *
 * --kubelet-log FILE follows a real kubelet's -v=4 log as it grows (a node this machine runs, such
 * as the lab's): its lines in the loop's vocabulary, interleaved with KubeLoop's iterations (text:
 * "kubelet NODE: <line>"; JSON: objects with "kubelet": true). --compare ends the run with the
 * differential (core/kubeletlog/compare.ts): per class, the kubelet's lines KubeLoop matched in
 * order, KubeLoop's iterations without a counterpart (inferred or not), and the lag.
 *
 * --freshness (freshness.ts): per watched type, is it current; a table every --freshness-period and at
 * exit, with the run's API cost; a line (a {"freshness"} record with --json) per change of a type's state.
 *
 * --watch TYPE (resource or resource.group, found by discovery) adds a type to the watched ones.
 * --record FILE writes a flight recording (core/recorder) of every watch delta and timeline event,
 * flushed every second; it is closed cleanly when the run ends.
 */
import { realClock, type Clock } from '../core/clock';
import { credentialsWithheld } from '../core/kube/transport/auth';
import { KubeClient } from '../core/kube/client';
import { depthNotices } from '../core/kube/objects/depth';
import { ClusterSync, type ClusterSyncOptions } from '../core/syncloop/sources/cluster';
import type { SyncIterationEvent } from '../core/timeline/events';
import { TimelineStore } from '../core/timeline/store';
import { startRecording, type RecordingSession } from '../core/recorder/session';
import type { WatchedType } from '../core/syncloop/sources/watchscope';
import { compare, type LoopIteration } from '../core/kubeletlog/compare';
import { followKubeletLog } from '../core/kubeletlog/follow';
import { kubeletLineEvent } from '../core/kubeletlog/lane';
import type { KubeletRecord } from '../core/kubeletlog/records';
import { formatAlignments, formatComparison } from '../core/kubeletlog/report';
import { processIo, safeIo, type LineIo } from './lineIo';
import { parseSyncArgs, SYNC_HELP, type SyncFlags } from './syncArgs';
import { reportFreshness } from './freshness';

/** After the sources are ready, how long until the differential starts (the first list's ADDs and the PLEG's first relist are over). */
const COMPARE_SETTLE_MS = 2000;

/** How runSync prints (lineIo.ts). */
export type SyncIo = LineIo;

/** One loop iteration as `kubeloop sync --json` prints it (one line, no newline); `wallOrigin`: the wall-clock ms of t = 0. */
export function iterationJson(it: SyncIterationEvent, wallOrigin?: number): string {
  return JSON.stringify({
    ...(wallOrigin !== undefined ? { at: new Date(wallOrigin + it.t).toISOString() } : {}),
    t: it.t,
    source: it.source,
    op: it.op,
    key: it.key,
    handler: it.handler,
    durationMs: it.durationMs,
    outcome: it.outcome,
    ...(it.message ? { message: it.message } : {}),
    ...(it.node ? { node: it.node } : {}),
    ...(it.uid ? { uid: it.uid } : {}),
    ...(it.data ? { data: it.data } : {}),
    ...(it.inferred ? { inferred: true } : {}),
  });
}

export async function runSync(argv: string[], raw: SyncIo = processIo()): Promise<number> {
  const io = safeIo(raw);
  const flags = parseSyncArgs(argv);
  if (flags === 'help') {
    io.stdout(SYNC_HELP);
    return 0;
  }
  if ('error' in flags) {
    io.stderr(`kubeloop sync: ${flags.error}${flags.withHelp ? `\n\n${SYNC_HELP}` : ''}`);
    return 1;
  }
  const connected = await connect(flags, io);
  if ('error' in connected) {
    io.stderr(`kubeloop sync: ${connected.error}`);
    return 1;
  }
  return runConnected(flags, connected, io);
}

/** What a run needs from the server before the loop starts. */
interface Connected {
  client: KubeClient;
  /** --kubelet-log, or the log the context names for --node. */
  kubeletLog: string | undefined;
  types: WatchedType[];
}

/** The client, the kubelet log to follow and the --watch types (by discovery); or why not (exit 1). */
async function connect(flags: SyncFlags, io: SyncIo): Promise<Connected | { error: string }> {
  let client: KubeClient;
  try {
    client = await KubeClient.fromKubeconfig(
      { ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) },
      { requestTimeoutMs: flags.requestTimeoutMs, ...(flags.noProtobuf ? { protobuf: false } : {}) },
    );
  } catch (e) {
    return { error: (e as Error).message };
  }
  const withheld = credentialsWithheld(client.context);
  if (withheld) io.stderr(`kubeloop sync: warning: ${withheld}`);
  // The lab's kubeconfig says where its nodes' kubelet logs are (KubeContext.kubeletLogs).
  const kubeletLog = flags.kubeletLog ?? (flags.node !== undefined ? client.context.kubeletLogs?.[flags.node] : undefined);
  if (flags.compare && kubeletLog === undefined) {
    client.close();
    return {
      error: `--compare needs the kubelet's log: --kubelet-log FILE (the context "${client.context.name}" names none for node "${flags.node ?? ''}")`,
    };
  }
  try {
    const types = flags.watch.length ? await resolveTypes(client, flags.watch) : [];
    return { client, kubeletLog, types };
  } catch (e) {
    client.close();
    return { error: (e as Error).message };
  }
}

/** The run itself, once connected: the loop until --duration, a signal, or pods forbidden; then the differential and the exit status. */
async function runConnected(flags: SyncFlags, { client, kubeletLog, types }: Connected, io: SyncIo): Promise<number> {
  const clock = io.clock ?? realClock;
  const timeline = new TimelineStore(10_000);
  // Timeline times count from here; `at` (and the kubelet's log) are wall-clock times.
  const origin = clock.now();
  const wallOrigin = Date.now();
  const seen = watchIterations(flags, timeline, wallOrigin, io);
  const recordingLife = new AbortController();
  let recording: RecordingSession | undefined;
  if (flags.record) {
    try {
      recording = await startRecording(
        {
          ...flags.record,
          context: client.context.name,
          server: client.server,
          timeline,
          clock,
          onError: (e) => io.stderr(`kubeloop sync: recording stopped: ${e.message}`),
        },
        recordingLife.signal,
      );
    } catch (e) {
      io.stderr(`kubeloop sync: cannot record to ${flags.record.path}: ${(e as Error).message}`);
      client.close();
      return 1;
    }
  }
  const stop = new AbortController();
  const podsForbidden: string[] = [];
  const sync = new ClusterSync({
    ...syncOptions(flags, client, types, io),
    onForbidden: (f) => {
      if (f.gvr.group !== '' || f.gvr.resource !== 'pods') return;
      podsForbidden.push(f.message);
      // No pods source left: nothing to sync. End now, saying so, rather than show an empty loop.
      if (podsForbidden.length >= (flags.namespaces.length || 1)) stop.abort(new Error('pods are forbidden'));
    },
    clock,
    timeline,
    origin,
    // who wrote each version, for `kubeloop writers --recording`
    ...(recording ? { observer: recording.recorder, compactManagers: true } : {}),
  });
  const freshness = flags.freshness
    ? reportFreshness({
        sync,
        timeline,
        clock,
        origin,
        wallOrigin,
        json: flags.json,
        periodMs: flags.freshness.periodMs,
        out: (l) => io.stdout(l),
        transport: client.transport,
      })
    : undefined;
  const release = stopWhen(stop, flags.durationMs, clock, io);
  const kubelet: KubeletRecord[] = [];
  const following =
    kubeletLog !== undefined && flags.node !== undefined
      ? follow(flags, kubeletLog, flags.node, { timeline, wallOrigin, clock, kubelet }, io, stop.signal)
      : undefined;
  // An object cut for nesting too deep (core/kube/objects/depth.ts) is still synced and recorded: said once per object.
  const offDepth = depthNotices.subscribe((m) => io.stderr(`kubeloop sync: warning: ${m}`));
  try {
    await sync.run(stop.signal);
  } finally {
    offDepth();
    release();
    await freshness?.end(); // its API cost may name the priority level: before the client closes
    client.close();
    recordingLife.abort();
    await following;
    await recording?.done;
  }
  if (flags.compare && flags.node !== undefined) printComparison(flags, flags.node, kubelet, seen, io);
  if (podsForbidden.length >= (flags.namespaces.length || 1)) {
    io.stderr(
      `kubeloop sync: the user of context "${client.context.name}" may not list and watch pods in the namespaces the loop looks at, so there is nothing to sync: ${podsForbidden.join('; ')}. Ask for a Role (namespace) or ClusterRole with get/list/watch on pods, or choose another context or --namespace.`,
    );
    return 3;
  }
  if (!sync.allSourcesReady()) {
    io.stderr('kubeloop sync: the sources never listed (API server unreachable or forbidden)');
    return 2;
  }
  return 0;
}

/** ClusterSync's options that follow from the flags alone: scope, rights, deadlines, the log. */
function syncOptions(flags: SyncFlags, client: KubeClient, types: WatchedType[], io: SyncIo): Omit<ClusterSyncOptions, 'clock'> {
  return {
    client,
    reviewer: client,
    ...(client.context.namespace ? { contextNamespace: client.context.namespace } : {}),
    // --request-timeout bounds each request; a LIST or watch-list making no progress for as long is given up too
    ...(flags.requestTimeoutMs ? { listProgressTimeoutMs: flags.requestTimeoutMs } : {}),
    ...(flags.namespaces.length ? { namespaces: flags.namespaces } : {}),
    ...(flags.node ? { node: flags.node } : {}),
    ...(flags.consistencyPeriodMs !== undefined ? { consistencyPeriodMs: flags.consistencyPeriodMs } : {}),
    ...(types.length ? { types } : {}),
    logger: { info: (l) => (flags.json ? undefined : io.stdout(l)), warn: (l) => io.stderr(`W ${l}`), error: (l) => io.stderr(l) },
  };
}

/**
 * Prints the iterations with --json and keeps them for --compare; `readyAt` is when every source had
 * listed (housekeeping's first pass): the differential starts a little later, once the first list's
 * ADDs and the PLEG's first relist (the pods that ran before we looked) are over.
 */
function watchIterations(flags: SyncFlags, timeline: TimelineStore, wallOrigin: number, io: SyncIo): { iterations: LoopIteration[]; readyAt?: number } {
  const seen: { iterations: LoopIteration[]; readyAt?: number } = { iterations: [] };
  timeline.subscribe((e) => {
    if (e.kind !== 'iteration') return;
    if (seen.readyAt === undefined && e.source === 'housekeeping' && e.outcome !== 'skipped') seen.readyAt = wallOrigin + e.t;
    if (flags.compare) seen.iterations.push(loopIteration(e, wallOrigin));
    // Loop iterations; the pod workers' own marks only when asked for (they are the timeline's, not the loop's).
    // Freshness marks never: they are the timeline's too, and a span's t is its start, out of the stream's time order
    // (--freshness prints a type's state per change instead).
    if (flags.json && e.source !== 'freshness' && (e.source !== 'podworker' || flags.workers)) io.stdout(iterationJson(e, wallOrigin));
  });
  return seen;
}

/** Aborts `stop` on SIGINT/SIGTERM (or io.signal) and after `durationMs`; returns what undoes that. */
function stopWhen(stop: AbortController, durationMs: number | undefined, clock: Clock, io: SyncIo): () => void {
  const onSignal = () => stop.abort(new Error('interrupted'));
  const external = io.signal;
  if (external) {
    if (external.aborted) stop.abort(external.reason);
    else external.addEventListener('abort', onSignal, { once: true });
  } else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  const timer = durationMs !== undefined ? clock.setTimer(durationMs, () => stop.abort(new Error('duration elapsed'))) : undefined;
  return () => {
    timer?.cancel();
    external?.removeEventListener('abort', onSignal);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}

/** Follows the kubelet's log: each line on the timeline and printed (kept for --compare); resolves when `signal` aborts. */
function follow(
  flags: SyncFlags,
  path: string,
  node: string,
  to: { timeline: TimelineStore; wallOrigin: number; clock: Clock; kubelet: KubeletRecord[] },
  io: SyncIo,
  signal: AbortSignal,
): Promise<void> {
  return followKubeletLog(
    {
      path,
      clock: to.clock,
      onRecords: (records) => {
        for (const r of records) {
          if (flags.compare) to.kubelet.push(r);
          to.timeline.append(kubeletLineEvent(r, node, to.wallOrigin));
          io.stdout(flags.json ? kubeletJson(r, node) : `kubelet ${node}: ${r.raw}`);
        }
      },
      onError: (e) => io.stderr(`kubeloop sync: --kubelet-log ${path}: ${e.message} (still trying)`),
    },
    signal,
  );
}

/** The differential against the kubelet's log, from COMPARE_SETTLE_MS after the sources were ready. */
function printComparison(flags: SyncFlags, node: string, kubelet: KubeletRecord[], seen: { iterations: LoopIteration[]; readyAt?: number }, io: SyncIo): void {
  const from = (seen.readyAt ?? Date.now()) + COMPARE_SETTLE_MS;
  const c = compare(kubelet, seen.iterations, { from });
  if (flags.json) {
    io.stdout(JSON.stringify({ comparison: { node, from: new Date(from).toISOString(), ...c } }));
    return;
  }
  const title = `Differential against the kubelet of node ${node}, from ${new Date(from).toISOString()} (the first list and relist left out)`;
  for (const l of [...formatComparison(c, title), '  pods where the two disagree (kubelet | KubeLoop, "=" a matched pair):', ...formatAlignments(c, true)])
    io.stdout(l);
}

/** An iteration with its wall-clock time, as the differential reads it. */
function loopIteration(e: SyncIterationEvent, wallOrigin: number): LoopIteration {
  return {
    at: wallOrigin + e.t,
    source: e.source,
    op: e.op,
    key: e.key,
    handler: e.handler,
    outcome: e.outcome,
    ...(e.uid ? { uid: e.uid } : {}),
    ...(e.inferred ? { inferred: true } : {}),
    ...(e.data ? { data: e.data } : {}),
    ...(e.message ? { message: e.message } : {}),
  };
}

/** A kubelet record as `--json` prints it. */
function kubeletJson(r: KubeletRecord, node: string): string {
  const { raw, at, ...rest } = r;
  return JSON.stringify({ kubelet: true, node, at: new Date(at).toISOString(), ...rest, line: raw });
}

/** TYPE (resource or resource.group, as kubectl spells it) -> the watched type, by discovery. */
async function resolveTypes(client: KubeClient, names: string[]): Promise<WatchedType[]> {
  const d = await client.discover({});
  const out: WatchedType[] = [];
  for (const name of names) {
    const dot = name.indexOf('.');
    const resource = dot < 0 ? name : name.slice(0, dot);
    const group = dot < 0 ? '' : name.slice(dot + 1);
    const g = d.groups.find((x) => x.name === group);
    const v = g?.versions.find((x) => x.version === g.preferredVersion) ?? g?.versions[0];
    const r = v?.resources.find((x) => x.resource === resource);
    if (!g || !v || !r)
      throw new Error(`--watch ${name}: the server has no such type (expected resource or resource.group, e.g. configmaps, deployments.apps)`);
    if (!r.verbs.includes('watch')) throw new Error(`--watch ${name}: the type cannot be watched`);
    out.push({ group, version: v.version, resource, namespaced: r.namespaced });
  }
  return out;
}
