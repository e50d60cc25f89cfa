/**
 * How the simulated kubelet's image pulls go, when asked to be realistic (`KubeletOptions.imagePulls`;
 * without it every pull takes PULL_MS, in parallel, and succeeds, as the tests long assumed).
 *
 * - A pull takes the image's seconds (by image reference as written in the spec, else the default).
 * - Pulls on one node run one after another (the kubelet's serializeImagePulls, default true): a pull
 *   waits for the node's previous ones, so the Pulled message's two durations differ as a real
 *   kubelet's do: "in <pull> (<waiting + pull> including waiting)".
 * - A pod's first pull of an image fails when a hash of (seed, pod, image) falls under failRate (a
 *   registry's passing 503): the same pod names and seed fail the same pulls; the retry succeeds.
 *   A failure is Failed + "Error: ErrImagePull", then at the next sync BackOff + "Error:
 *   ImagePullBackOff", and the retry after the image back-off (upstream's per pod and image: 10 s,
 *   doubling to 300 s).
 */
import { hex64 } from './ids';

export interface ImagePulls {
  /** Simulated seconds a pull takes, per image as the spec writes it. */
  seconds?: Record<string, number>;
  /** For images not in `seconds` (default PULL_MS). */
  defaultSeconds?: number;
  /** One pull at a time per node (default true). */
  serialize?: boolean;
  /** The fraction of (pod, image) pairs whose first pull fails, 0..1 (default 0). */
  failRate?: number;
  seed?: number;
}

export const IMAGE_BACKOFF_INITIAL_MS = 10_000;
export const IMAGE_BACKOFF_MAX_MS = 300_000;

/** One planned pull: when it ends (simulated ms) and what it reports. */
export interface PlannedPull {
  endSim: number;
  pullMs: number;
  /** From the request (Pulling) to the end: what the Pulled message calls "including waiting". */
  withWaitingMs: number;
  fails: boolean;
}

export class PullPlanner {
  /** Per node: the simulated instant its pull queue is free. */
  private readonly freeAt = new Map<string, number>();

  constructor(
    private readonly plan: ImagePulls | undefined,
    private readonly defaultMs: number,
  ) {}

  /** Reserves the node's puller for one pull asked for at `nowSim`. */
  pull(node: string, image: string, pod: string, attempt: number, nowSim: number): PlannedPull {
    const p = this.plan;
    const secs = p?.seconds?.[image] ?? p?.defaultSeconds;
    const pullMs = secs !== undefined ? Math.max(0, Math.round(secs * 1000)) : this.defaultMs;
    const serial = p !== undefined && p.serialize !== false;
    const start = serial ? Math.max(nowSim, this.freeAt.get(node) ?? nowSim) : nowSim;
    const endSim = start + pullMs;
    if (serial) this.freeAt.set(node, endSim);
    const rate = p?.failRate ?? 0;
    const fails = attempt === 1 && rate > 0 && parseInt(hex64('pull', p?.seed ?? 1, pod, image).slice(0, 8), 16) / 0x1_0000_0000 < rate;
    return { endSim, pullMs, withWaitingMs: endSim - nowSim, fails };
  }

  /** The image back-off before retry `attempt` (2 = the first retry). */
  static backoffMs(attempt: number): number {
    return Math.min(IMAGE_BACKOFF_MAX_MS, IMAGE_BACKOFF_INITIAL_MS * 2 ** Math.max(0, attempt - 2));
  }
}
