import { parseKlogLine, parseList, parseStruct, type KlogLine } from './klog';

/**
 * A real kubelet's `-v=4` log, read into the sync loop's vocabulary: the lines that say what its
 * syncLoopIteration, pod workers and status manager did, one record each, with the same source,
 * operation and handler names KubeLoop's timeline uses (pkg/kubelet/kubelet.go, pod_workers.go,
 * status/status_manager.go, v1.36). Every other line is not a record (reading a log never fails).
 *
 *   "SyncLoop ADD|UPDATE|DELETE|REMOVE|RECONCILE"            config  <op>              HandlePod...
 *   "SyncLoop (PLEG): event for pod"                         pleg    <event Type>      HandlePodSyncs
 *   "SyncLoop (PLEG): pod does not exist, ignore ..."        pleg    <event Type>      none (skipped)
 *   "SyncLoop (SYNC) pods"                                   sync    tick              HandlePodSyncs
 *   "SyncLoop (probe)"                                       probe   <probe>           HandlePodSyncs
 *   "SyncLoop (probe): ignore irrelevant update"             probe   <probe>           none (skipped)
 *   "SyncLoop (housekeeping)" / "(housekeeping, skipped)"    housekeeping tick         HandlePodCleanups
 *   "Skipping pod synchronization"                           runtime error             none (error)
 *   "Pod is being synced for the first time"                 podworker created
 *   "... begin teardown" / "Pod is orphaned and must be ..." podworker terminating
 *   "SyncPod|SyncTerminatingPod|SyncTerminatedPod enter"     podworker syncing|terminating|terminated  Sync...Pod (a span, ended by its "exit")
 *   "Pod terminated all containers successfully"             podworker terminated
 *   "Pod is complete and the worker can now stop"            podworker finished
 *   "Status for pod updated successfully"                    status  write             (the kubelet's status write, statusVersion)
 *   "Event occurred"                                         event   <reason>          (a kubelet Event: Killing, Unhealthy, BackOff, ...)
 */
export type KubeletSource = 'config' | 'pleg' | 'sync' | 'probe' | 'housekeeping' | 'runtime' | 'podworker' | 'status' | 'event';

export interface KubeletRecord {
  /** Wall-clock ms since the epoch (the line's klog time). */
  at: number;
  source: KubeletSource;
  op: string;
  /** The pods it names, "namespace/name". */
  keys: string[];
  /** The pod's UID, when the line gives it (PLEG events, pod workers, status patches). */
  uid?: string;
  handler: string;
  outcome: 'ok' | 'skipped' | 'error';
  /** A PLEG event's container (or sandbox) ID; a probe's status ("unhealthy", "ready", ...); an Event's message. */
  data?: string;
  /** For a span (a pod-worker sync): how long it ran, ms, once its "exit" line was read. */
  durationMs?: number;
  /** Extra words worth showing (a config source, isTerminal, statusVersion, an error). */
  message?: string;
  /** On a status write: what the written status says of the sandbox and the containers. */
  status?: StatusSummary;
  /**
   * A pod-worker sync is a span: a record at its "enter" line (durationMs set on it once its "exit"
   * is read), and one more at the exit, `span: 'exit'`, timed at the enter with the whole duration.
   */
  span?: 'enter' | 'exit';
  /** The kubelet's own line. */
  raw: string;
}

/** What a status write tells a workstation about a pod's runtime (what the differential needs). */
export interface StatusSummary {
  phase?: string;
  /** The PodReadyToStartContainers condition: the sandbox runs (with its network). */
  sandboxReady?: boolean;
  /** Container IDs (runtime scheme stripped) the status shows running, and those it shows exited (state or lastState). */
  running: string[];
  exited: string[];
  /** Names of the containers it shows ready, and of those it shows started. */
  ready: string[];
  started: string[];
}

/** The summary of a status as the kubelet logs it (JSON); undefined when it does not parse. */
export function summarizeStatus(json: string | undefined): StatusSummary | undefined {
  if (!json) return undefined;
  type Ref = { containerID?: string };
  type Cs = {
    name?: string;
    containerID?: string;
    ready?: boolean;
    started?: boolean;
    state?: { running?: unknown; terminated?: Ref };
    lastState?: { terminated?: Ref };
  };
  let st: {
    phase?: string;
    conditions?: { type?: string; status?: string }[];
    containerStatuses?: Cs[];
    initContainerStatuses?: Cs[];
    ephemeralContainerStatuses?: Cs[];
  };
  try {
    st = JSON.parse(json) as typeof st;
  } catch {
    return undefined;
  }
  const id = (raw: string | undefined) => (raw ? raw.slice(raw.indexOf('://') >= 0 ? raw.indexOf('://') + 3 : 0) : undefined);
  const out: StatusSummary = { running: [], exited: [], ready: [], started: [] };
  if (st.phase) out.phase = st.phase;
  const sandbox = st.conditions?.find((c) => c.type === 'PodReadyToStartContainers');
  if (sandbox) out.sandboxReady = sandbox.status === 'True';
  for (const c of [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? []), ...(st.ephemeralContainerStatuses ?? [])]) {
    const cur = id(c.containerID);
    if (cur && c.state?.running) out.running.push(cur);
    const done = c.state?.terminated ? (id(c.state.terminated.containerID) ?? cur) : undefined;
    if (done) out.exited.push(done);
    const last = id(c.lastState?.terminated?.containerID);
    if (last) out.exited.push(last);
    if (c.name && c.ready) out.ready.push(c.name);
    if (c.name && c.started) out.started.push(c.name);
  }
  return out;
}

