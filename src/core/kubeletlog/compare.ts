/**
 * The differential: a real kubelet's log (records.ts) against KubeLoop's iterations for the same
 * node, pod by pod. The kubelet is the judge.
 *
 * Compared are the lines a workstation can observe through the API, each as a class:
 *   config ADD, UPDATE, DELETE, REMOVE, RECONCILE        (the pod's watch events)
 *   pleg ContainerStarted, ContainerDied                 (what the kubelet's status writes report)
 *   probe <probe> <status>                               (ready flags, started flags, restarts and Events)
 *   worker SyncTerminatingPod, SyncTerminatedPod         (the termination, seen as its status writes and the delete)
 * Not compared (a workstation cannot see them, and KubeLoop marks its own as its model): the sync
 * tick's resyncs, housekeeping, SyncPod spans, and probe results that the kubelet's loop takes
 * without a line (a liveness Success).
 *
 * For each pod incarnation (namespace/name and UID) the two sequences of classes are aligned by
 * their longest common subsequence: a kubelet line is matched when KubeLoop has the same class in
 * the same order. Lines that name no UID (config, probe) belong to the incarnation of their name
 * that the kubelet had started by then. Lag: KubeLoop's time minus the kubelet's, per matched pair.
 *
 * "The same order" is the order a workstation can observe, not the kubelet's log order:
 * - A PLEG event or probe result is seen only through the first status write that reports it (the
 *   kubelet's status writes are in its log, with the status written). Its place is just before the
 *   RECONCILE that echoes that write; it moves there when the write came after it (the kubelet's
 *   status often reports a container one write late), and stays when an earlier write already
 *   reported it (a teardown writes the stopped containers before its PLEG notices). A line no
 *   write ever reports (a container that lived between two writes, a sandbox no condition showed)
 *   is not observable: it is left out and listed (`unobservable`).
 * - The loop's iterations and the pod workers' syncs run in different goroutines of the kubelet:
 *   their order against each other is not the loop's, so the two are compared as two sequences.
 */
import type { KubeletRecord, StatusSummary } from './records';

/** One KubeLoop iteration, as `kubeloop sync --json` prints it (with its wall-clock time). */
export interface LoopIteration {
  /** Wall-clock ms since the epoch. */
  at: number;
  source: string;
  op: string;
  key: string;
  handler: string;
  outcome: string;
  uid?: string;
  inferred?: boolean;
  /** PLEG: the container; probe: the status ("unhealthy", "ready", ...). */
  data?: string;
  message?: string;
}

export interface ClassFigures {
  /** Kubelet lines of this class (observable from the API). */
  kubelet: number;
  /** ... of them matched in order by KubeLoop. */
  matched: number;
  /** KubeLoop iterations of this class. */
  loop: number;
}

export interface Unmatched {
  at: number;
  key: string;
  uid?: string;
  cls: string;
  inferred: boolean;
  message?: string;
}

/** One pod incarnation's two sequences side by side: a matched pair, or a line of one side alone. */
export interface AlignedRow {
  kubelet?: Unmatched;
  loop?: Unmatched;
}

export interface PodAlignment {
  key: string;
  uid?: string;
  rows: AlignedRow[];
}

export interface Comparison {
  classes: Record<string, ClassFigures>;
  /** Kubelet lines no status write ever reported (left out of the figures). */
  unobservable: Unmatched[];
  /** Per pod incarnation, both sequences aligned (what a reader checks a verdict against). */
  alignments: PodAlignment[];
  /** Kubelet lines with no counterpart in KubeLoop, in time order. */
  missed: Unmatched[];
  /** KubeLoop iterations with no counterpart in the kubelet's log, in time order (inferred or not). */
  extra: Unmatched[];
  /** KubeLoop's time minus the kubelet's for every matched pair, ms, sorted. */
  lagsMs: number[];
  /** Pod incarnations compared. */
  pods: number;
}

