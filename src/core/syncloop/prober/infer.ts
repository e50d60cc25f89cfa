import { containerIdOf } from '../pleg/generic';
import { allContainerStatuses, type Container, type ContainerStatus, type KubeEvent, type Pod } from '../../kube/objects/pod';
import { objectKey } from '../../kube/objects/objectKey';
import { type ProbeResult, type ProbeType, type ProbeUpdate } from '../types';
import { containerNameOf, countOf, isProbeEvent, parseTime, probeOfEvent, stripCombined } from './events';
import { describeExit, exitCause } from './exits';
import { INITIAL_RESULT, ResultsManager, thresholdsOf, type ProbeThresholds } from './results';

export { COMBINED_PREFIX, probeOfEvent } from './events';

/** Upstream probe results channels are buffered 20 each (prober/results manager). */
export const PROBE_CHANNEL_CAPACITY = 20;

/**
 * ProbeInference: the kubelet's prober workers and results managers, reconstructed from what the
 * API shows (a workstation cannot run the probes).
 *
 * Guarantees, as upstream (prober/worker.go doProbe, results/results_manager.go):
 * - Results are kept per container ID and probe type; an update is sent only when the result
 *   changes. A probe attempt is not a result: one Unhealthy occurrence is one failed attempt, and
 *   the result turns Failure only after failureThreshold consecutive failures. After a liveness or
 *   startup Failure the worker is on hold (no more results) until a new container ID appears.
 * - A new container ID gets the probe's initial result (liveness Success, readiness Failure,
 *   startup Unknown), sent as an update, and the old ID's result is dropped.
 * - readiness and startup results are read from the kubelet's own report: the `ready` and
 *   `started` flags (they are the results, after the thresholds).
 * - A restart is a liveness (or startup) kill only when the kubelet's Killing Event says so
 *   ("failed liveness probe"), or, when that Event was not seen, when the exit code says the
 *   container was killed by a signal (137/143) and the reason is not OOMKilled. OOMKilled and error
 *   exits are never probe failures.
 *
 * What the workstation cannot know is marked `inferred`: a Failure from counting Unhealthy Events
 * (a success between two failures leaves no Event, so "consecutive" is read from the Events'
 * timing), and a liveness kill read from an exit code. The Killing Event and the flags are not.
 *
 * Events: a new one, or a repeat (its count rose by n: n more attempts); client-go's aggregated
 * form "(combined from similar events): ..." is parsed like the plain one. Its spam filter (burst
 * 25 per source and object, then one per 5 minutes) drops Events: a gap is expected, and the exit
 * code inference covers a kill whose Events were dropped. Events present at start are a baseline.
 *
 * Memory: per observed pod its containers' last state (forgetPod on removal), per container ID one
 * result per probe, and per probe Event its last count, capped at `maxEvents` (oldest first).
 */
interface ProbeRun {
  thresholds: ProbeThresholds;
  /** Consecutive failed attempts seen for the current container. */
  failures: number;
  /** Event time (ms) of the last failed attempt, to tell consecutive failures from interrupted ones. */
  lastFailureAt: number | undefined;
  /** Liveness/startup after a Failure: no results until a new container (upstream onHold). */
  onHold: boolean;
}

interface ContainerRecord {
  name: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  /** '' while no container exists yet. */
  containerId: string;
  startedAtMs: number | undefined;
  /** By probe type, in PROBES order (a plain object: a Map per container cost ~200 B, 20,000 pods at 100k objects). */
  runs: ProbeRuns;
}

type ProbeRuns = Partial<Record<ProbeType, ProbeRun>>;

interface PodRecord {
  key: string;
  uid: string;
  /** A pod has a handful of containers with distinct names: an array, looked up by name. */
  containers: ContainerRecord[];
}

/** One probe's progress for the pod-worker lane: "failure 1 of failureThreshold 2". */
export interface ProbeProgress {
  container: string;
  containerId: string;
  probe: ProbeType;
  result: ProbeResult | undefined;
  failures: number;
  failureThreshold: number;
  onHold: boolean;
}

