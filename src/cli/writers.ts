/**
 * `kubeloop writers`: who is writing to the cluster, how fast, and who is fighting (core/writers),
 * from watches with the user's rights. Read-only.
 *
 *   kubeloop writers [--kubeconfig FILE] [--context NAME] [--namespace NS] [--seconds S] [--top K]
 *                    [--watch TYPE]... [--json] [--record FILE]
 *   kubeloop writers --recording FILE [--at T] [--top K] [--json]
 *
 * Every second: the top K writers per field manager (writes/s, no-op and unseen writes/s), kind,
 * namespace and object; a fight or a hot loop is printed as soon as it is found. --json: one
 * object per line, {"at", "t", "snapshot"} every second and {"at", "finding"} as found.
 * --record FILE writes what the watches deliver (managedFields in their recorded form) as a flight
 * recording; --recording FILE prints the same report from one (writersRecording.ts), every recorded
 * second, or once at --at T with the findings up to then.
 * Exit status: 0 at the end of --seconds or on Ctrl-C (or of the recording); 1 for a bad flag, a
 * kubeconfig or a recording that cannot be read; 3 when the user may watch none of the types.
 */
import { parseArgs } from 'node:util';
import { realClock, type Clock, type TimerHandle } from '../core/clock';
import { startRecording, type RecordingSession } from '../core/recorder/session';
import { KubeClient } from '../core/kube/client';
import { listableResources } from '../core/kube/discovery/parse';
import type { GroupVersionResource } from '../core/kube/objects/types';
import { watchWriters } from '../core/writers/source';
import { WriterStats, type Rate, type WriterFinding, type WritersSnapshot } from '../core/writers/stats';
import { processIo, safeIo, type LineIo } from './lineIo';
import { replayWriters } from './writersRecording';

const HELP = `usage: kubeloop writers [flags]

  --kubeconfig FILE     kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        context to use (default: the current context)
  --namespace NS, -n NS only writes in namespace NS (default: all namespaces, cluster-scoped types too)
  --seconds S           stop after S seconds (default: until Ctrl-C)
  --top K               show the K busiest of each (default 10)
  --watch TYPE          watch only TYPE (resource or resource.group, e.g. deployments.apps); repeatable
                        (default: every type that can be watched but events.events.k8s.io)
  --json                one JSON object per line: {"at","t","snapshot"} every second,
                        {"at","finding"} for a fight or a hot loop as it is found
  --record FILE         also write a flight recording of the watched changes (managers kept)
  --recording FILE      the report from a recording instead of the cluster, every recorded second
  --at T                with --recording: only the report at T (ISO time, +SECONDS, or HH:MM:SS)
`;

/** How runWriters prints (lineIo.ts). */
export type WritersIo = LineIo;

interface Flags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  seconds?: number;
  top: number;
  watch: string[];
  json: boolean;
  record?: string;
  recording?: string;
  at?: string;
}

