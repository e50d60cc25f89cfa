/**
 * `kubeloop sync`: runs the sync loop headless against a cluster, printing what every iteration did.
 *
 *   kubeloop sync [--kubeconfig FILE] [--context NAME] [--namespace NS]... [--node NAME]
 *                 [--consistency-period SECONDS] [--duration SECONDS] [--json]
 *                 [--watch TYPE]... [--record FILE [--record-max-mb N] [--record-max-hours H]]
 *
 * Without --json: the handler log lines, as the kubelet prints them at -v=4 (errors on stderr,
 * among them "PLEG is not healthy: ..." while the pods watches are down for over 3 minutes).
 * With --json: one JSON object per iteration, one per line: t (ms since start), source, op, key,
 * handler, durationMs, outcome, and when present message and node. --node scopes the pods to one
 * node (fieldSelector spec.nodeName). Runs until --duration elapses or Ctrl-C; exit 0 then, 1 when
 * the kubeconfig or flags are unusable, 2 when no source ever listed (the API server was not reached),
 * 3 when the user may not list and watch pods anywhere the loop looks (it ends at once, saying so).
 *
 * With no --namespace, each type is watched where the user's rights allow (one access review at
 * start, see core/syncloop/sources/watchscope.ts): across all namespaces, else in the context's
 * namespace; a type forbidden everywhere is named once on stderr and not watched.
 *
 * --watch TYPE (resource or resource.group, found by discovery) adds a type to the watched ones.
 * --record FILE writes a flight recording (core/recorder) of every watch delta and timeline event,
 * flushed every second; it is closed cleanly when the run ends.
 */
import { parseArgs } from 'node:util';
import { realClock, type Clock } from '../core/clock';
import { KubeClient } from '../core/kube/client';
import { ClusterSync } from '../core/syncloop/sources/cluster';
import type { SyncIterationEvent } from '../core/timeline/events';
import { TimelineStore } from '../core/timeline/store';
import { startRecording, type RecordingSession } from '../core/recorder/session';
import type { WatchedType } from '../core/syncloop/sources/watchscope';

export interface SyncIo {
  stdout(line: string): void;
  stderr(line: string): void;
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
  --json                one JSON object per iteration: t, source, op, key, handler, durationMs, outcome
                        (and message, node, uid, inferred when known)
  --watch TYPE          also watch TYPE (e.g. configmaps, secrets, deployments.apps); repeatable
  --record FILE         write a flight recording to FILE: every watch delta, Event and timeline
                        event, with keyframes; flushed every second (read it with kubeloop export)
  --record-max-mb N     bound of the recording's files together (default 1024)
  --record-max-hours H  history the recording keeps (default 24)
  --record-keyframe-seconds S
                        a keyframe at most this often while things change (default 600; see README)
`;

/** One loop iteration as `kubeloop sync --json` prints it (one line, no newline). */
export function iterationJson(it: SyncIterationEvent): string {
  return JSON.stringify({
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
    ...(it.inferred ? { inferred: true } : {}),
  });
}

export function processIo(): SyncIo {
  return { stdout: (l) => process.stdout.write(`${l}\n`), stderr: (l) => process.stderr.write(`${l}\n`) };
}

export async function runSync(argv: string[], io: SyncIo = processIo()): Promise<number> {
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
        json: { type: 'boolean' },
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
    client = await KubeClient.fromKubeconfig({
      ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
      ...(values.context ? { context: values.context } : {}),
    });
  } catch (e) {
    io.stderr(`kubeloop sync: ${(e as Error).message}`);
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
  if (json) {
    timeline.subscribe((e) => {
      // Loop iterations only: the pod workers' own marks are the timeline's, not the loop's.
      if (e.kind !== 'iteration' || e.source === 'podworker') return;
      io.stdout(iterationJson(e));
    });
  }
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
  try {
    await sync.run(stop.signal);
  } finally {
    timer?.cancel();
    external?.removeEventListener('abort', onSignal);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    client.close();
    recordingLife.abort();
    await recording?.done;
  }
  if (podsForbidden !== undefined) {
    const ctx = client.context;
    io.stderr(
      `kubeloop sync: the user of context "${ctx.name}" may not list and watch pods in the namespaces the loop looks at, so there is nothing to sync: ${podsForbidden}. Ask for a Role (namespace) or ClusterRole with get/list/watch on pods, or choose another context or --namespace.`,
    );
    return 3;
  }
  if (!sync.kl.allSourcesReady()) {
    io.stderr('kubeloop sync: the sources never listed (API server unreachable or forbidden)');
    return 2;
  }
  return 0;
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
