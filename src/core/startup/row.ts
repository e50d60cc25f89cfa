/**
 * One pod's row of the report, computed without its bounds: the phases' durations and retry counts
 * into the report's typed arrays, its total, whether it is complete and the kubelet's SLI. The
 * bounds (what each names as its source) are made by podStartup (podStartup.ts) only when asked:
 * `phases`, or the row as JSON.
 *
 * Guarantee (pinned by a property test against podStartup on generated pods and Events): every
 * figure a row holds is the one podStartup gives for the same pod and Events, by the same rules
 * (see podStartup.ts), read here in one pass over the Events and with no object per Event.
 */
import { timeOf, type EventLike } from './podEvents';
import { kubeletSli, podStartup, pullSession, type KubeletSli, type Phase, type PhaseName, type PodLike, type PodStartup } from './podStartup';

/** The slots of a row's phases, in the order a pod goes through them. */
const SLOT: Record<PhaseName, number> = { scheduling: 0, sandbox: 1, init: 2, imagePull: 3, start: 4, readiness: 5 };
const SLOTS = 6;

/** The report's phase figures: per pod SLOTS durations (NaN: unknown) and retry counts. */
export class PhaseTable {
  readonly ms: Float64Array;
  readonly tries: Uint32Array;
  constructor(pods: number) {
    this.ms = new Float64Array(pods * SLOTS);
    this.tries = new Uint32Array(pods * SLOTS);
  }
}

export class StartupRow implements PodStartup {
  declare readonly node?: string;
  declare readonly totalMs?: number;
  private detail: PodStartup | undefined;

  constructor(
    private readonly pod: PodLike,
    private readonly events: readonly EventLike[],
    private readonly table: PhaseTable,
    private readonly index: number,
    readonly namespace: string,
    readonly name: string,
    readonly uid: string,
    node: string | undefined,
    totalMs: number | undefined,
    readonly complete: boolean,
    readonly sli: KubeletSli,
    private readonly init: boolean,
    private readonly readiness: boolean,
  ) {
    if (node !== undefined) (this as { node?: string }).node = node;
    if (totalMs !== undefined) (this as { totalMs?: number }).totalMs = totalMs;
  }

  /** The phases with their bounds and sources (made on first use). */
  get phases(): Phase[] {
    return (this.detail ??= podStartup(this.pod, this.events)).phases;
  }

  hasPhase(name: PhaseName): boolean {
    return name === 'init' ? this.init : name === 'readiness' ? this.readiness : true;
  }

  /** The phase's duration; undefined when unknown or when the pod has no such phase. */
  phaseMs(name: PhaseName): number | undefined {
    const ms = this.table.ms[this.index * SLOTS + SLOT[name]]!;
    return this.hasPhase(name) && !Number.isNaN(ms) ? ms : undefined;
  }

  /** Retries inside the phase, by their Events' counts, probe failures (Unhealthy) left out. */
  phaseTries(name: PhaseName): number {
    return this.table.tries[this.index * SLOTS + SLOT[name]]!;
  }

  /** What podStartup gives for the pod, key for key (the JSON output is the same as before rows). */
  toJSON(): PodStartup {
    return this.detail ?? podStartup(this.pod, this.events);
  }
}

/**
 * Where the container's name starts in a fieldPath that names one, as
 * /^spec\.(containers|initContainers|ephemeralContainers)\{(.+)\}$/ reads it (podEvents.ts), without
 * a match object per Event; 0 when it names none. INIT: the start of an init container's.
 */
