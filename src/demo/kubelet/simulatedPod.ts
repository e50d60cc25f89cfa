/**
 * SimulatedPod: the simulated kubelet's per-pod state machine (upstream: one pod worker per UID in
 * pod_workers.go, driving kuberuntime's SyncPod and the prober workers).
 *
 * Lifecycle: sandbox -> init containers one by one -> containers (pull, create, start) -> probes;
 * a failed liveness/startup probe kills the container, which restarts under the pod's
 * restartPolicy with the kubelet's crash back-off (10 s doubling to 5 min, reset after 10 min);
 * a deletionTimestamp stops every container, writes the terminal status and removes the pod.
 *
 * Guarantees:
 * - Every effect is a store write: status through the status subresource (coalesced to one write
 *   per microtask turn), Events through the recorder. Nothing here throws to its caller: timer
 *   callbacks report errors to the context's onError.
 * - Every timer belongs to the worker's or a container's TimerGroup; stop() cancels them all, and
 *   a write finding the pod gone (or replaced by a new UID) stops the worker.
 * - Probe ticks are aligned to the worker's start, every periodSeconds, as upstream's ticker; a
 *   probe whose outcome can only be success stops ticking once its effect is applied, so a running,
 *   ready pod costs no timers at all.
 */
import type { DemoObject } from '../store';
import { ContainerRuntime, type ContainerState, type ProbeWorkerState, type Terminated } from './container';
import type { KubeletContext } from './kubeletContext';
import { containerIDFor, hex64, imageIDFor, normalizeImage } from './ids';
import { PullPlanner } from './imagePulls';
import { alwaysSucceeds, evaluateProbe, resolveProbe, type ContainerSpec, type ProbeOutcome, type ProbeType } from './probes';
import { ContainerLog } from './logs';
import { planOutput } from './output';
import { planProcess } from './runtime';
import { buildPodStatus, qosClassOf } from './status';

/** Simulated durations of the runtime's steps. */
export const SANDBOX_MS = 300;
export const PULL_MS = 700;
export const CREATE_MS = 100;
export const KILL_MS = 300;
export const TERMINATE_MS = 500;
/** The kubelet's pod sync period while a pod waits (its 1 s resync of a pod in back-off). */
const SYNC_MS = 1000;
/** Upstream kubelet.go: backOffPeriod and MaxContainerBackOff. */
export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;

const PROBE_TYPES: ProbeType[] = ['startup', 'readiness', 'liveness'];

interface PodSpec {
  nodeName?: string;
  containers?: ContainerSpec[];
  initContainers?: ContainerSpec[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
}

/** Go's time.Duration String() for whole seconds and milliseconds: 10s, 1m20s, 5m0s, 700ms. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  if (s < 60) return `${+s.toFixed(3)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${+(s - m * 60).toFixed(3)}s`;
}

function pullPolicyOf(c: ContainerSpec): string {
  if (c.imagePullPolicy) return c.imagePullPolicy;
  const image = c.image ?? '';
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  return !last.includes(':') || last.endsWith(':latest') ? 'Always' : 'IfNotPresent';
}

function asTerminated(s: ContainerState): Terminated | undefined {
  if (s.kind !== 'terminated') return undefined;
  const { kind: _k, ...t } = s;
  return t;
}

export class SimulatedPod {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string;
  private pod: DemoObject;
  private readonly timers;
  private readonly initContainers: ContainerRuntime[];
  private readonly containers: ContainerRuntime[];
  private readonly restartPolicy: string;
  private readonly qosClass: string;
  private hostIP = '';
  private podIP?: string;
  private sandboxReady = false;
  private startTime = '';
  private forcedPhase?: 'Failed' | 'Succeeded';
  /** Probe ticks are multiples of periodSeconds after this simulated instant. */
  private readonly epochSim: number;
  private stopped = false;
  private terminating = false;
  /** Whether the API object is deleted once the containers stop (a deletion: yes; a deadline: no). */
  private deleteWhenStopped = true;
  /** status.reason / status.message of a pod the kubelet failed itself (DeadlineExceeded). */
  private statusReason?: { reason: string; message: string };
  /** Simulated instant the termination began and its grace period (only ever shortened). */
  private termStartSim = 0;
  private graceMs = 0;
  private flushQueued = false;
  /** Pull attempts of each container's image since its last successful pull (the failure plan's input). */
  private readonly pullAttempts = new Map<string, number>();