/** The classes a kubelet line can be matched on (undefined: not compared). */
export function kubeletClass(r: KubeletRecord): string | undefined {
  switch (r.source) {
    case 'config':
      return `config ${r.op}`;
    case 'pleg':
      return r.outcome === 'ok' && (r.op === 'ContainerStarted' || r.op === 'ContainerDied') ? `pleg ${r.op}` : undefined;
    case 'probe':
      return r.outcome === 'ok' ? `probe ${r.op} ${r.data ?? ''}`.trim() : undefined;
    case 'podworker':
      // a span counts once: at its enter
      return r.span !== 'exit' && (r.handler === 'SyncTerminatingPod' || r.handler === 'SyncTerminatedPod') ? `worker ${r.handler}` : undefined;
    default:
      return undefined;
  }
}

/** The class of one of KubeLoop's iterations (undefined: not compared). */
export function loopClass(e: LoopIteration): string | undefined {
  switch (e.source) {
    case 'config':
      return e.op === 'closed' || e.op === 'SET' || e.op === 'error' ? undefined : `config ${e.op}`;
    case 'pleg':
      return e.outcome === 'ok' && (e.op === 'ContainerStarted' || e.op === 'ContainerDied') ? `pleg ${e.op}` : undefined;
    case 'probe':
      return e.outcome === 'ok' ? `probe ${e.op} ${e.data ?? ''}`.trim() : undefined;
    case 'podworker':
      return e.handler === 'SyncTerminatingPod' || e.handler === 'SyncTerminatedPod' ? `worker ${e.handler}` : undefined;
    default:
      return undefined;
  }
}

interface Item {
  at: number;
  key: string;
  uid: string | undefined;
  cls: string;
  inferred: boolean;
  message?: string;
  /** A PLEG event's container (or sandbox) ID. */
  data?: string;
  /** On a kubelet status write (class STATUS_WRITE, never compared): what it reported. */
  status?: StatusSummary;
}

/** Not compared: a kubelet status write, kept beside the compared lines to place them (see the header). */
const STATUS_WRITE = 'status write';
/** How much earlier than the status manager's line a write's RECONCILE echo may be logged. */
const ECHO_SLACK_MS = 50;

/** Splits the kubelet's records into per-pod items (a config line may name several pods). */
function kubeletItems(records: readonly KubeletRecord[]): Item[] {
  const out: Item[] = [];
  for (const r of records) {
    const cls = r.source === 'status' && r.status ? STATUS_WRITE : kubeletClass(r);
    if (!cls) continue;
    for (const key of r.keys)
      out.push({
        at: r.at,
        key,
        uid: r.uid,
        cls,
        inferred: false,
        ...(r.data ? { message: r.data, data: r.data } : {}),
        ...(r.status ? { status: r.status } : {}),
      });
  }
  return out;
}

/**
 * One pod's kubelet lines in the order a workstation can observe them (see the header), without the
 * status writes; and the lines no write reported. Where each line goes:
 * - a container's start or death: just before the echo of the first write that reports it, if that
 *   write came after the line; where it is, if an earlier write already reported it;
 * - a death during a teardown (after the pod's DELETE, or once a write showed a terminal phase) and
 *   the sandbox's death: just after the echo of the first write reporting it (or where it is, if
 *   later). The teardown writes the stopped containers itself and the PLEG's relist races it: the
 *   order of the two is not the loop's and cannot be seen; KubeLoop puts the relist after;
 * - the sandbox's start: just before the echo of the first write reporting it, wherever the line
 *   is (the SyncPod that made the sandbox may write it before the PLEG's relist sees it);
 * - a probe result: just before the echo of the first write whose ready (or started) flags change
 *   that way, and never before the write that reported the container's start;
 * - a new container's initial probe results (readiness "not ready", startup "unhealthy": the
 *   prober sets them at its first tick, up to a period after the start, and the status already
 *   says not ready and not started): just after that container's start, readiness first;
 * - a liveness failure: where it is (its Killing Event is visible at once).
 */