function containerAt(fp: unknown): number {
  if (typeof fp !== 'string' || fp.charCodeAt(fp.length - 1) !== 125 /* } */) return 0;
  const open = fp.startsWith('spec.containers{') ? 16 : fp.startsWith('spec.initContainers{') ? INIT : fp.startsWith('spec.ephemeralContainers{') ? 25 : 0;
  return !open || fp.length - 1 <= open || LINE_BREAK.test(fp) ? 0 : open;
}
const INIT = 20;
/** What a regular expression's `.` does not match. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const COMBINED = '(combined from similar events): ';
const condition = (pod: PodLike, type: string) => pod.status?.conditions?.find((c) => c.type === type);
/** A True condition's transition time (as conditionBound reads it). */
function conditionAt(pod: PodLike, type: string): number | undefined {
  const c = condition(pod, type);
  return c?.status === 'True' ? timeOf(c.lastTransitionTime) : undefined;
}
const countOf = (e: EventLike) => Math.max(1, Number(e.series?.count ?? e.count ?? 1) || 1);
const firstOf = (e: EventLike) => timeOf(e.eventTime) ?? timeOf(e.firstTimestamp);
const lastOf = (e: EventLike) => timeOf(e.series?.lastObservedTime) ?? timeOf(e.lastTimestamp) ?? firstOf(e);
/** Smaller defined value (NaN: none yet). */
const minAt = (cur: number, at: number | undefined) => (at === undefined ? cur : Number.isNaN(cur) || at < cur ? at : cur);
const maxAt = (cur: number, at: number | undefined) => (at === undefined ? cur : Number.isNaN(cur) || at > cur ? at : cur);
const defined = (x: number) => (Number.isNaN(x) ? undefined : x);

/** A name's first slot stands for it (podStartup reads the containers as a set of names). */
function slotOf(containers: readonly { name: string }[], name: string): number {
  for (let i = 0; i < containers.length; i++) if (containers[i]!.name === name) return i;
  return -1;
}

/** A phase's duration into its slot (NaN: unknown); whether it is known. */
function setPhase(ms: Float64Array, at: number, from: number | undefined, to: number | undefined): boolean {
  const d = from !== undefined && to !== undefined ? Math.max(0, to - from) : NaN;
  ms[at] = d;
  return !Number.isNaN(d);
}

/** Per container slot, reused from pod to pod: a Pulled seen, the first Pulled's and Started's times. */
let pulledSeen = new Uint8Array(8);
let pulledAt = new Float64Array(8);
let startedAt = new Float64Array(8);