  constructor(
    private readonly ctx: KubeletContext,
    pod: DemoObject,
  ) {
    this.pod = pod;
    this.uid = pod.metadata.uid ?? '';
    this.namespace = pod.metadata.namespace ?? 'default';
    this.name = pod.metadata.name;
    const spec = (pod.spec ?? {}) as PodSpec;
    this.nodeName = spec.nodeName ?? '';
    this.restartPolicy = spec.restartPolicy ?? 'Always';
    this.timers = ctx.newTimers();
    this.epochSim = ctx.simNow();
    const hasInit = (spec.initContainers?.length ?? 0) > 0;
    const mk = (c: ContainerSpec, init: boolean) => new ContainerRuntime(c, init, ctx.newTimers(), hasInit ? 'PodInitializing' : 'ContainerCreating');
    this.initContainers = (spec.initContainers ?? []).map((c) => mk(c, true));
    this.containers = (spec.containers ?? []).map((c) => mk(c, false));
    this.qosClass = qosClassOf([...(spec.initContainers ?? []), ...(spec.containers ?? [])]);
  }

  private get all(): ContainerRuntime[] {
    return [...this.initContainers, ...this.containers];
  }

  /** upstream format.Pod: name_namespace(uid). */
  private get podFullName(): string {
    return `${this.name}_${this.namespace}(${this.uid})`;
  }

  /** Starts the pod, or adopts what its status says is already running. */
  begin(): void {
    this.hostIP = this.ctx.nodes.ensure(this.nodeName);
    const st = (this.pod.status ?? {}) as { podIP?: string; startTime?: string; containerStatuses?: unknown[] };
    if (st.podIP && Array.isArray(st.containerStatuses) && st.containerStatuses.length > 0) this.adopt();
    else this.fresh();
    if (this.pod.metadata.deletionTimestamp) this.terminate();
    else this.scheduleActiveDeadline();
  }

  /** The latest pod object; a deletionTimestamp starts termination. */
  update(pod: DemoObject): void {
    if (this.stopped || pod.metadata.uid !== this.uid) return;
    this.pod = pod;
    // A readiness gate's condition is written by others: Ready is recomputed from it.
    if (((pod.spec as { readinessGates?: unknown[] } | undefined)?.readinessGates ?? []).length) this.markDirty();
    if (!pod.metadata.deletionTimestamp) return;
    if (!this.terminating) return this.terminate();
    if (!this.deleteWhenStopped) {
      // Deleted while the deadline's kill runs (or after it): the kubelet deletes it once stopped.
      this.deleteWhenStopped = true;
      if (this.all.every((c) => c.state.kind !== 'running')) return this.finishTermination();
    }
    const grace = this.gracePeriodMs();
    if (grace < this.graceMs) {
      // Upstream: a shorter grace period replaces the running one's; never a longer one.
      this.graceMs = grace;
      this.scheduleStops();
    }
  }

  stop(): void {
    if (!this.stopped) this.ctx.logs?.forget(this.uid);
    this.stopped = true;
    this.timers.cancelAll(true);
    for (const c of this.all) c.timers.cancelAll(true);
  }

  /** Pending timers of this worker (for tests and leak checks). */
  get pendingTimers(): number {
    return this.timers.size + this.all.reduce((n, c) => n + c.timers.size, 0);
  }

  private fresh(): void {
    this.startTime = this.ctx.timestamp();
    this.markDirty();
    this.timers.after(SANDBOX_MS, () => {
      this.podIP = this.ctx.nodes.allocatePodIP(this.nodeName);
      this.sandboxReady = true;
      this.markDirty();
      this.startNext();
    });
  }