function parseFlags(argv: string[]): Flags | 'help' | { error: string } {
  let v;
  try {
    v = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        seconds: { type: 'string' },
        top: { type: 'string' },
        watch: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        record: { type: 'string' },
        recording: { type: 'string' },
        at: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (v.help) return 'help';
  const num = (s: string | undefined, name: string, min: number): number | undefined | { error: string } => {
    if (s === undefined) return undefined;
    const n = Number(s);
    return Number.isFinite(n) && n >= min ? n : { error: `--${name} must be a number >= ${min}, got "${s}"` };
  };
  const seconds = num(v.seconds, 'seconds', 0);
  const top = num(v.top, 'top', 1);
  if (typeof seconds === 'object') return seconds;
  if (typeof top === 'object') return top;
  if (v.at !== undefined && !v.recording) return { error: '--at needs --recording FILE' };
  if (v.recording && (v.record || v.watch || v.namespace || v.seconds || v.kubeconfig || v.context))
    return { error: '--recording reads a recording: --record, --watch, --namespace, --seconds, --kubeconfig and --context do not apply' };
  return {
    ...(v.record ? { record: v.record } : {}),
    ...(v.recording ? { recording: v.recording } : {}),
    ...(v.at !== undefined ? { at: v.at } : {}),
    ...(v.kubeconfig ? { kubeconfig: v.kubeconfig } : {}),
    ...(v.context ? { context: v.context } : {}),
    ...(v.namespace ? { namespace: v.namespace } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    top: Math.floor(top ?? 10),
    watch: v.watch ?? [],
    json: v.json === true,
  };
}

export async function runWriters(argv: string[], raw: WritersIo = processIo()): Promise<number> {
  // Manager names and keys are the server's text: every line through cliWriter (lineIo.ts safeIo).
  const io = safeIo(raw);
  const out = (l: string) => io.stdout(l);
  const err = (l: string) => io.stderr(`kubeloop writers: ${l}`);
  const flags = parseFlags(argv);
  if (flags === 'help') {
    out(HELP);
    return 0;
  }
  if ('error' in flags) {
    err(`${flags.error}\n\n${HELP}`);
    return 1;
  }
  if (flags.recording) return writersFromRecording(flags, flags.recording, raw.signal ?? new AbortController().signal, out, err);
  let client: KubeClient;
  let types: (GroupVersionResource & { namespaced: boolean })[];
  try {
    client = await KubeClient.fromKubeconfig({
      ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
      ...(flags.context ? { context: flags.context } : {}),
    });
  } catch (e) {
    err((e as Error).message);
    return 1;
  }
  try {
    types = await watchedTypes(client, flags.watch);
  } catch (e) {
    client.close();
    err((e as Error).message);
    return 1;
  }
  const clock = raw.clock ?? realClock;
  const report = new Report(flags, clock, Date.now(), out);
  const stop = new AbortController();
  const release = stopOn(stop, flags.seconds, clock, raw.signal);
  const given = flags.namespace !== undefined ? types.filter((t) => t.namespaced).length : types.length;
  const refused = new Set<string>();
  report.tickEverySecond();
  const recordingLife = new AbortController();
  let recording: RecordingSession | undefined;
  if (flags.record) {
    try {
      recording = await startRecording(
        {
          path: flags.record,
          context: client.context.name,
          ...(client.context.cluster.server ? { server: client.context.cluster.server } : {}),
          onError: (e) => err(`recording stopped: ${e.message}`),
        },
        recordingLife.signal,
      );
    } catch (e) {
      report.stop();
      release();
      client.close();
      err(`cannot record to ${flags.record}: ${(e as Error).message}`);
      return 1;
    }
  }
  const rec = recording?.recorder;
  const observe: Pick<WriterStats, 'observe'> = rec
    ? {
        observe: (type, resource, obj) => {
          const seen = report.stats.observe(type, resource, obj);
          rec.apply(typeName(resource), resource, type, obj);
          return seen;
        },
      }
    : report.stats;
  try {
    await watchWriters(
      {
        client,
        types,
        ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
        stats: observe,
        clock,
        onError: (type, message, final) => {
          err(`${type}: ${message}${final ? ' (not watched)' : ' (retrying)'}`);
          if (!final) return;
          refused.add(type);
          if (refused.size >= given) stop.abort(new Error('nothing to watch'));
        },
      },
      stop.signal,
    );
  } finally {
    report.stop();
    release();
    client.close();
    recordingLife.abort();
    await recording?.done;
  }
  if (given === 0 || refused.size >= given) {
    err(`the user of context "${client.context.name}" may watch none of the types asked for`);
    return 3;
  }
  return 0;
}

/** The report from a recording (writersRecording.ts): every recorded second, or once at --at. */
async function writersFromRecording(flags: Flags, path: string, signal: AbortSignal, out: (l: string) => void, err: (l: string) => void): Promise<number> {
  let report: Report | undefined;
  const r = await replayWriters(
    path,
    flags.at,
    {
      stats: (clock) => (report = new Report(flags, clock, 0, out)).stats,
      started: (_clock, wallStart) => {
        report!.wallOrigin = wallStart;
        if (flags.at === undefined) report!.tickEverySecond();
      },
    },
    signal,
  );
  report?.stop();
  if ('error' in r) {
    err(r.error);
    return 1;
  }
  if (flags.at !== undefined) report!.print();
  return 0;
}

/** How a report prints: findings as found, a snapshot every second of `clock` (or when asked). */
class Report {
  readonly stats: WriterStats;
  private readonly origin: number;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly flags: Pick<Flags, 'json' | 'top'>,
    private readonly clock: Clock,
    /** Wall ms at the clock's `origin` (its time when made). */
    public wallOrigin: number,
    private readonly out: (l: string) => void,
  ) {
    this.origin = clock.now();
    this.stats = new WriterStats({
      clock,
      onFinding: (f) => out(flags.json ? JSON.stringify({ at: this.at(), finding: f }) : formatFinding(f)),
    });
  }

  private at(): string {
    return new Date(this.wallOrigin + this.clock.now() - this.origin).toISOString();
  }

  print(): void {
    const snap = this.stats.snapshot(this.flags.top);
    if (this.flags.json) this.out(JSON.stringify({ at: this.at(), t: Math.round(snap.t - this.origin), snapshot: snap }));
    else for (const l of formatSnapshot(snap, this.origin)) this.out(l);
  }

  tickEverySecond(): void {
    const tick = () => {
      this.print();
      this.timer = this.clock.setTimer(1000, tick);
    };
    this.timer = this.clock.setTimer(1000, tick);
  }

  stop(): void {
    this.timer?.cancel();
  }
}

const typeName = (r: { group: string; resource: string }) => (r.group ? `${r.resource}.${r.group}` : r.resource);

/** Every watchable type (or the --watch ones), each at its preferred version, by discovery. */
async function watchedTypes(client: KubeClient, names: string[]): Promise<(GroupVersionResource & { namespaced: boolean })[]> {
  const all = listableResources(await client.discover({})).filter((r) => r.verbs.includes('watch'));
  const name = (r: GroupVersionResource) => (r.group ? `${r.resource}.${r.group}` : r.resource);
  if (!names.length)
    return all.filter((r) => name(r) !== 'events.events.k8s.io').map(({ group, version, resource, namespaced }) => ({ group, version, resource, namespaced }));
  return names.map((n) => {
    const r = all.find((x) => name(x) === n);
    if (!r)
      throw new Error(`--watch ${n}: the server has no such type that can be watched (expected resource or resource.group, e.g. configmaps, deployments.apps)`);
    return { group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced };
  });
}

function stopOn(stop: AbortController, seconds: number | undefined, clock: Clock, external: AbortSignal | undefined): () => void {
  const onSignal = () => stop.abort(new Error('interrupted'));
  if (external) external.addEventListener('abort', onSignal, { once: true });
  else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  const timer = seconds !== undefined ? clock.setTimer(seconds * 1000, () => stop.abort(new Error('time is up'))) : undefined;
  return () => {
    timer?.cancel();
    external?.removeEventListener('abort', onSignal);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}

const rate = (n: number) => n.toFixed(1);
const list = (rs: Rate[]) => (rs.length ? rs.map((r) => `${r.key || '(cluster)'} ${rate(r.perSecond)}`).join(', ') : '-');

export function formatFinding(f: WriterFinding): string {
  if (f.kind === 'fight') return `FIGHT ${f.key} ${f.path}: ${f.managers[0]} <-> ${f.managers[1]} (${f.transfers} transfers, each taking the field back)`;
  return `HOT LOOP ${f.key} written by ${f.manager} at ${rate(f.perSecond)}/s`;
}

export function formatSnapshot(s: WritersSnapshot, origin: number): string[] {
  const lines = [`writers t=${Math.round((s.t - origin) / 1000)}s ${rate(s.perSecond)} writes/s`];
  lines.push(`  ${'MANAGER'.padEnd(40)} ${'WRITES/S'.padStart(9)} ${'NO-OP/S'.padStart(9)} ${'UNSEEN/S'.padStart(9)}`);
  for (const m of s.managers)
    lines.push(`  ${m.key.padEnd(40)} ${rate(m.perSecond).padStart(9)} ${rate(m.noopPerSecond).padStart(9)} ${rate(m.unseenPerSecond).padStart(9)}`);
  lines.push(`  kinds: ${list(s.kinds)}`, `  namespaces: ${list(s.namespaces)}`, `  objects: ${list(s.objects)}`);
  if (s.unseenObjects.length) lines.push(`  unseen (nothing the row shows changed): ${list(s.unseenObjects)}`);
  for (const f of s.fights) lines.push(`  fight: ${f.key} ${f.path}: ${f.managers[0]} <-> ${f.managers[1]} (${f.transfers} transfers)`);
  for (const h of s.hotLoops) lines.push(`  hot loop: ${h.key} by ${h.manager} at ${rate(h.perSecond)}/s`);
  return lines;
}
