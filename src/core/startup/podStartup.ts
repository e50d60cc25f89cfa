/**
 * Where one pod's start-up time went: created -> scheduled -> sandbox -> (init containers) ->
 * image pulls -> containers started -> ready, read from the pod and its Events.
 *
 * Guarantees:
 * - Every bound names where its time was read: a status field (`status.conditions[Ready]
 *   .lastTransitionTime`) or an Event (`Event Pulled NS/NAME lastTimestamp`). A bound read from
 *   something that only implies it is `inferred` and says from what (the rule is in the code beside
 *   it); one nothing shows is `unknown` and has no time. Nothing is guessed.
 * - Phases are contiguous (each starts at the previous bound), in the order the kubelet's SyncPod
 *   runs them; a phase is known only when both its bounds are. Times are as precise as their
 *   sources: seconds for Event timestamps and status times, milliseconds for the durations a Pulled
 *   message states.
 * - The kubelet's own figure (pod_startup_latency_tracker.go) is computed beside ours by its rules:
 *   running (every container's state.running) minus creation, less the image pulls (each from its
 *   Pulling to its Pulled, overlapping pulls counted once) and the init containers' run time; a pod
 *   that was ever unschedulable (PodScheduled=False, a FailedScheduling Event) is excluded, as is a
 *   stateful one (a volume other than Secret, ConfigMap, downward API, emptyDir or projected). The
 *   kubelet takes "running" from its watch of the status it wrote, shortly after the containers'
 *   startedAt that we read: ours is lower by that write and watch delay.
 */
import { parsePulled, readPodEvent, timeOf, type EventLike, type PodEvent } from './podEvents';

/** The Pod fields read here. */
export interface PodLike {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind?: string; name?: string; controller?: boolean }[];
  };
  spec?: {
    nodeName?: string;
    initContainers?: { name: string; restartPolicy?: string }[];
    containers?: { name: string }[];
    volumes?: Record<string, unknown>[];
  };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string | null }[];
    containerStatuses?: ContainerStatusLike[];
    initContainerStatuses?: ContainerStatusLike[];
  };
}

interface ContainerStatusLike {
  name: string;
  restartCount?: number;
  state?: { running?: { startedAt?: string }; terminated?: { startedAt?: string; finishedAt?: string }; waiting?: { reason?: string } };
}

export type BoundName = 'created' | 'scheduled' | 'sandboxReady' | 'initialized' | 'imagesPulled' | 'started' | 'ready';
export type PhaseName = 'scheduling' | 'sandbox' | 'init' | 'imagePull' | 'start' | 'readiness';

export interface Bound {
  name: BoundName;
  /** Epoch ms; absent when unknown. */
  at?: number;
  how: 'observed' | 'inferred' | 'unknown';
  /** Where `at` was read (a status field path, or `Event REASON NS/NAME FIELD`); for unknown, why. */
  source: string;
}

export interface Phase {
  name: PhaseName;
  from: Bound;
  to: Bound;
  /** to.at - from.at (never negative: sources a second apart may cross); absent unless both known. */
  ms?: number;
  /** Retries inside the phase, from their Events (FailedScheduling, FailedCreatePodSandBox, Failed pulls, BackOff). */
  retries: { reason: string; count: number; message: string; source: string }[];
  /** Image pulls: what the kubelet's Pulled messages state (runtime time, and with the queue). */
  pulls?: { image: string; container: string; pulled: boolean; pullMs?: number; withWaitingMs?: number; source: string }[];
}

export interface KubeletSli {
  /** The SLI value; absent when excluded or not running yet. */
  ms?: number;
  /** Running minus created, before the subtractions. */
  e2eMs?: number;
  pullMs: number;
  initMs: number;
  excluded?: 'unschedulable' | 'stateful' | 'not running';
}

