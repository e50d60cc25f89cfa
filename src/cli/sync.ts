/**
 * `kubeloop sync`: runs the sync loop headless against a cluster, printing what every iteration did.
 *
 *   kubeloop sync [--kubeconfig FILE] [--context NAME] [--namespace NS]... [--node NAME]
 *                 [--consistency-period SECONDS] [--duration SECONDS] [--request-timeout DURATION] [--json] [--workers]
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
 * --watch TYPE (resource or resource.group, found by discovery) adds a type to the watched ones.
 * --record FILE writes a flight recording (core/recorder) of every watch delta and timeline event,
 * flushed every second; it is closed cleanly when the run ends.
 */
import { parseArgs } from 'node:util';
import { realClock, type Clock } from '../core/clock';
import { credentialsWithheld } from '../core/kube/transport/auth';
import { KubeClient } from '../core/kube/client';
import { depthNotices } from '../core/kube/objects/depth';
import { ClusterSync } from '../core/syncloop/sources/cluster';
import type { SyncIterationEvent } from '../core/timeline/events';
import { TimelineStore } from '../core/timeline/store';
import { startRecording, type RecordingSession } from '../core/recorder/session';
import type { WatchedType } from '../core/syncloop/sources/watchscope';
import { compare, type LoopIteration } from '../core/kubeletlog/compare';
import { followKubeletLog } from '../core/kubeletlog/follow';
import { kubeletLineEvent } from '../core/kubeletlog/lane';
import type { KubeletRecord } from '../core/kubeletlog/records';
import { formatAlignments, formatComparison } from '../core/kubeletlog/report';
import { cliWriter } from './terminal';
import { parseRequestTimeout } from './requestTimeout';

/** After the sources are ready, how long until the differential starts (the first list's ADDs and the PLEG's first relist are over). */
const COMPARE_SETTLE_MS = 2000;

export interface SyncIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /** Where stdout / stderr is a terminal: runSync then shows control characters of server text (terminal.ts). */
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  /** Ends the run early (the process's SIGINT/SIGTERM when not given). */
  signal?: AbortSignal;
  clock?: Clock;
}

const HELP = `usage: kubeloop sync [flags]

  --kubeconfig FILE     kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        context to use (default: the current context)
  --namespace NS, -n NS watch namespace NS; repeatable (default: all namespaces)
  --node NAME           only pods bound to node NAME, as that node's kubelet sees them (default: all nodes)
  --consistency-period SECONDS
                        how often pods are listed again from the watch cache to catch missed
                        watch events (default: 300)
  --duration SECONDS    stop after this long (default: until Ctrl-C)
  --request-timeout D   deadline of one server request, its whole answer included (kubectl's flag):
                        seconds, or a duration such as 30s, 1m; 0 = none (default 0). Not watches:
                        they are long-running (each ends within 10 min and is resumed)
  --json                one JSON object per iteration: at, t, source, op, key, handler, durationMs, outcome
                        (and message, node, uid, data, inferred when known)
  --workers             with --json, also the pod workers' syncs (source "podworker")
  --kubelet-log FILE    follow a real kubelet's -v=4 log (a node this machine runs, e.g. the lab's)
                        and print its lines beside KubeLoop's iterations; needs --node (default: the
                        log the context's kubeloop.dev/kubelet-logs extension names for the node,
                        as the lab's kubeconfig does)
  --compare             with the kubelet's log: at the end, the differential of the two (matched in
                        order, iterations without a counterpart, lag)
  --watch TYPE          also watch TYPE (e.g. configmaps, secrets, deployments.apps); repeatable
  --record FILE         write a flight recording to FILE: every watch delta, Event and timeline
                        event, with keyframes; flushed every second (read it with kubeloop export)
  --record-max-mb N     bound of the recording's files together (default 1024)
  --record-max-hours H  history the recording keeps (default 24)
  --record-keyframe-seconds S
                        a keyframe at most this often while things change (default 600; see docs/recorder.md)
`;

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