const PROBES: readonly ProbeType[] = ['liveness', 'readiness', 'startup'];

export class ProbeInference {
  private readonly pods = new Map<string, PodRecord>();
  private readonly byKey = new Map<string, string>();
  private readonly eventCounts = new Map<string, number>();
  readonly managers: Record<ProbeType, ResultsManager> = {
    liveness: new ResultsManager('liveness'),
    readiness: new ResultsManager('readiness'),
    startup: new ResultsManager('startup'),
  };

  constructor(readonly maxEvents = 10_000) {}

  observePod(pod: Pod): ProbeUpdate[] {
    const uid = pod.metadata.uid;
    const key = objectKey(pod);
    const prev = this.pods.get(uid);
    const specs = probeSpecs(pod);
    const statuses = allContainerStatuses(pod);
    // Sized once: an array grown by push keeps room for 17 (~150 B per pod, held for the pod's life).
    const rec: PodRecord = { key: prev?.key === key ? prev.key : key, uid, containers: new Array<ContainerRecord>(statuses.length) };
    let at = 0;
    const out: ProbeUpdate[] = [];
    for (const s of statuses) {
      const probes = specs.get(s.name) ?? new Map<ProbeType, ProbeThresholds>();
      // A container the pod's last observation did not show yet (its status came with a later
      // write) is new, as one it showed without an ID: only a pod seen for the first time is a baseline.
      const before = prev ? (prev.containers.find((c) => c.name === s.name) ?? newContainer(s.name, probes)) : undefined;
      const cur: ContainerRecord = {
        name: s.name,
        ready: !!s.ready,
        started: !!s.started,
        restartCount: s.restartCount ?? 0,
        containerId: s.containerID ? containerIdOf(s.containerID) : '',
        startedAtMs: parseTime(s.state?.running?.startedAt),
        runs: before && before.containerId === (s.containerID ? containerIdOf(s.containerID) : '') ? before.runs : freshRuns(probes),
      };
      rec.containers[at++] = cur;
      if (!before) {
        // Baseline: the results the kubelet holds now, without updates (we did not see them change).
        this.baseline(cur, probes);
        continue;
      }
      if (cur.restartCount > before.restartCount) out.push(...this.attributeRestart(uid, before, s, probes));
      if (cur.containerId !== before.containerId) {
        for (const t of PROBES) if (before.containerId) this.managers[t].remove(before.containerId);
        if (cur.containerId) {
          for (const t of probes.keys()) {
            if (this.managers[t].set(cur.containerId, INITIAL_RESULT[t])) {
              out.push({
                probe: t,
                result: INITIAL_RESULT[t],
                podUID: uid,
                containerId: cur.containerId,
                container: cur.name,
                // The prober sets it at its first tick after the start (up to a period later): when,
                // the workstation cannot see (the status says not ready, not started either way).
                inferred: true,
                message: 'new container: initial result',
              });
            }
          }
        }
      }
      if (!cur.containerId) continue;
      const running = !!s.state?.running;
      if (probes.has('readiness') && (cur.ready || running)) {
        const r: ProbeResult = cur.ready ? 'Success' : 'Failure';
        if (this.managers.readiness.set(cur.containerId, r)) {
          out.push({
            probe: 'readiness',
            result: r,
            podUID: uid,
            containerId: cur.containerId,
            container: cur.name,
            message: `ready ${before.ready} -> ${cur.ready}`,
          });
        }
        // Ready again: the probe succeeded, so the run of failed attempts is over.
        const run = cur.runs.readiness;
        if (cur.ready && run) run.failures = 0;
      }
      if (probes.has('startup') && cur.started && this.managers.startup.set(cur.containerId, 'Success')) {
        out.push({ probe: 'startup', result: 'Success', podUID: uid, containerId: cur.containerId, container: cur.name, message: 'started' });
      }
    }
    this.pods.set(uid, rec);
    this.byKey.set(key, uid);
    return out;
  }

