/**
 * One container of a simulated pod: its runtime state as the kubelet would report it in
 * status.containerStatuses, its probe workers' counters, and its restart back-off.
 */
import type { TimerGroup } from './kubeletClock';
import type { ContainerSpec, ProbeType, ProbeVerdict, ResolvedProbe } from './probes';
import type { FileTimeline } from './runtime';

export interface Terminated {
  exitCode: number;
  reason: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
  /** Simulated time of the exit, for the back-off. */
  finishedSim: number;
}

export type ContainerState =
  { kind: 'waiting'; reason: string; message?: string } | { kind: 'running'; startedAt: string; startedSim: number } | ({ kind: 'terminated' } & Terminated);

export interface ProbeWorkerState {
  probe: ResolvedProbe;
  /** Computed once per container start: a pure function of spec, pod IP and container age. */
  verdict: ProbeVerdict;
  successRun: number;
  failureRun: number;
  /** Liveness/startup stop after a failure until the container is replaced, as upstream's onHold. */
  onHold: boolean;
}

export class ContainerRuntime {
  state: ContainerState;
  lastTerminated?: Terminated;
  restartCount = 0;
  /** How many times a container was created for this spec (containerID input). */
  attempt = 0;
  containerID?: string;
  imageID?: string;
  ready = false;
  started = false;
  /** Between "start requested" and "created" (pulling, creating). */
  starting = false;
  /** Init container finished with exit code 0. */
  completed = false;
  /** Upstream flowcontrol.Backoff entry: current delay and when it was last raised (simulated ms). */
  backoff?: { ms: number; lastUpdateSim: number };
  readonly probes = new Map<ProbeType, ProbeWorkerState>();
  /** The current instance's PID 1 ignores SIGTERM: a deletion stops it only at the grace period's end (137). */
  ignoresSigterm = false;
  /** Files the current instance's script creates and removes over time. */
  files: FileTimeline = new Map();

  constructor(
    public spec: ContainerSpec,
    public readonly init: boolean,
    /** Timers of the current container instance: probes and the planned exit; cancelled on kill. */
    public readonly timers: TimerGroup,
    waitingReason: string,
  ) {
    this.state = { kind: 'waiting', reason: waitingReason };
  }

  get name(): string {
    return this.spec.name;
  }

  /** A restartable init container (restartPolicy: Always) is a sidecar: it keeps running. */
  get sidecar(): boolean {
    return this.init && this.spec.restartPolicy === 'Always';
  }

  get running(): boolean {
    return this.state.kind === 'running';
  }

  get fieldPath(): string {
    return `${this.init ? 'spec.initContainers' : 'spec.containers'}{${this.name}}`;
  }
}