export function processIo(): SyncIo {
  return {
    stdout: (l) => process.stdout.write(`${l}\n`),
    stderr: (l) => process.stderr.write(`${l}\n`),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

/** Every line through cliWriter (terminal.ts), as the streams behind `io` are terminals or not. */
function safeIo(io: SyncIo): SyncIo {
  const out = cliWriter({ write: (l: string) => io.stdout(l), isTTY: io.stdoutIsTTY });
  const err = cliWriter({ write: (l: string) => io.stderr(l), isTTY: io.stderrIsTTY });
  return { ...io, stdout: (l) => out.write(l), stderr: (l) => err.write(l) };
}

export async function runSync(argv: string[], raw: SyncIo = processIo()): Promise<number> {
  const io = safeIo(raw);
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n', multiple: true },
        node: { type: 'string' },
        'consistency-period': { type: 'string' },
        duration: { type: 'string' },
        'request-timeout': { type: 'string' },
        json: { type: 'boolean' },
        workers: { type: 'boolean' },
        'kubelet-log': { type: 'string' },
        compare: { type: 'boolean' },
        watch: { type: 'string', multiple: true },
        record: { type: 'string' },
        'record-max-mb': { type: 'string' },
        'record-max-hours': { type: 'string' },
        'record-keyframe-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    io.stderr(`kubeloop sync: ${(e as Error).message}\n\n${HELP}`);
    return 1;
  }
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  let durationMs: number | undefined;
  if (values.duration !== undefined) {
    const s = Number(values.duration);
    if (!Number.isFinite(s) || s <= 0) {
      io.stderr(`kubeloop sync: --duration must be a positive number of seconds, got "${values.duration}"`);
      return 1;
    }
    durationMs = s * 1000;
  }
  let requestTimeoutMs: number | undefined;
  try {
    if (values['request-timeout'] !== undefined) requestTimeoutMs = parseRequestTimeout(values['request-timeout']);
  } catch (e) {
    io.stderr(`kubeloop sync: ${(e as Error).message}`);
    return 1;
  }
  let consistencyPeriodMs: number | undefined;
  if (values['consistency-period'] !== undefined) {
    const s = Number(values['consistency-period']);
    if (!Number.isFinite(s) || s <= 0) {
      io.stderr(`kubeloop sync: --consistency-period must be a positive number of seconds, got "${values['consistency-period']}"`);
      return 1;
    }
    consistencyPeriodMs = s * 1000;
  }
  const node = values.node;
  let kubeletLog = values['kubelet-log'];
  if (kubeletLog !== undefined && node === undefined) {
    io.stderr('kubeloop sync: --kubelet-log needs --node NAME (the node whose kubelet writes that log)');
    return 1;
  }

  // A DNS-1123 subdomain, as node names are; anything else would only be a confusing field selector.
  if (node !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(node)) {
    io.stderr(`kubeloop sync: --node must be a node name (lower-case letters, digits, '-' and '.'), got "${node}"`);
    return 1;
  }

  const bound = (name: 'record-max-mb' | 'record-max-hours' | 'record-keyframe-seconds', scale: number): number | undefined => {
    const v = values[name];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${v}"`);
    return n * scale;
  };
  let maxBytes: number | undefined;
  let maxAgeMs: number | undefined;
  let keyframeEveryMs: number | undefined;
  try {
    keyframeEveryMs = bound('record-keyframe-seconds', 1000);
    maxBytes = bound('record-max-mb', 1024 * 1024);
    maxAgeMs = bound('record-max-hours', 3600_000);
  } catch (e) {
    io.stderr(`kubeloop sync: ${(e as Error).message}`);
    return 1;
  }
  if ((maxBytes !== undefined || maxAgeMs !== undefined || keyframeEveryMs !== undefined) && !values.record) {
    io.stderr('kubeloop sync: --record-max-mb, --record-max-hours and --record-keyframe-seconds need --record FILE');
    return 1;
  }

  let client: KubeClient;
  try {
    client = await KubeClient.fromKubeconfig(
      {
        ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
        ...(values.context ? { context: values.context } : {}),
      },
      { requestTimeoutMs },
    );
  } catch (e) {
    io.stderr(`kubeloop sync: ${(e as Error).message}`);
    return 1;
  }
  const withheld = credentialsWithheld(client.context);
  if (withheld) io.stderr(`kubeloop sync: warning: ${withheld}`);

  // The lab's kubeconfig says where its nodes' kubelet logs are (KubeContext.kubeletLogs).
  if (kubeletLog === undefined && node !== undefined) kubeletLog = client.context.kubeletLogs?.[node];
  if (values.compare && kubeletLog === undefined) {
    io.stderr(
      `kubeloop sync: --compare needs the kubelet's log: --kubelet-log FILE (the context "${client.context.name}" names none for node "${node ?? ''}")`,
    );
    client.close();
    return 1;
  }

  let types: WatchedType[] = [];
  if (values.watch?.length) {
    try {
      types = await resolveTypes(client, values.watch);
    } catch (e) {
      io.stderr(`kubeloop sync: ${(e as Error).message}`);
      client.close();
      return 1;
    }
  }

  const clock = io.clock ?? realClock;
  const json = !!values.json;
  const timeline = new TimelineStore(10_000);
  // Timeline times count from here; `at` (and the kubelet's log) are wall-clock times.
  const origin = clock.now();
  const wallOrigin = Date.now();
  const seen: LoopIteration[] = [];
  // When every source had listed (housekeeping's first pass): the differential starts a little later,
  // once the first list's ADDs and the PLEG's first relist (the pods that ran before we looked) are over.
  let readyAt: number | undefined;
  timeline.subscribe((e) => {
    if (e.kind !== 'iteration') return;
    if (readyAt === undefined && e.source === 'housekeeping' && e.outcome !== 'skipped') readyAt = wallOrigin + e.t;
    if (values.compare) seen.push(loopIteration(e, wallOrigin));
    // Loop iterations; the pod workers' own marks only when asked for (they are the timeline's, not the loop's).
    if (json && (e.source !== 'podworker' || values.workers)) io.stdout(iterationJson(e, wallOrigin));
  });
  const stop = new AbortController();
  const recordingLife = new AbortController();
  let recording: RecordingSession | undefined;
  if (values.record) {
    try {
      recording = await startRecording(
        {
          path: values.record,
          context: client.context.name,
          server: client.server,
          timeline,
          clock,
          ...(maxBytes !== undefined ? { maxBytes } : {}),
          ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
          ...(keyframeEveryMs !== undefined ? { keyframeEveryMs } : {}),
          onError: (e) => io.stderr(`kubeloop sync: recording stopped: ${e.message}`),
        },
        recordingLife.signal,
      );
    } catch (e) {
      io.stderr(`kubeloop sync: cannot record to ${values.record}: ${(e as Error).message}`);
      client.close();
      return 1;
    }
  }
  let podsForbidden: string | undefined;
  const forbiddenPods: string[] = [];
  const sync = new ClusterSync({
    client,
    reviewer: client,
    ...(client.context.namespace ? { contextNamespace: client.context.namespace } : {}),
    onForbidden: (f) => {
      if (f.gvr.group !== '' || f.gvr.resource !== 'pods') return;
      forbiddenPods.push(f.message);
      if (forbiddenPods.length < (values.namespace?.length || 1)) return;
      // No pods source left: nothing to sync. End now, saying so, rather than show an empty loop.
      podsForbidden = forbiddenPods.join('; ');
      stop.abort(new Error('pods are forbidden'));
    },
    clock,
    timeline,
    origin,
    // --request-timeout bounds each request; a LIST or watch-list making no progress for as long is given up too
    ...(requestTimeoutMs ? { listProgressTimeoutMs: requestTimeoutMs } : {}),
    ...(values.namespace?.length ? { namespaces: values.namespace } : {}),
    ...(node ? { node } : {}),
    ...(consistencyPeriodMs !== undefined ? { consistencyPeriodMs } : {}),
    ...(types.length ? { types } : {}),
    ...(recording ? { observer: recording.recorder } : {}),
    logger: { info: (l) => (json ? undefined : io.stdout(l)), warn: (l) => io.stderr(`W ${l}`), error: (l) => io.stderr(l) },
  });

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
  const kubelet: KubeletRecord[] = [];
  const following =
    kubeletLog !== undefined && node !== undefined
      ? followKubeletLog(
          {
            path: kubeletLog,
            clock,
            onRecords: (records) => {
              for (const r of records) {
                if (values.compare) kubelet.push(r);
                timeline.append(kubeletLineEvent(r, node, wallOrigin));
                io.stdout(json ? kubeletJson(r, node) : `kubelet ${node}: ${r.raw}`);
              }
            },
            onError: (e) => io.stderr(`kubeloop sync: --kubelet-log ${kubeletLog}: ${e.message} (still trying)`),
          },
          stop.signal,
        )
      : undefined;
  // An object cut for nesting too deep (core/kube/objects/depth.ts) is still synced and recorded: said once per object.
  const offDepth = depthNotices.subscribe((m) => io.stderr(`kubeloop sync: warning: ${m}`));
  try {
    await sync.run(stop.signal);
  } finally {
    offDepth();
    timer?.cancel();
    external?.removeEventListener('abort', onSignal);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    client.close();
    recordingLife.abort();
    await following;
    await recording?.done;
  }
  if (values.compare && node !== undefined) {
    const from = (readyAt ?? Date.now()) + COMPARE_SETTLE_MS;
    const c = compare(kubelet, seen, { from });
    if (json) io.stdout(JSON.stringify({ comparison: { node, from: new Date(from).toISOString(), ...c } }));
    else {
      const title = `Differential against the kubelet of node ${node}, from ${new Date(from).toISOString()} (the first list and relist left out)`;
      for (const l of [...formatComparison(c, title), '  pods where the two disagree (kubelet | KubeLoop, "=" a matched pair):', ...formatAlignments(c, true)])
        io.stdout(l);
    }
  }
  if (podsForbidden !== undefined) {
    const ctx = client.context;
    io.stderr(
      `kubeloop sync: the user of context "${ctx.name}" may not list and watch pods in the namespaces the loop looks at, so there is nothing to sync: ${podsForbidden}. Ask for a Role (namespace) or ClusterRole with get/list/watch on pods, or choose another context or --namespace.`,
    );
    return 3;
  }
  if (!sync.allSourcesReady()) {
    io.stderr('kubeloop sync: the sources never listed (API server unreachable or forbidden)');
    return 2;
  }
  return 0;
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