export function observableOrder<T extends { at: number; cls: string; data?: string; status?: StatusSummary }>(
  items: readonly T[],
): { ordered: T[]; unobservable: T[] } {
  const writes = items.map((x, i) => ({ x, i })).filter((w) => w.x.cls === STATUS_WRITE);
  const ids = new Set(writes.flatMap((w) => [...w.x.status!.running, ...w.x.status!.exited]));
  // Each write's echo: the first RECONCILE not taken by an earlier write, from ECHO_SLACK_MS before
  // the write's line on (the watch's echo and the status manager's "updated" line race).
  const echoOf = new Map<number, number>();
  const taken = new Set<number>();
  for (const w of writes) {
    for (let j = 0; j < items.length; j++) {
      const y = items[j]!;
      if (y.at < w.x.at - ECHO_SLACK_MS || (j < w.i && y.cls !== 'config RECONCILE')) continue;
      if (y.cls === 'config RECONCILE' && !taken.has(j)) {
        taken.add(j);
        echoOf.set(w.i, j);
        break;
      }
      if (j > w.i && (y.cls === 'config DELETE' || y.cls === 'config REMOVE')) {
        echoOf.set(w.i, j); // no echo of its own: seen with the next config change
        break;
      }
    }
  }
  const none: StatusSummary = { running: [], exited: [], ready: [], started: [] };
  const grew = (a: string[], b: string[]) => b.some((n) => !a.includes(n));
  /** The first write (index) reporting the line (at or after `from`), or -1. */
  const reportedBy = (x: T, from: number): number => {
    const [source, op, ...rest] = x.cls.split(' ');
    const status = rest.join(' ');
    const cid = x.data ?? '';
    const sandbox = source === 'pleg' && !ids.has(cid);
    let prev = none;
    let sandboxRan = false;
    for (const w of writes) {
      const st = w.x.status!;
      const seen =
        source === 'pleg'
          ? op === 'ContainerStarted'
            ? sandbox
              ? st.sandboxReady === true
              : st.running.includes(cid) || st.exited.includes(cid)
            : sandbox
              ? sandboxRan && st.sandboxReady === false // stopped after it ran (False before its first start is no death)
              : st.exited.includes(cid)
          : op === 'readiness'
            ? status === 'ready'
              ? grew(prev.ready, st.ready)
              : grew(st.ready, prev.ready)
            : op === 'startup'
              ? status === 'started'
                ? grew(prev.started, st.started)
                : true
              : true;
      prev = st;
      if (st.sandboxReady) sandboxRan = true;
      if (w.i >= from && seen) return w.i;
    }
    return -1;
  };
  const keyed: { x: T; key: number; i: number }[] = [];
  const unobservable: T[] = [];
  const echoKey = (w: number, after: boolean) => {
    const e = echoOf.get(w);
    return e === undefined ? w + 0.5 : after ? e + 0.5 : e - 0.5;
  };
  let deleted = false;
  let lastStart: { write: number; key: number } | undefined;
  /** Probe types already given a result since the last container start (the first is the initial one). */
  const sinceStart = new Set<string>();
  items.forEach((x, i) => {
    if (x.cls === STATUS_WRITE) return;
    const [source, op, ...rest] = x.cls.split(' ');
    const status = rest.join(' ');
    if (x.cls === 'config DELETE') deleted = true;
    if (source === 'pleg') {
      const sandbox = !ids.has(x.data ?? '');
      const w = reportedBy(x, 0);
      if (w < 0) {
        // Never reported: a pod deleted first (KubeLoop infers the deaths from its REMOVE), else unobservable.
        const gone = items.findIndex((y, j) => j > i && y.cls === 'config REMOVE');
        if (op === 'ContainerDied' && gone >= 0) keyed.push({ x, key: gone - 0.5, i });
        else unobservable.push(x);
        return;
      }
      const priorTerminal = writes.some((v) => v.i < w && (v.x.status!.phase === 'Succeeded' || v.x.status!.phase === 'Failed'));
      const teardown = op === 'ContainerDied' && (sandbox || deleted || priorTerminal);
      let key: number;
      if (teardown) key = Math.max(i, echoKey(w, true));
      else if (sandbox && op === 'ContainerStarted') key = echoKey(w, false);
      else key = w < i ? i : echoKey(w, false);
      keyed.push({ x, key, i });
      if (op === 'ContainerStarted' && !sandbox) {
        lastStart = { write: w, key };
        sinceStart.clear();
      }
      return;
    }
    if (source === 'probe' && op !== 'liveness') {
      const initial = !sinceStart.has(op!) && ((op === 'readiness' && status === 'not ready') || (op === 'startup' && status === 'unhealthy'));
      sinceStart.add(op!);
      // Several initial results: in the order KubeLoop gives them (readiness, then startup); the
      // prober's workers tick independently, so the kubelet's order between them is chance.
      if (initial && lastStart) return keyed.push({ x, key: lastStart.key + 0.25 + (op === 'startup' ? 0.01 : 0), i });
      let w = reportedBy(x, i);
      if (w >= 0 && lastStart && lastStart.write > w) w = lastStart.write;
      if (w < 0) return unobservable.push(x);
      keyed.push({ x, key: echoKey(w, false), i });
      return;
    }
    keyed.push({ x, key: i, i });
  });
  keyed.sort((a, b) => a.key - b.key || a.i - b.i);
  return { ordered: keyed.map((k) => k.x), unobservable };
}