  private adopt(): void {
    const st = this.pod.status as Record<string, unknown>;
    this.podIP = String(st.podIP);
    this.sandboxReady = true;
    this.startTime = typeof st.startTime === 'string' ? st.startTime : this.ctx.timestamp();
    const now = this.ctx.simNow();
    const wall = this.ctx.wallNow();
    const simOf = (t: unknown) => now - Math.max(0, wall - (typeof t === 'string' ? Date.parse(t) || wall : wall));
    const statuses = [
      ...((st.initContainerStatuses as Record<string, any>[] | undefined) ?? []),
      ...((st.containerStatuses as Record<string, any>[] | undefined) ?? []),
    ];
    for (const c of this.all) {
      const cs = statuses.find((s) => s?.name === c.name);
      if (!cs) continue;
      c.restartCount = Number(cs.restartCount ?? 0);
      c.attempt = c.restartCount + 1;
      c.containerID = cs.containerID ?? containerIDFor(this.uid, c.name, c.attempt);
      c.imageID = cs.imageID || imageIDFor(c.spec.image ?? '');
      const toTerm = (t: Record<string, any>): Terminated => ({
        exitCode: Number(t.exitCode ?? 0),
        reason: String(t.reason ?? 'Error'),
        startedAt: String(t.startedAt ?? ''),
        finishedAt: String(t.finishedAt ?? ''),
        containerID: String(t.containerID ?? c.containerID),
        finishedSim: simOf(t.finishedAt),
      });
      if (cs.lastState?.terminated) c.lastTerminated = toTerm(cs.lastState.terminated);
      const s = cs.state ?? {};
      if (s.running) {
        c.state = { kind: 'running', startedAt: String(s.running.startedAt ?? this.ctx.timestamp()), startedSim: simOf(s.running.startedAt) };
        c.ready = cs.ready === true;
        c.started = cs.started !== false;
      } else if (s.terminated) {
        c.state = { kind: 'terminated', ...toTerm(s.terminated) };
        c.completed = c.init && c.state.exitCode === 0;
      } else if (c.lastTerminated) {
        c.state = { kind: 'waiting', reason: String(s.waiting?.reason ?? 'CrashLoopBackOff'), message: s.waiting?.message };
      } else {
        c.attempt = 0; // never ran: startNext() creates it
      }
    }
    for (const c of this.all) {
      if (c.state.kind === 'running') this.onRunning(c, true);
      else if (c.state.kind === 'terminated' && !c.completed) this.handleExit(c, c.state.exitCode);
      else if (c.state.kind === 'waiting' && c.lastTerminated) this.restartWithBackoff(c);
    }
    this.startNext();
    this.markDirty();
  }

  /** Starts the next init container, or (initialisation done) every container not started yet. */
  private startNext(): void {
    if (this.stopped || this.terminating || this.forcedPhase) return;
    for (const c of this.initContainers) {
      if (c.sidecar) {
        if (c.attempt === 0) {
          if (!c.starting) this.startContainer(c, () => this.startNext());
          return;
        }
        continue;
      }
      if (c.completed) continue;
      if (c.attempt === 0 && !c.starting) this.startContainer(c);
      return;
    }
    const pending = this.containers.filter((c) => c.attempt === 0 && !c.starting);
    for (const c of pending) {
      if (c.state.kind === 'waiting' && c.state.reason === 'PodInitializing') c.state = { kind: 'waiting', reason: 'ContainerCreating' };
    }
    if (pending.length) this.markDirty();
    const chain = (i: number): void => {
      if (i < pending.length) this.startContainer(pending[i]!, () => chain(i + 1));
    };
    chain(0);
  }