const HANDLERS: Record<string, string> = {
  ADD: 'HandlePodAdditions',
  UPDATE: 'HandlePodUpdates',
  DELETE: 'HandlePodUpdates',
  REMOVE: 'HandlePodRemoves',
  RECONCILE: 'HandlePodReconcile',
};

const TEARDOWN = new Map([
  ['Pod is marked for graceful deletion, begin teardown', 'marked for graceful deletion'],
  ['Pod is in a terminal phase (success/failed), begin teardown', 'terminal phase'],
  ['Pod is being removed by the kubelet, begin teardown', 'removed'],
  ['Pod is being evicted by the kubelet, begin teardown', 'evicted'],
  ['Pod is orphaned and must be torn down', 'orphaned'],
]);

const SPANS: Record<string, 'syncing' | 'terminating' | 'terminated'> = {
  SyncPod: 'syncing',
  SyncTerminatingPod: 'terminating',
  SyncTerminatedPod: 'terminated',
};

/** One klog line as a record, or undefined when it is not one the loop's vocabulary has. */
export function recordOf(l: KlogLine): KubeletRecord | undefined {
  const base = { at: l.at, raw: l.raw };
  const pod = l.kv.pod ? [l.kv.pod] : [];
  const m = l.msg;
  if (m.startsWith('SyncLoop ')) {
    const op = m.slice('SyncLoop '.length);
    const handler = HANDLERS[op];
    if (handler)
      return {
        ...base,
        source: 'config',
        op,
        keys: parseList(l.kv.pods),
        handler,
        outcome: 'ok',
        ...(l.kv.source ? { message: `source=${l.kv.source}` } : {}),
      };
  }
  switch (m) {
    case 'SyncLoop (PLEG): event for pod':
    case 'SyncLoop (PLEG): pod does not exist, ignore irrelevant event': {
      const e = parseStruct(l.kv.event);
      const skipped = m !== 'SyncLoop (PLEG): event for pod';
      return {
        ...base,
        source: 'pleg',
        op: e.Type ?? 'unknown',
        keys: pod,
        ...(e.ID ? { uid: e.ID } : {}),
        handler: skipped ? 'none' : 'HandlePodSyncs',
        outcome: skipped ? 'skipped' : 'ok',
        ...(e.Data ? { data: e.Data } : {}),
      };
    }
    case 'SyncLoop (SYNC) pods':
      return { ...base, source: 'sync', op: 'tick', keys: parseList(l.kv.pods), handler: 'HandlePodSyncs', outcome: 'ok' };
    case 'SyncLoop (probe)':
    case 'SyncLoop (probe): ignore irrelevant update': {
      const skipped = m !== 'SyncLoop (probe)';
      return {
        ...base,
        source: 'probe',
        op: l.kv.probe ?? 'unknown',
        keys: pod,
        handler: skipped ? 'none' : 'HandlePodSyncs',
        outcome: skipped ? 'skipped' : 'ok',
        ...(l.kv.status ? { data: l.kv.status } : {}),
      };
    }
    case 'SyncLoop (housekeeping)':
      return { ...base, source: 'housekeeping', op: 'tick', keys: [], handler: 'HandlePodCleanups', outcome: 'ok' };
    case "SyncLoop (housekeeping, skipped): sources aren't ready yet":
      return { ...base, source: 'housekeeping', op: 'tick', keys: [], handler: 'HandlePodCleanups', outcome: 'skipped', message: "sources aren't ready yet" };
    case 'Skipping pod synchronization':
      return { ...base, source: 'runtime', op: 'error', keys: [], handler: 'none', outcome: 'error', ...(l.kv.err ? { message: l.kv.err } : {}) };
    case 'Pod is being synced for the first time':
      return worker(l, 'created', l.kv.updateType ? `updateType=${l.kv.updateType}` : undefined);
    case 'Pod terminated all containers successfully':
      return worker(l, 'terminated');
    case 'Pod is complete and the worker can now stop':
      return worker(l, 'finished');
    case 'Status for pod updated successfully': {
      const status = summarizeStatus(l.kv.status);
      return {
        ...base,
        source: 'status',
        op: 'write',
        keys: pod,
        handler: 'none',
        outcome: 'ok',
        ...(l.kv.statusVersion ? { message: `statusVersion=${l.kv.statusVersion}` } : {}),
        ...(status ? { status } : {}),
      };
    }
    case 'Event occurred':
      return {
        ...base,
        source: 'event',
        op: l.kv.reason ?? 'unknown',
        keys: l.kv.object ? [l.kv.object] : [],
        handler: 'none',
        outcome: 'ok',
        ...(l.kv.message ? { data: l.kv.message } : {}),
        ...(l.kv.type ? { message: `type=${l.kv.type}` } : {}),
      };
  }
  const teardown = TEARDOWN.get(m);
  if (teardown) return worker(l, 'terminating', teardown);
  const span = /^(SyncPod|SyncTerminatingPod|SyncTerminatedPod) (enter|exit)$/.exec(m);
  if (span && span[2] === 'enter') return { ...worker(l, SPANS[span[1]!]!), handler: span[1]! };
  return undefined;
}