function loopItems(iterations: readonly LoopIteration[]): Item[] {
  const out: Item[] = [];
  for (const e of iterations) {
    const cls = loopClass(e);
    if (!cls) continue;
    const keys = e.key ? e.key.split(',') : [];
    for (const key of keys) {
      if (key.includes(':')) continue; // another kind's object, never a pod
      out.push({ at: e.at, key, uid: keys.length === 1 ? e.uid : undefined, cls, inferred: !!e.inferred, ...(e.message ? { message: e.message } : {}) });
    }
  }
  return out;
}

/**
 * Gives every item a UID: its own, else that of the incarnation of its name alive at its time: the
 * one that started last at or before it. An ADD belongs to the incarnation it starts, whose first
 * line naming the UID comes a few ms after it (up to `slackMs`); the old incarnation's DELETE and
 * REMOVE may come just before the new one's ADD.
 */
function assignUids(items: Item[], starts: Map<string, { uid: string; at: number }[]>, slackMs = 50): void {
  for (const it of items) {
    if (it.uid) continue;
    const incarnations = starts.get(it.key) ?? [];
    const ahead = it.cls === 'config ADD' ? slackMs : 0;
    let best: string | undefined;
    for (const inc of incarnations) if (inc.at <= it.at + ahead) best = inc.uid;
    it.uid = best ?? incarnations[0]?.uid;
  }
}

/** First time each (name, UID) appears among items that carry a UID. */
function incarnationStarts(...lists: Item[][]): Map<string, { uid: string; at: number }[]> {
  const first = new Map<string, { key: string; at: number }>();
  for (const list of lists) {
    for (const it of list) {
      if (!it.uid) continue;
      const f = first.get(it.uid);
      if (!f || it.at < f.at) first.set(it.uid, { key: it.key, at: it.at });
    }
  }
  const out = new Map<string, { uid: string; at: number }[]>();
  for (const [uid, { key, at }] of first) (out.get(key) ?? out.set(key, []).get(key)!).push({ uid, at });
  for (const v of out.values()) v.sort((a, b) => a.at - b.at);
  return out;
}

/** Longest common subsequence of two class sequences: the matched index pairs, in order. */
export function lcsPairs(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push([i, j]);
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return out;
}

/**
 * Compares a kubelet's records with KubeLoop's iterations for the same node. Only pods the kubelet
 * ran are compared (KubeLoop's iterations about other pods are ignored); `from`/`to` (wall ms)
 * bound the window both sides are read in.
 */