  /** Pull (if needed), create and start one container; `then` runs once it is running. */
  private startContainer(c: ContainerRuntime, then?: () => void): void {
    c.starting = true;
    const image = c.spec.image ?? '';
    const policy = pullPolicyOf(c.spec);
    const cache = this.ctx.imagesOn(this.nodeName);
    const ref = this.ref(c);
    const create = () => {
      c.starting = false;
      if (this.terminating) return;
      c.attempt++;
      if (c.attempt > 1) c.restartCount++;
      const prev = asTerminated(c.state);
      if (prev) c.lastTerminated = prev;
      c.containerID = containerIDFor(this.uid, c.name, c.attempt);
      c.imageID = imageIDFor(image);
      this.ctx.recorder.record(ref, 'Normal', 'Created', `Created container: ${c.name}`, this.source);
      this.ctx.recorder.record(ref, 'Normal', 'Started', `Started container ${c.name}`, this.source);
      c.state = { kind: 'running', startedAt: this.ctx.timestamp(), startedSim: this.ctx.simNow() };
      this.onRunning(c, false);
      this.markDirty();
      then?.();
    };
    if (policy === 'Always' || (policy !== 'Never' && !cache.has(image))) this.pullImage(c, image, create, then);
    else {
      this.ctx.recorder.record(ref, 'Normal', 'Pulled', `Container image "${image}" already present on machine`, this.source);
      this.timers.after(CREATE_MS, create);
    }
  }

  /**
   * upstream EnsureImageExists: Pulling, then Pulled with the pull's two durations ("in X (Y
   * including waiting)", Y counting the wait for the node's puller), or with a failed attempt
   * Failed + ErrImagePull, at the next sync BackOff + ImagePullBackOff, and a retry after the back-off.
   */
  private pullImage(c: ContainerRuntime, image: string, create: () => void, then: (() => void) | undefined): void {
    const ref = this.ref(c);
    const attempt = (this.pullAttempts.get(c.name) ?? 0) + 1;
    this.pullAttempts.set(c.name, attempt);
    const now = this.ctx.simNow();
    const plan = this.ctx.pulls?.pull(this.nodeName, image, this.podFullName, attempt, now) ?? {
      endSim: now + PULL_MS,
      pullMs: PULL_MS,
      withWaitingMs: PULL_MS,
      fails: false,
    };
    this.ctx.recorder.record(ref, 'Normal', 'Pulling', `Pulling image "${image}"`, this.source);
    this.timers.after(plan.endSim - now, () => {
      if (plan.fails) return this.pullFailed(c, image, then);
      this.ctx.imagesOn(this.nodeName).add(image);
      this.pullAttempts.delete(c.name);
      const size = 10_000_000 + (parseInt(hex64('size', image).slice(0, 8), 16) % 190_000_000);
      this.ctx.recorder.record(
        ref,
        'Normal',
        'Pulled',
        `Successfully pulled image "${image}" in ${goDuration(plan.pullMs)} (${goDuration(plan.withWaitingMs)} including waiting). Image size: ${size} bytes.`,
        this.source,
      );
      this.timers.after(CREATE_MS, create);
    });
  }