/** The row of one pod (`events`: those about it, any order) at `index` of `table`. */
export function startupRow(pod: PodLike, events: readonly EventLike[], table: PhaseTable, index: number): StartupRow {
  const md = pod.metadata ?? {};
  const containers = pod.spec?.containers ?? [];
  const n = containers.length;
  if (n > pulledSeen.length) {
    pulledSeen = new Uint8Array(n);
    pulledAt = new Float64Array(n);
    startedAt = new Float64Array(n);
  }
  pulledSeen.fill(0, 0, n);
  pulledAt.fill(NaN, 0, n);
  startedAt.fill(NaN, 0, n);
  const hasInit = (pod.spec?.initContainers ?? []).some((c) => c.restartPolicy !== 'Always');
  const tries = table.tries;
  const base = index * SLOTS;
  tries.fill(0, base, base + SLOTS);

  let scheduledEvent = NaN;
  let firstPullStep = NaN;
  let failedScheduling = false;
  const sessions: [number, number][] = [];
  for (const e of events) {
    const reason = String(e.reason ?? '');
    const warning = e.type === 'Warning';
    if (reason === 'Scheduled') scheduledEvent = maxAt(scheduledEvent, lastOf(e));
    else if (reason === 'FailedScheduling') {
      failedScheduling = true;
      tries[base + SLOT.scheduling] += countOf(e);
    } else if (reason === 'FailedCreatePodSandBox' || reason === 'SandboxChanged') tries[base + SLOT.sandbox] += countOf(e);
    const pullStep = reason === 'Pulling' || reason === 'Pulled';
    const perContainer = reason === 'Pulled' || reason === 'Started' || reason === 'Failed' || reason === 'BackOff' || reason === 'ErrImagePull';
    if (!pullStep && !perContainer && !(hasInit && warning)) continue;
    const first = pullStep || reason === 'Started' ? firstOf(e) : undefined;
    if (pullStep) firstPullStep = minAt(firstPullStep, first);
    let message = String(e.message ?? '');
    if (message.startsWith(COMBINED)) message = message.slice(COMBINED.length);
    if (reason === 'Pulled') {
      const s = pullSession(message, first);
      if (s) sessions.push(s);
    }
    const fp = e.involvedObject?.fieldPath;
    const open = containerAt(fp);
    if (!open) continue;
    if (open === INIT) {
      if (hasInit && warning && reason !== 'Unhealthy') tries[base + SLOT.init] += countOf(e);
      continue;
    }
    if (reason === 'Failed' || reason === 'BackOff' || reason === 'ErrImagePull') {
      if (/image/i.test(message)) tries[base + SLOT.imagePull] += countOf(e);
      else if (reason === 'Failed') tries[base + SLOT.start] += countOf(e);
      continue;
    }
    if (reason !== 'Pulled' && reason !== 'Started') continue;
    const i = slotOf(containers, fp!.slice(open, -1));
    if (i < 0) continue;
    if (reason === 'Pulled') {
      pulledSeen[i] = 1;
      pulledAt[i] = minAt(pulledAt[i]!, first);
    } else startedAt[i] = minAt(startedAt[i]!, first);
  }

  const created = timeOf(md.creationTimestamp);
  const scheduled = conditionAt(pod, 'PodScheduled') ?? defined(scheduledEvent);
  const sandboxReady = conditionAt(pod, 'PodReadyToStartContainers') ?? defined(firstPullStep);
  let allPulled = true;
  let lastPulled = NaN;
  let started = NaN;
  let allStarted = n > 0;
  for (let i = 0; i < n; i++) {
    const name = containers[i]!.name;
    if (slotOf(containers, name) !== i) continue;
    if (!pulledSeen[i]) allPulled = false;
    else lastPulled = maxAt(lastPulled, defined(pulledAt[i]!));
    if (!allStarted) continue;
    const cs = pod.status?.containerStatuses?.find((s) => s.name === name);
    let at: number | undefined;
    if (cs && !(cs.restartCount ?? 0)) {
      const st = cs.state ?? {};
      at = st.running ? timeOf(st.running.startedAt) : timeOf(st.terminated?.startedAt);
    }
    at ??= defined(startedAt[i]!);
    if (at === undefined) allStarted = false;
    else started = maxAt(started, at);
  }
  const imagesPulled = allPulled ? defined(lastPulled) : undefined;
  const startedBound = allStarted ? defined(started) : undefined;
  const ready = conditionAt(pod, 'Ready');
  const finished = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  const hasReadiness = ready !== undefined || !finished;

  const ms = table.ms;
  const phase = (name: PhaseName, from: number | undefined, to: number | undefined) => setPhase(ms, base + SLOT[name], from, to);
  let complete = phase('scheduling', created, scheduled);
  const beforePulls = hasInit ? conditionAt(pod, 'Initialized') : sandboxReady;
  complete = phase('sandbox', scheduled, sandboxReady) && complete;
  if (hasInit) complete = phase('init', sandboxReady, beforePulls) && complete;
  else ms[base + SLOT.init] = NaN;
  complete = phase('imagePull', beforePulls, imagesPulled) && complete;
  complete = phase('start', imagesPulled, startedBound) && complete;
  if (hasReadiness) complete = phase('readiness', startedBound, ready) && complete;
  else ms[base + SLOT.readiness] = NaN;
  const end = hasReadiness && ready !== undefined ? ready : startedBound;
  const totalMs = created !== undefined && end !== undefined ? Math.max(0, end - created) : undefined;
  return new StartupRow(
    pod,
    events,
    table,
    index,
    md.namespace ?? '',
    md.name ?? '',
    md.uid ?? '',
    pod.spec?.nodeName || undefined,
    totalMs,
    complete,
    kubeletSli(pod, failedScheduling, sessions, created, startedBound),
    hasInit,
    hasReadiness,
  );
}