export interface PodStartup {
  namespace: string;
  name: string;
  uid: string;
  node?: string;
  phases: Phase[];
  /** created -> ready (or -> started for a pod not Ready, such as a finished Job's, which has no readiness phase). */
  totalMs?: number;
  /** Every phase known. */
  complete: boolean;
  sli: KubeletSli;
}

const condition = (pod: PodLike, type: string) => pod.status?.conditions?.find((c) => c.type === type);

function fieldBound(name: BoundName, at: number | undefined, path: string, how: 'observed' | 'inferred' = 'observed'): Bound | undefined {
  return at === undefined ? undefined : { name, at, how, source: path };
}

function eventBound(name: BoundName, e: PodEvent | undefined, which: 'first' | 'last', how: 'observed' | 'inferred' = 'observed'): Bound | undefined {
  const at = e?.[which];
  if (!e || at === undefined) return undefined;
  return { name, at, how, source: `Event ${e.reason} ${e.ref} ${which === 'first' ? e.firstField : e.lastField}` };
}

const unknown = (name: BoundName, why: string): Bound => ({ name, how: 'unknown', source: why });

/** A True condition's transition time. */
function conditionBound(pod: PodLike, type: string, name: BoundName): Bound | undefined {
  const c = condition(pod, type);
  if (c?.status !== 'True') return undefined;
  return fieldBound(name, timeOf(c.lastTransitionTime), `status.conditions[${type}].lastTransitionTime`);
}

const byFirst = (a: PodEvent, b: PodEvent) => (a.first ?? Infinity) - (b.first ?? Infinity);
const byLast = (a: PodEvent, b: PodEvent) => (b.last ?? -Infinity) - (a.last ?? -Infinity);

function retriesOf(events: PodEvent[], pick: (e: PodEvent) => boolean) {
  return events.filter(pick).map((e) => ({ reason: e.reason, count: e.count, message: e.message, source: `Event ${e.reason} ${e.ref}` }));
}

/** Kinds of volume the SLI counts as stateless (pod_startup_latency_tracker.go isStatefulPod). */
const STATELESS_VOLUMES = ['secret', 'configMap', 'downwardAPI', 'emptyDir', 'projected'];