  private pullFailed(c: ContainerRuntime, image: string, then: (() => void) | undefined): void {
    const ref = this.ref(c);
    const why = `rpc error: code = Unknown desc = failed to pull and unpack image "${normalizeImage(image)}": unexpected status code 503 Service Unavailable`;
    this.ctx.recorder.record(ref, 'Warning', 'Failed', `Failed to pull image "${image}": ${why}`, this.source);
    this.ctx.recorder.record(ref, 'Warning', 'Failed', 'Error: ErrImagePull', this.source);
    const prev = asTerminated(c.state);
    if (prev) c.lastTerminated = prev;
    c.state = { kind: 'waiting', reason: 'ErrImagePull', message: why };
    this.markDirty();
    const backoff = PullPlanner.backoffMs(this.pullAttempts.get(c.name)! + 1);
    this.timers.after(SYNC_MS, () => {
      this.ctx.recorder.record(ref, 'Normal', 'BackOff', `Back-off pulling image "${image}"`, this.source);
      this.ctx.recorder.record(ref, 'Warning', 'Failed', 'Error: ImagePullBackOff', this.source);
      c.state = { kind: 'waiting', reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: ${why}` };
      this.markDirty();
    });
    this.timers.after(backoff, () => this.startContainer(c, then));
  }

  /** A container is running: plan its exit, set up its probes. `adopted` keeps reported ready/started. */
  private onRunning(c: ContainerRuntime, adopted: boolean): void {
    if (c.state.kind !== 'running') return;
    const startedSim = c.state.startedSim;
    const plan = planProcess(c.spec, this.restartPolicy, c.init && !c.sidecar);
    c.files = plan.files;
    this.startLog(c, startedSim, adopted);
    const exit = plan.exit;
    c.ignoresSigterm = plan.ignoresSigterm === true;
    if (exit)
      c.timers.after(Math.max(0, startedSim + exit.afterMs - this.ctx.simNow()), () =>
        this.containerExited(c, exit.exitCode, exit.reason, startedSim + exit.afterMs),
      );
    c.probes.clear();
    if (!c.init || c.sidecar) {
      for (const type of PROBE_TYPES) {
        const probe = resolveProbe(type, c.spec[`${type}Probe`] as never);
        if (probe) {
          const verdict = evaluateProbe(probe, c.spec, this.podIP ?? '', c.files);
          c.probes.set(type, { probe, verdict, successRun: 0, failureRun: 0, onHold: false });
        }
      }
    }
    const startup = c.probes.get('startup');
    if (adopted && c.started) return this.afterStarted(c, true);
    if (startup) {
      c.started = false;
      c.ready = false;
      this.scheduleProbe(c, startup);
    } else {
      c.started = true;
      this.afterStarted(c, false);
    }
  }

  /** The instance's log: what its process writes, from its start on (./output.ts). */
  private startLog(c: ContainerRuntime, startedSim: number, adopted: boolean): void {
    const logs = this.ctx.logs;
    if (!logs || !c.containerID || c.state.kind !== 'running') return;
    const plan = planOutput(c.spec, { hostIP: this.hostIP, podName: this.name });
    // An adopted container started when its status says (wall time); one started here, at its start.
    const adoptedAt = adopted ? Date.parse(c.state.startedAt) : NaN;
    const startWall = Number.isNaN(adoptedAt) ? this.ctx.wallNow() - (this.ctx.simNow() - startedSim) / this.ctx.speed : adoptedAt;
    logs.start(this.uid, c.name, new ContainerLog(c.containerID, plan, startWall, this.ctx.speed, () => this.ctx.wallNow()));
  }

  private afterStarted(c: ContainerRuntime, adopted: boolean): void {
    const readiness = c.probes.get('readiness');
    if (!readiness) c.ready = true;
    else if (!(adopted && c.ready && alwaysSucceeds(readiness.verdict))) {
      if (!adopted) c.ready = false;
      // Upstream triggers the readiness worker as soon as the container is started.
      const due = (c.state.kind === 'running' ? c.state.startedSim : 0) + readiness.probe.initialDelayMs - this.ctx.simNow();
      this.scheduleProbe(c, readiness, Math.max(0, due));
    }
    const liveness = c.probes.get('liveness');
    if (liveness && !alwaysSucceeds(liveness.verdict)) this.scheduleProbe(c, liveness);
    this.markDirty();
  }

  private scheduleProbe(c: ContainerRuntime, w: ProbeWorkerState, delayMs?: number): void {
    const period = w.probe.periodMs;
    const elapsed = this.ctx.simNow() - this.epochSim;
    const delay = delayMs ?? (Math.floor(elapsed / period) + 1) * period - elapsed;
    c.timers.after(delay, () => this.runProbe(c, w));
  }

  private runProbe(c: ContainerRuntime, w: ProbeWorkerState): void {
    if (this.terminating || w.onHold || c.state.kind !== 'running') return;
    if (this.ctx.simNow() - c.state.startedSim < w.probe.initialDelayMs) return this.scheduleProbe(c, w);
    const type = w.probe.type;
    const outcome: ProbeOutcome = 'constant' in w.verdict ? w.verdict.constant : w.verdict.at(this.ctx.simNow() - c.state.startedSim);
    if (outcome.ok) {
      w.successRun++;
      w.failureRun = 0;
      if (type === 'startup') {
        c.started = true;
        return this.afterStarted(c, false);
      }
      if (type === 'readiness') {
        if (!c.ready && w.successRun >= w.probe.successThreshold) {
          c.ready = true;
          this.markDirty();
        }
        if (!c.ready || !alwaysSucceeds(w.verdict)) this.scheduleProbe(c, w);
      } else if (type === 'liveness') {
        this.scheduleProbe(c, w);
      }
      return;
    }
    w.failureRun++;
    w.successRun = 0;
    this.ctx.recorder.record(this.ref(c), 'Warning', 'Unhealthy', outcome.message ?? '', this.source);
    if (w.failureRun >= w.probe.failureThreshold) {
      if (type === 'readiness') {
        if (c.ready) {
          c.ready = false;
          this.markDirty();
        }
      } else {
        w.onHold = true;
        return this.killContainer(c, `Container ${c.name} failed ${type} probe`, type);
      }
    }
    this.scheduleProbe(c, w);
  }

  /**
   * A probe's kill, as the kubelet's killContainer: the runtime is asked to stop the container within
   * the grace period (the probe's terminationGracePeriodSeconds, else the pod's, else 30 s; at least
   * 2 s). A process that handles SIGTERM exits at once (0, Completed); one that ignores it (a shell
   * script as PID 1, a bare sleep) runs until the SIGKILL at the period's end (137, Error): the
   * kubelet's sync waits that long. The same rule as a deletion's (scheduleStops), and as the lab's
   * hollow kubelet's fake runtime.
   */
  private killContainer(c: ContainerRuntime, message: string, probe: 'liveness' | 'startup'): void {
    c.timers.cancelAll();
    const restart = this.restartPolicy !== 'Never';
    this.ctx.recorder.record(this.ref(c), 'Normal', 'Killing', restart ? `${message}, will be restarted` : message, this.source);
    const spec = (this.pod.spec ?? {}) as PodSpec;
    const probeGrace = (c.spec[probe === 'liveness' ? 'livenessProbe' : 'startupProbe'] as { terminationGracePeriodSeconds?: number } | undefined)
      ?.terminationGracePeriodSeconds;
    const graceMs = Math.max(2, probeGrace ?? spec.terminationGracePeriodSeconds ?? 30) * 1000;
    if (c.ignoresSigterm) this.timers.after(graceMs, () => this.containerExited(c, 137, 'Error'));
    else this.timers.after(Math.min(KILL_MS, graceMs), () => this.containerExited(c, 0, 'Completed'));
  }

  /** `atSim`: the planned exit's instant (a timer may fire a little early): its lines are all written. */
  private containerExited(c: ContainerRuntime, exitCode: number, reason?: string, atSim?: number): void {
    if (c.state.kind !== 'running') return;
    c.timers.cancelAll();
    const late = Math.max(0, (atSim ?? 0) - this.ctx.simNow()) / this.ctx.speed;
    if (c.containerID) this.ctx.logs?.end(this.uid, c.name, c.containerID, this.ctx.wallNow() + late);
    c.state = {
      kind: 'terminated',
      exitCode,
      reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
      startedAt: c.state.startedAt,
      finishedAt: this.ctx.timestamp(),
      containerID: c.containerID ?? '',
      finishedSim: this.ctx.simNow(),
    };
    c.ready = false;
    c.started = false;
    this.markDirty();
    if (!this.terminating) this.handleExit(c, exitCode);
  }

  private handleExit(c: ContainerRuntime, exitCode: number): void {
    if (c.init && !c.sidecar) {
      if (exitCode === 0) {
        c.completed = true;
        return this.startNext();
      }
      if (this.restartPolicy === 'Never') {
        this.forcedPhase = 'Failed';
        return this.markDirty();
      }
      return this.restartWithBackoff(c);
    }
    const restart = c.sidecar || this.restartPolicy === 'Always' || (this.restartPolicy === 'OnFailure' && exitCode !== 0);
    if (restart) this.restartWithBackoff(c);
  }

  /** upstream doBackOff: restart now (raising the back-off), or wait in CrashLoopBackOff. */
  private restartWithBackoff(c: ContainerRuntime): void {
    if (this.terminating || this.stopped) return;
    const now = this.ctx.simNow();
    const last = asTerminated(c.state) ?? c.lastTerminated;
    const b = c.backoff;
    const expired = b !== undefined && now - b.lastUpdateSim > 2 * BACKOFF_MAX_MS;
    if (b && !expired && last && now - last.finishedSim < b.ms) {
      if (c.state.kind === 'terminated') c.lastTerminated = last;
      c.state = {
        kind: 'waiting',
        reason: 'CrashLoopBackOff',
        message: `back-off ${goDuration(b.ms)} restarting failed container=${c.name} pod=${this.podFullName}`,
      };
      this.markDirty();
      this.ctx.recorder.record(this.ref(c), 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${this.podFullName}`, this.source);
      this.timers.after(last.finishedSim + b.ms - now, () => this.restartWithBackoff(c));
      return;
    }
    c.backoff = !b || expired ? { ms: BACKOFF_INITIAL_MS, lastUpdateSim: now } : { ms: Math.min(2 * b.ms, BACKOFF_MAX_MS), lastUpdateSim: now };
    this.startContainer(c);
  }

  /**
   * Graceful deletion (upstream killPod): SIGTERM to every running container, SIGKILL to those still
   * running when the grace period (deletionGracePeriodSeconds, else terminationGracePeriodSeconds,
   * else 30 s) ends. A container that handles SIGTERM stops promptly (exit 0); one whose PID 1
   * ignores it (a shell script, a bare sleep) runs until the SIGKILL (exit 137). Once every
   * container has stopped the kubelet reports the terminal phase, then deletes the pod from the API.
   * A shorter grace period arriving meanwhile (kubectl delete --grace-period=0 --force after a
   * plain delete) brings the SIGKILL forward.
   */
  private terminate(): void {
    if (this.terminating || this.stopped) return;
    this.terminating = true;
    this.timers.cancelAll();
    for (const c of this.all) c.timers.cancelAll();
    const running = this.all.filter((c) => c.state.kind === 'running');
    for (const c of running) this.ctx.recorder.record(this.ref(c), 'Normal', 'Killing', `Stopping container ${c.name}`, this.source);
    this.termStartSim = this.ctx.simNow();
    this.graceMs = this.gracePeriodMs();
    this.scheduleStops();
    if (running.length === 0) this.finishTermination();
  }

  private gracePeriodMs(): number {
    const spec = (this.pod.spec ?? {}) as PodSpec;
    const g = (this.pod.metadata.deletionGracePeriodSeconds as number | undefined) ?? spec.terminationGracePeriodSeconds ?? 30;
    return Math.max(0, g) * 1000;
  }

  /** (Re)schedules each running container's stop for the current grace period. */
  private scheduleStops(): void {
    for (const c of this.all) {
      if (c.state.kind !== 'running') continue;
      c.timers.cancelAll();
      const killAt = this.termStartSim + this.graceMs;
      const termAt = c.ignoresSigterm ? killAt : Math.min(this.termStartSim + TERMINATE_MS, killAt);
      const sigkill = c.ignoresSigterm || (termAt >= killAt && this.graceMs < TERMINATE_MS);
      c.timers.after(Math.max(0, termAt - this.ctx.simNow()), () => {
        this.containerExited(c, sigkill ? 137 : 0, sigkill ? 'Error' : 'Completed');
        if (this.all.every((x) => x.state.kind !== 'running')) this.finishTermination();
      });
    }
  }

  /**
   * upstream activeDeadlineHandler: once spec.activeDeadlineSeconds have passed since
   * status.startTime (wall clock, as the kubelet compares them), the kubelet's next sync (its 1 s
   * tick) fails the pod: phase Failed, reason DeadlineExceeded, and stops its containers within
   * the grace period. The pod stays in the API (nothing deleted it).
   */
  private scheduleActiveDeadline(): void {
    const ads = (this.pod.spec as { activeDeadlineSeconds?: unknown } | undefined)?.activeDeadlineSeconds;
    if (typeof ads !== 'number' || ads <= 0) return;
    const start = Date.parse(this.startTime) || this.ctx.wallNow();
    const realDelay = Math.max(0, start + ads * 1000 - this.ctx.wallNow());
    // The next whole sync tick after the deadline; timers count simulated ms, the deadline is wall time.
    const tick = Math.ceil(realDelay / 1000) * 1000 + 1000;
    this.timers.after(tick * this.ctx.speed, () => this.deadlineExceeded());
  }

  private deadlineExceeded(): void {
    if (this.terminating || this.stopped || this.forcedPhase) return;
    this.terminating = true;
    this.deleteWhenStopped = false;
    this.timers.cancelAll();
    for (const c of this.all) c.timers.cancelAll();
    this.forcedPhase = 'Failed';
    this.statusReason = { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' };
    const running = this.all.filter((c) => c.state.kind === 'running');
    for (const c of running) this.ctx.recorder.record(this.ref(c), 'Normal', 'Killing', `Stopping container ${c.name}`, this.source);
    this.termStartSim = this.ctx.simNow();
    const spec = (this.pod.spec ?? {}) as PodSpec;
    this.graceMs = Math.max(0, spec.terminationGracePeriodSeconds ?? 30) * 1000;
    this.markDirty();
    this.scheduleStops();
  }

  private finishTermination(): void {
    if (this.stopped) return;
    if (!this.deleteWhenStopped) return this.markDirty(); // the deadline's kill: the pod stays, Failed
    const failed = this.all.some((c) => c.state.kind === 'terminated' && c.state.exitCode !== 0);
    this.forcedPhase = this.statusReason ? 'Failed' : failed ? 'Failed' : 'Succeeded';
    this.flush();
    const cur = this.ctx.store.get('', 'pods', this.namespace, this.name);
    if (cur && cur.metadata.uid === this.uid) {
      try {
        // The kubelet's status manager deletes with a grace period of 0: the API server writes that
        // first (watchers see a DELETE), then removes the pod (a REMOVE), as it does for a real kubelet.
        if (cur.metadata.deletionGracePeriodSeconds !== 0) {
          this.ctx.store.update('', 'pods', {
            ...cur,
            metadata: {
              ...cur.metadata,
              deletionTimestamp: cur.metadata.deletionTimestamp ?? new Date(this.ctx.wallNow()).toISOString().replace(/\.\d+Z$/, 'Z'),
              deletionGracePeriodSeconds: 0,
            },
          });
        }
        this.ctx.store.delete('', 'pods', this.namespace, this.name);
      } catch (e) {
        this.ctx.onError(e);
      }
    }
    this.stop();
  }

  private get source() {
    return { component: 'kubelet', host: this.nodeName };
  }

  private ref(c: ContainerRuntime) {
    return {
      kind: 'Pod',
      apiVersion: 'v1',
      name: this.name,
      namespace: this.namespace,
      uid: this.uid,
      resourceVersion: this.pod.metadata.resourceVersion,
      fieldPath: c.fieldPath,
    };
  }

  /** Coalesces status changes made in one turn into one status write. */
  private markDirty(): void {
    if (this.flushQueued || this.stopped) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.stopped) return;
    try {
      const cur = this.ctx.store.get('', 'pods', this.namespace, this.name);
      if (!cur || cur.metadata.uid !== this.uid) return this.stop();
      const previous = cur.status as Record<string, unknown> | undefined;
      const status = buildPodStatus(previous, {
        containers: this.containers,
        initContainers: this.initContainers,
        restartPolicy: this.restartPolicy,
        hostIP: this.hostIP,
        podIP: this.podIP,
        sandboxReady: this.sandboxReady,
        startTime: this.startTime,
        qosClass: this.qosClass,
        forcedPhase: this.forcedPhase,
        readinessGates: ((this.pod.spec as { readinessGates?: { conditionType?: string }[] } | undefined)?.readinessGates ?? []).map((g) =>
          String(g.conditionType ?? ''),
        ),
        now: this.ctx.timestamp(),
        ...(cur.metadata.generation !== undefined ? { observedGeneration: cur.metadata.generation } : {}),
        ...(this.statusReason ? { reason: this.statusReason } : {}),
      });
      if (JSON.stringify(status) === JSON.stringify(previous)) return;
      this.ctx.store.update('', 'pods', { ...cur, status }, { subresource: 'status', manager: 'kubelet' });
    } catch (e) {
      this.ctx.onError(e);
    }
  }
}