  forgetPod(uid: string): void {
    const rec = this.pods.get(uid);
    if (!rec) return;
    for (const c of rec.containers) if (c.containerId) for (const t of PROBES) this.managers[t].remove(c.containerId);
    this.pods.delete(uid);
    if (this.byKey.get(rec.key) === uid) this.byKey.delete(rec.key);
  }

  /** Forgets the pods of `namespace` (all when undefined) that a fresh list no longer shows. */
  retainPods(seen: ReadonlySet<string>, namespace?: string): void {
    for (const rec of [...this.pods.values()]) {
      if (seen.has(rec.uid)) continue;
      if (namespace === undefined || rec.key.startsWith(`${namespace}/`)) this.forgetPod(rec.uid);
    }
  }

  knowsEvent(uid: string): boolean {
    return this.eventCounts.has(uid);
  }

  /** Records an Event that existed before we started watching: no update, but its count is known. */
  baselineEvent(ev: KubeEvent): void {
    if (isProbeEvent(ev)) this.remember(ev.metadata.uid, countOf(ev));
  }

  /** An Event was added or modified: its new occurrences are probe attempts (Unhealthy) or kills (Killing). */
  observeEvent(ev: KubeEvent): ProbeUpdate[] {
    if (!isProbeEvent(ev)) return [];
    const count = countOf(ev);
    const seen = this.eventCounts.get(ev.metadata.uid);
    if (seen !== undefined && count <= seen) return [];
    this.remember(ev.metadata.uid, count);
    const attempts = count - (seen ?? 0);
    const probe = probeOfEvent(ev);
    if (!probe) return [];
    const io = ev.involvedObject;
    const uid = io.uid || this.byKey.get(io.namespace ? `${io.namespace}/${io.name}` : (io.name ?? ''));
    if (!uid) return [];
    const name = containerNameOf(io.fieldPath);
    const c = name ? this.pods.get(uid)?.containers.find((x) => x.name === name) : undefined;
    if (!c || !c.containerId) return []; // no container to attribute it to (its restart inference will tell)
    const at = parseTime(ev.lastTimestamp as string | undefined) ?? parseTime((ev as { eventTime?: string }).eventTime);
    // An Event about the container before this one (it restarted since): the restart already said it.
    if (at !== undefined && c.startedAtMs !== undefined && at < c.startedAtMs) return [];
    const run = c.runs[probe];
    if (!run || run.onHold) return [];
    const message = stripCombined(ev.message ?? '');
    if (ev.reason === 'Killing') {
      // The kubelet says it killed the container for this probe: the result is Failure, no inference.
      run.onHold = true;
      run.failures = 0;
      if (!this.managers[probe].set(c.containerId, 'Failure')) return [];
      return [{ probe, result: 'Failure', podUID: uid, containerId: c.containerId, container: c.name, message }];
    }
    // Unhealthy: `attempts` more failed attempts. A gap longer than two periods since the last one
    // means an attempt in between succeeded (successes leave no Event): the run starts over.
    const gapMs = 2 * run.thresholds.periodSeconds * 1000 + 1000;
    if (attempts === 1 && at !== undefined && run.lastFailureAt !== undefined && at - run.lastFailureAt > gapMs) run.failures = 0;
    run.failures += attempts;
    if (at !== undefined) run.lastFailureAt = at;
    // readiness results are the kubelet's `ready` flag (observePod); its Events only count attempts.
    if (probe === 'readiness' || run.failures < run.thresholds.failureThreshold) return [];
    const n = run.failures;
    run.onHold = true; // liveness or startup: the kubelet kills the container now
    run.failures = 0;
    if (!this.managers[probe].set(c.containerId, 'Failure')) return [];
    return [
      {
        probe,
        result: 'Failure',
        podUID: uid,
        containerId: c.containerId,
        container: c.name,
        inferred: true,
        message: `${message} (failure ${n} of failureThreshold ${run.thresholds.failureThreshold})`,
      },
    ];
  }

  forgetEvent(uid: string): void {
    this.eventCounts.delete(uid);
  }