/** One pod's phases; `events` are the Events about it (any order; others are ignored by the caller). */
export function podStartup(pod: PodLike, rawEvents: readonly EventLike[]): PodStartup {
  const events = rawEvents.map(readPodEvent);
  const md = pod.metadata ?? {};
  const inits = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
  const regular = new Set((pod.spec?.containers ?? []).map((c) => c.name));
  const of = (reason: string, init?: boolean) =>
    events.filter((e) => e.reason === reason && (init === undefined || (e.container !== undefined && e.init === init && (init || regular.has(e.container)))));

  const created = fieldBound('created', timeOf(md.creationTimestamp), 'metadata.creationTimestamp') ?? unknown('created', 'no creationTimestamp');

  // Scheduled: the condition the scheduler's bind wrote; else its Event.
  const scheduled =
    conditionBound(pod, 'PodScheduled', 'scheduled') ??
    eventBound('scheduled', of('Scheduled').sort(byLast)[0], 'last') ??
    unknown('scheduled', pod.spec?.nodeName ? 'bound to a node, no PodScheduled time or Scheduled Event' : 'not scheduled');

  // Sandbox ready: PodReadyToStartContainers (v1.29+); else inferred from the kubelet's first step
  // after it (an image pull or its "already present"), which SyncPod takes only once the sandbox is up.
  const firstPullStep = [...of('Pulling'), ...of('Pulled')].sort(byFirst)[0];
  const sandboxReady =
    conditionBound(pod, 'PodReadyToStartContainers', 'sandboxReady') ??
    eventBound('sandboxReady', firstPullStep, 'first', 'inferred') ??
    unknown('sandboxReady', 'no PodReadyToStartContainers and no pull Event yet');

  const bounds: Bound[] = [created, scheduled, sandboxReady];
  const retries: Phase['retries'][] = [
    retriesOf(events, (e) => e.reason === 'FailedScheduling'),
    retriesOf(events, (e) => e.reason === 'FailedCreatePodSandBox' || e.reason === 'SandboxChanged'),
  ];
  const names: PhaseName[] = ['scheduling', 'sandbox'];
  if (inits.length) {
    bounds.push(conditionBound(pod, 'Initialized', 'initialized') ?? unknown('initialized', 'Initialized is not True'));
    retries.push(retriesOf(events, (e) => e.init && e.warning));
    names.push('init');
  }

  // Image pulls of the app containers: up to the last of each container's first Pulled (a success or
  // "already present"): a restarted container's later Pulled Events are not its start-up's.
  const pulledEvents = of('Pulled', false);
  let lastPulled: PodEvent | undefined;
  let allPulled = true;
  for (const c of regular) {
    const first = pulledEvents.filter((e) => e.container === c).sort(byFirst)[0];
    if (!first) allPulled = false;
    else if (!lastPulled || (first.first ?? -Infinity) > (lastPulled.first ?? -Infinity)) lastPulled = first;
  }
  bounds.push(
    (allPulled ? eventBound('imagesPulled', lastPulled, 'first') : undefined) ??
      unknown('imagesPulled', lastPulled ? 'a container has no Pulled Event yet' : 'no Pulled Event (expired, or not pulled yet)'),
  );
  retries.push(
    retriesOf(
      events,
      (e) =>
        !e.init && e.container !== undefined && (e.reason === 'Failed' || e.reason === 'BackOff' || e.reason === 'ErrImagePull') && /image/i.test(e.message),
    ),
  );
  names.push('imagePull');

  // Started: every app container running; a restarted one's first start is its Started Event's first time.
  const started = startedBound(pod, regular, of('Started', false));
  bounds.push(started);
  retries.push(retriesOf(events, (e) => !e.init && e.container !== undefined && e.reason === 'Failed' && !/image/i.test(e.message)));
  names.push('start');

  // A finished pod (a Job's) that is not Ready has no readiness phase: it is not one a person waits for.
  const ready = conditionBound(pod, 'Ready', 'ready');
  const finished = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  if (ready || !finished) {
    bounds.push(ready ?? unknown('ready', `Ready is not True${pod.status?.phase ? ` (phase ${pod.status.phase})` : ''}`));
    retries.push(retriesOf(events, (e) => e.reason === 'Unhealthy' && /^(Readiness|Startup) probe/.test(e.message)));
    names.push('readiness');
  }

  const phases: Phase[] = names.map((name, i) => {
    const from = bounds[i]!;
    const to = bounds[i + 1]!;
    const ms = from.at !== undefined && to.at !== undefined ? Math.max(0, to.at - from.at) : undefined;
    return { name, from, to, ...(ms !== undefined ? { ms } : {}), retries: retries[i]! };
  });
  const pullPhase = phases.find((p) => p.name === 'imagePull')!;
  pullPhase.pulls = pulledEvents.map((e) => {
    const r = parsePulled(e.message);
    return {
      image: r?.image ?? '',
      container: e.container ?? '',
      pulled: r?.pulled ?? false,
      ...(r?.pullMs !== undefined ? { pullMs: r.pullMs } : {}),
      ...(r?.withWaitingMs !== undefined ? { withWaitingMs: r.withWaitingMs } : {}),
      source: `Event Pulled ${e.ref}`,
    };
  });

  const end = bounds[bounds.length - 1]!.at !== undefined ? bounds[bounds.length - 1]! : started;
  return {
    namespace: md.namespace ?? '',
    name: md.name ?? '',
    uid: md.uid ?? '',
    ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
    phases,
    ...(created.at !== undefined && end.at !== undefined ? { totalMs: Math.max(0, end.at - created.at) } : {}),
    complete: phases.every((p) => p.ms !== undefined),
    sli: kubeletSli(
      pod,
      events.some((e) => e.reason === 'FailedScheduling'),
      pullSessions(events),
      created.at,
      started.at,
    ),
  };
}