function worker(l: KlogLine, op: string, message?: string): KubeletRecord {
  return {
    at: l.at,
    raw: l.raw,
    source: 'podworker',
    op,
    keys: l.kv.pod ? [l.kv.pod] : [],
    ...(l.kv.podUID ? { uid: l.kv.podUID } : {}),
    handler: 'none',
    outcome: 'ok',
    ...(message ? { message } : {}),
  };
}

/**
 * A kubelet log read line by line (a file followed as it grows, or a whole file): each line that
 * makes a record gives it; a span's "exit" line completes the record its "enter" made (durationMs,
 * and an error or isTerminal in message) and gives a record of the whole span (`span: 'exit'`). `year` fills in klog's missing year.
 */
export class KubeletLogReader {
  private readonly open = new Map<string, KubeletRecord>();
  private partial = '';
  /** A header line whose last value is multi-line (`key=<`), and the value's lines so far. */
  private multi: { head: string; lines: string[] } | undefined;
  lines = 0;

  constructor(private readonly year = new Date().getUTCFullYear()) {}

  /** The records of a chunk of log text (lines may be split across chunks). */
  push(text: string): KubeletRecord[] {
    const all = this.partial + text;
    const cut = all.lastIndexOf('\n');
    if (cut < 0) {
      this.partial = all;
      return [];
    }
    this.partial = all.slice(cut + 1);
    const out: KubeletRecord[] = [];
    for (const raw of all.slice(0, cut).split('\n')) {
      const r = this.line(raw);
      if (r) out.push(r);
    }
    return out;
  }

  /** The records of what is left (a file read to its end). */
  end(): KubeletRecord[] {
    const rest = this.partial;
    this.partial = '';
    const out: KubeletRecord[] = [];
    const r = rest ? this.line(rest) : undefined;
    if (r) out.push(r);
    if (this.multi) {
      const m = this.parsed(`${this.multi.head.slice(0, -1)}${JSON.stringify(this.multi.lines.join('\n'))}`);
      this.multi = undefined;
      if (m) out.push(m);
    }
    return out;
  }

  /**
   * klog writes a multi-line string value as `key=<`, then each line after a tab, then ` >`: the
   * value is put back together and the line parsed as if it had been quoted.
   */
  private line(text: string): KubeletRecord | undefined {
    this.lines++;
    const raw = text.replace(/\r$/, '');
    if (this.multi) {
      if (raw.startsWith('\t')) {
        this.multi.lines.push(raw.slice(1));
        return undefined;
      }
      const { head, lines } = this.multi;
      this.multi = undefined;
      const joined = `${head.slice(0, -1)}${JSON.stringify(lines.join('\n'))}`;
      const r = this.parsed(joined);
      if (raw === ' >') return r;
      // A value cut short (a truncated log): keep what was read, and read this line too.
      const next = this.line(raw);
      return r ?? next;
    }
    if (raw.endsWith('=<') && parseKlogLine(raw, this.year)) {
      this.multi = { head: raw, lines: [] };
      return undefined;
    }
    return this.parsed(raw);
  }

  private parsed(raw: string): KubeletRecord | undefined {
    const l = parseKlogLine(raw, this.year);
    if (!l) return undefined;
    const span = /^(SyncPod|SyncTerminatingPod|SyncTerminatedPod) (enter|exit)$/.exec(l.msg);
    if (span) {
      const id = `${span[1]}|${l.kv.podUID ?? l.kv.pod ?? ''}`;
      if (span[2] === 'exit') {
        const r = this.open.get(id);
        if (!r) return undefined;
        this.open.delete(id);
        // The enter's record gets its duration (for readers holding it); the exit is a record of its
        // own too, the whole span, for a timeline that drew the enter as a tick.
        r.durationMs = Math.max(0, l.at - r.at);
        const words = [l.kv.isTerminal === 'true' ? 'isTerminal=true' : undefined, l.kv.err ? `err=${l.kv.err}` : undefined].filter(Boolean);
        if (words.length) r.message = words.join(' ');
        if (l.kv.err) r.outcome = 'error';
        return { ...r, span: 'exit', raw: `${r.raw}\n${l.raw}` };
      }
      const r = recordOf(l);
      if (r) this.open.set(id, { ...r, span: 'enter' });
      return r ? this.open.get(id) : undefined;
    }
    return recordOf(l);
  }
}

/** Every record of a whole log's text. */
export function readKubeletLog(text: string, year?: number): KubeletRecord[] {
  const reader = new KubeletLogReader(year);
  return [...reader.push(text), ...reader.end()];
}