  /** Each probe's progress for a pod (the pod-worker lane's "failure n of failureThreshold"). */
  progress(uid: string): ProbeProgress[] {
    const rec = this.pods.get(uid);
    if (!rec) return [];
    const out: ProbeProgress[] = [];
    for (const c of rec.containers) {
      for (const probe of PROBES) {
        const run = c.runs[probe];
        if (!run) continue;
        out.push({
          container: c.name,
          containerId: c.containerId,
          probe,
          result: c.containerId ? this.managers[probe].get(c.containerId) : undefined,
          failures: run.failures,
          failureThreshold: run.thresholds.failureThreshold,
          onHold: run.onHold,
        });
      }
    }
    return out;
  }

  get podCount(): number {
    return this.pods.size;
  }

  get eventCount(): number {
    return this.eventCounts.size;
  }

  private baseline(c: ContainerRecord, probes: Map<ProbeType, ProbeThresholds>): void {
    if (!c.containerId) return;
    if (probes.has('liveness')) this.managers.liveness.set(c.containerId, 'Success');
    if (probes.has('readiness')) this.managers.readiness.set(c.containerId, c.ready ? 'Success' : 'Failure');
    if (probes.has('startup')) this.managers.startup.set(c.containerId, c.started ? 'Success' : 'Unknown');
  }

  /**
   * The container restarted. Liveness (or startup) failed only if the kubelet killed it: a Killing
   * Event already set Failure for the old container (nothing to add), or the exit code says a
   * signal killed it and it was not OOMKilled (inferred).
   */
  private attributeRestart(uid: string, before: ContainerRecord, s: ContainerStatus, probes: Map<ProbeType, ProbeThresholds>): ProbeUpdate[] {
    const last = s.lastState?.terminated;
    const oldId = before.containerId;
    if (!last || !oldId) return [];
    if (last.containerID && containerIdOf(last.containerID) !== oldId) return []; // more than one restart between observations
    if (exitCause(last) !== 'Killed') return [];
    // A container that never reported started was killed by its startup probe, otherwise by liveness.
    const probe: ProbeType | undefined = probes.has('startup') && !before.started ? 'startup' : probes.has('liveness') ? 'liveness' : undefined;
    if (!probe || this.managers[probe].get(oldId) === 'Failure') return [];
    this.managers[probe].set(oldId, 'Failure');
    return [
      {
        probe,
        result: 'Failure',
        podUID: uid,
        containerId: oldId,
        container: s.name,
        inferred: true,
        message: `restartCount ${before.restartCount} -> ${s.restartCount}, ${describeExit(last)}: killed by a signal, no Killing Event seen`,
      },
    ];
  }

  private remember(uid: string, count: number): void {
    this.eventCounts.delete(uid);
    this.eventCounts.set(uid, count);
    while (this.eventCounts.size > this.maxEvents) this.eventCounts.delete(this.eventCounts.keys().next().value!);
  }
}

/** A container's record before it had an instance: no ID, not ready, not started. */
function newContainer(name: string, probes: Map<ProbeType, ProbeThresholds>): ContainerRecord {
  return { name, ready: false, started: false, restartCount: 0, containerId: '', startedAtMs: undefined, runs: freshRuns(probes) };
}

function freshRuns(probes: Map<ProbeType, ProbeThresholds>): ProbeRuns {
  const runs: ProbeRuns = {};
  for (const t of PROBES) {
    const thresholds = probes.get(t);
    if (thresholds) runs[t] = { thresholds, failures: 0, lastFailureAt: undefined, onHold: false };
  }
  return runs;
}

function probeSpecs(pod: Pod): Map<string, Map<ProbeType, ProbeThresholds>> {
  const out = new Map<string, Map<ProbeType, ProbeThresholds>>();
  const all: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  for (const c of all) {
    const m = new Map<ProbeType, ProbeThresholds>();
    if (c.livenessProbe) m.set('liveness', thresholdsOf(c.livenessProbe, 'liveness'));
    if (c.readinessProbe) m.set('readiness', thresholdsOf(c.readinessProbe, 'readiness'));
    if (c.startupProbe) m.set('startup', thresholdsOf(c.startupProbe, 'startup'));
    out.set(c.name, m);
  }
  return out;
}