function startedBound(pod: PodLike, regular: Set<string>, startedEvents: PodEvent[]): Bound {
  let latest: Bound | undefined;
  for (const name of regular) {
    const cs = pod.status?.containerStatuses?.find((s) => s.name === name);
    const ev = startedEvents.filter((e) => e.container === name).sort(byFirst)[0];
    let b: Bound | undefined;
    if (cs && !(cs.restartCount ?? 0)) {
      const st = cs.state ?? {};
      b = st.running
        ? fieldBound('started', timeOf(st.running.startedAt), `status.containerStatuses[${name}].state.running.startedAt`)
        : fieldBound('started', timeOf(st.terminated?.startedAt), `status.containerStatuses[${name}].state.terminated.startedAt`);
    }
    b ??= eventBound('started', ev, 'first');
    if (!b) return unknown('started', `container ${name} has not started`);
    if (!latest || b.at! > latest.at!) latest = b;
  }
  return latest ?? unknown('started', 'no containers');
}

/**
 * The kubelet's pod start-up SLI (see the module comment for its rules). `pulls` are the pull
 * sessions (pullSessions), `failedScheduling` whether a FailedScheduling Event is about the pod.
 */
export function kubeletSli(
  pod: PodLike,
  failedScheduling: boolean,
  pulls: [number, number][],
  createdAt: number | undefined,
  startedAt: number | undefined,
): KubeletSli {
  // Plain loops and no spread: this runs for every pod of a report.
  const inits = pod.spec?.initContainers ?? [];
  let initMs = 0;
  for (const s of pod.status?.initContainerStatuses ?? []) {
    if (!inits.some((c) => c.name === s.name && c.restartPolicy !== 'Always')) continue;
    const t = s.state?.terminated;
    const d = (timeOf(t?.finishedAt) ?? 0) - (timeOf(t?.startedAt) ?? Infinity);
    if (d > 0) initMs += d;
  }
  const pullMs = mergedPullMs(pulls);
  if (condition(pod, 'PodScheduled')?.status === 'False' || failedScheduling) return { pullMs, initMs, excluded: 'unschedulable' };
  const statuses = pod.status?.containerStatuses ?? [];
  let running = statuses.length > 0;
  for (const s of statuses) if (!s.state?.running?.startedAt) running = false;
  if (!running || createdAt === undefined || startedAt === undefined) return { pullMs, initMs, excluded: 'not running' };
  const e2eMs = startedAt - createdAt;
  let stateful = false;
  for (const v of pod.spec?.volumes ?? []) if (!STATELESS_VOLUMES.some((k) => v[k] !== undefined && v[k] !== null)) stateful = true;
  if (stateful) return { pullMs, initMs, e2eMs, excluded: 'stateful' };
  return { pullMs, initMs, e2eMs, ms: Math.max(0, e2eMs - pullMs - initMs) };
}

/**
 * A Pulled Event's pull session, from the kubelet's Pulling to its Pulled: the Pulled Event's time
 * less the "including waiting" duration it states (else the pull's own); undefined for no pull.
 */
export function pullSession(message: string, at: number | undefined): [number, number] | undefined {
  if (at === undefined) return undefined;
  const r = parsePulled(message);
  const d = r?.withWaitingMs ?? r?.pullMs;
  return r?.pulled && d !== undefined && d > 0 ? [at - d, at] : undefined;
}

function pullSessions(events: PodEvent[]): [number, number][] {
  const sessions: [number, number][] = [];
  for (const e of events) {
    if (e.reason !== 'Pulled') continue;
    const s = pullSession(e.message, e.first);
    if (s) sessions.push(s);
  }
  return sessions;
}

/** The time spent pulling, overlaps counted once. */
function mergedPullMs(sessions: [number, number][]): number {
  sessions.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of sessions) {
    if (s >= end) total += e - s;
    else if (e > end) total += e - end;
    end = Math.max(end, e);
  }
  return total;
}