export function compare(records: readonly KubeletRecord[], iterations: readonly LoopIteration[], window: { from?: number; to?: number } = {}): Comparison {
  const inWindow = (at: number) => (window.from === undefined || at >= window.from) && (window.to === undefined || at <= window.to);
  const k = kubeletItems(records).filter((x) => inWindow(x.at));
  const l = loopItems(iterations).filter((x) => inWindow(x.at));
  const starts = incarnationStarts(k, l);
  assignUids(k, starts);
  assignUids(l, starts);
  const group = (items: Item[]) => {
    const g = new Map<string, Item[]>();
    for (const it of items) {
      const id = `${it.key}|${it.uid ?? ''}`;
      (g.get(id) ?? g.set(id, []).get(id)!).push(it);
    }
    for (const v of g.values()) v.sort((a, b) => a.at - b.at);
    return g;
  };
  const kg = group(k);
  const lg = group(l);
  const classes: Record<string, ClassFigures> = {};
  const fig = (cls: string) => (classes[cls] ??= { kubelet: 0, matched: 0, loop: 0 });
  const missed: Unmatched[] = [];
  const extra: Unmatched[] = [];
  const lagsMs: number[] = [];
  const aligned: PodAlignment[] = [];
  const asUnmatched = (it: Item): Unmatched => ({
    at: it.at,
    key: it.key,
    ...(it.uid ? { uid: it.uid } : {}),
    cls: it.cls,
    inferred: it.inferred,
    ...(it.message ? { message: it.message } : {}),
  });
  const unobservable: Unmatched[] = [];
  for (const [id, all] of kg) {
    if (all.every((x) => x.cls === STATUS_WRITE)) continue;
    const { ordered, unobservable: hidden } = observableOrder(all);
    for (const x of hidden) unobservable.push(asUnmatched(x));
    const lsAll = lg.get(id) ?? [];
    const rows: AlignedRow[] = [];
    // The loop's iterations and the pod worker's syncs: two sequences (two goroutines upstream).
    for (const worker of [false, true]) {
      const ks = ordered.filter((x) => x.cls.startsWith('worker ') === worker);
      const ls = lsAll.filter((x) => x.cls.startsWith('worker ') === worker);
      for (const x of ks) fig(x.cls).kubelet++;
      for (const x of ls) fig(x.cls).loop++;
      const pairs = lcsPairs(
        ks.map((x) => x.cls),
        ls.map((x) => x.cls),
      );
      const kMatched = new Set<number>();
      const lMatched = new Set<number>();
      for (const [i, j] of pairs) {
        kMatched.add(i);
        lMatched.add(j);
        fig(ks[i]!.cls).matched++;
        lagsMs.push(ls[j]!.at - ks[i]!.at);
      }
      ks.forEach((x, i) => kMatched.has(i) || missed.push(asUnmatched(x)));
      ls.forEach((x, j) => lMatched.has(j) || extra.push(asUnmatched(x)));
      rows.push(...align(ks, ls, pairs, asUnmatched));
    }
    const [key, uid] = id.split('|') as [string, string];
    aligned.push({ key, ...(uid ? { uid } : {}), rows });
  }
  unobservable.sort((a, b) => a.at - b.at);
  missed.sort((a, b) => a.at - b.at);
  extra.sort((a, b) => a.at - b.at);
  lagsMs.sort((a, b) => a - b);
  aligned.sort((a, b) => (a.rows[0]?.kubelet?.at ?? a.rows[0]?.loop?.at ?? 0) - (b.rows[0]?.kubelet?.at ?? b.rows[0]?.loop?.at ?? 0));
  return { classes, unobservable, alignments: aligned, missed, extra, lagsMs, pods: aligned.length };
}

/** The two sequences merged along their matched pairs, each side's unmatched items in time order between them. */
function align(ks: Item[], ls: Item[], pairs: [number, number][], as: (x: Item) => Unmatched): AlignedRow[] {
  const rows: AlignedRow[] = [];
  let i = 0;
  let j = 0;
  const flush = (iEnd: number, jEnd: number) => {
    const pending: AlignedRow[] = [];
    for (; i < iEnd; i++) pending.push({ kubelet: as(ks[i]!) });
    for (; j < jEnd; j++) pending.push({ loop: as(ls[j]!) });
    pending.sort((a, b) => (a.kubelet ?? a.loop)!.at - (b.kubelet ?? b.loop)!.at);
    rows.push(...pending);
  };
  for (const [pi, pj] of pairs) {
    flush(pi, pj);
    rows.push({ kubelet: as(ks[pi]!), loop: as(ls[pj]!) });
    i = pi + 1;
    j = pj + 1;
  }
  flush(ks.length, ls.length);
  return rows;
}

/** The p-quantile (0..1) of sorted numbers, or undefined for none. */
export function quantile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i];
}

/** Matched share of the kubelet's lines, over the classes given (all by default). */
export function matchedShare(c: Comparison, only?: (cls: string) => boolean): { kubelet: number; matched: number; share: number } {
  let kubelet = 0;
  let matched = 0;
  for (const [cls, f] of Object.entries(c.classes)) {
    if (only && !only(cls)) continue;
    kubelet += f.kubelet;
    matched += f.matched;
  }
  return { kubelet, matched, share: kubelet === 0 ? 1 : matched / kubelet };
}
