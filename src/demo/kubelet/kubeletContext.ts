/** What every pod worker shares: the store, time, the event recorder and the node registry. */
import type { ObjectStore } from '../store';
import { TimerGroup, type KubeletClock } from './kubeletClock';
import type { LogStore } from './logs';
import type { NodeRegistry } from './nodes';
import type { PullPlanner } from './imagePulls';
import { kubeTimestamp, type EventRecorder } from './eventRecorder';

export class KubeletContext {
  private readonly clockBase: number;
  /** Images already present on each node (so a restart says "already present on machine"). */
  private readonly images = new Map<string, Set<string>>();

  constructor(
    readonly store: ObjectStore,
    readonly clock: KubeletClock,
    readonly speed: number,
    private readonly wallBase: number,
    readonly recorder: EventRecorder,
    readonly nodes: NodeRegistry,
    readonly onError: (e: unknown) => void,
    /** Where containers' logs are written (the API server reads them), if anywhere. */
    readonly logs?: LogStore,
    /** How long pulls take and which fail (./imagePulls.ts); unset: PULL_MS each, in parallel, all succeed. */
    readonly pulls?: PullPlanner,
  ) {
    this.clockBase = clock.now();
  }

  /** Simulated milliseconds since the kubelet started (real elapsed time times speed). */
  simNow(): number {
    return (this.clock.now() - this.clockBase) * this.speed;
  }

  /** Wall-clock milliseconds for timestamps: real elapsed time, so ages agree with the store's. */
  wallNow(): number {
    return this.wallBase + (this.clock.now() - this.clockBase);
  }

  timestamp(): string {
    return kubeTimestamp(this.wallNow());
  }

  newTimers(): TimerGroup {
    return new TimerGroup(this.clock, this.speed, this.onError);
  }

  imagesOn(node: string): Set<string> {
    let s = this.images.get(node);
    if (!s) this.images.set(node, (s = new Set()));
    return s;
  }
}
