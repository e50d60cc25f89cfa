/**
 * The kubelet's and the scheduler's Events about one pod, read for start-up: which container each
 * is about, when it happened, and what a Pulled Event says the pull took.
 *
 * Times: a core/v1 Event carries `eventTime` (microseconds) when a new-style recorder wrote it, else
 * `firstTimestamp` / `lastTimestamp` (seconds: metav1.Time is written to the second). A repeated
 * Event (the correlator's count > 1) keeps its first time and moves its last, so both are kept.
 */
import { parseGoDuration } from './goDuration';

/** The Event fields read here (core/v1; a server may leave any out). */
export interface EventLike {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
}

export interface PodEvent {
  reason: string;
  message: string;
  warning: boolean;
  /** The container it is about (fieldPath `spec.containers{NAME}` / `spec.initContainers{NAME}`). */
  container?: string;
  init: boolean;
  /** Epoch ms of its first and last occurrence, and which field each was read from. */
  first?: number;
  firstField: string;
  last?: number;
  lastField: string;
  count: number;
  /** `NAMESPACE/NAME` of the Event object (what a bound cites). */
  ref: string;
}

/**
 * Parsed timestamps. Second-precision times repeat across a cluster's pods and Events (a rollout's
 * hundred pods share a few dozen), and Date.parse was most of a 100,000-pod report: bounded, cleared whole.
 */
const parsed = new Map<string, number>();
const PARSED_MAX = 65_536;

/** Epoch ms of a Kubernetes timestamp; undefined when absent or unreadable. */
export function timeOf(t: unknown): number | undefined {
  if (typeof t !== 'string' || t === '') return undefined;
  let ms = parsed.get(t);
  if (ms === undefined) {
    ms = Date.parse(t);
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(t, ms);
  }
  return Number.isNaN(ms) ? undefined : ms;
}

const FIELD_PATH = /^spec\.(containers|initContainers|ephemeralContainers)\{(.+)\}$/;
/** The correlator's prefix on aggregated messages (client-go's events_cache.go). */
const COMBINED = '(combined from similar events): ';

export function readPodEvent(e: EventLike): PodEvent {
  const fp = FIELD_PATH.exec(e.involvedObject?.fieldPath ?? '');
  const eventTime = timeOf(e.eventTime);
  const firstTs = timeOf(e.firstTimestamp);
  const lastTs = timeOf(e.lastTimestamp);
  const seriesLast = timeOf(e.series?.lastObservedTime);
  const first = eventTime ?? firstTs;
  const firstField = eventTime !== undefined ? 'eventTime' : 'firstTimestamp';
  const last = seriesLast ?? lastTs ?? first;
  const lastField = seriesLast !== undefined ? 'series.lastObservedTime' : lastTs !== undefined ? 'lastTimestamp' : firstField;
  let message = String(e.message ?? '');
  if (message.startsWith(COMBINED)) message = message.slice(COMBINED.length);
  return {
    reason: String(e.reason ?? ''),
    message,
    warning: e.type === 'Warning',
    ...(fp ? { container: fp[2]! } : {}),
    init: fp?.[1] === 'initContainers',
    ...(first !== undefined ? { first } : {}),
    firstField,
    ...(last !== undefined ? { last } : {}),
    lastField,
    count: Math.max(1, Number(e.series?.count ?? e.count ?? 1) || 1),
    ref: `${e.metadata?.namespace ?? e.involvedObject?.namespace ?? ''}/${e.metadata?.name ?? ''}`,
  };
}

/** What a Pulled Event says. */
export interface PullReport {
  image: string;
  /** False: "already present on machine" (no pull). */
  pulled: boolean;
  /** The runtime's pull time ("in X"). */
  pullMs?: number;
  /** From the kubelet's Pulling to its Pulled ("(Y including waiting)", since v1.28): what its SLI subtracts. */
  withWaitingMs?: number;
  sizeBytes?: number;
}

const PULLED = /^Successfully pulled image "(.*)" in (\S+?)(?: \((\S+) including waiting\))?(?:\. Image size: (\d+) bytes)?\.?$/;
const PRESENT = /^Container image "(.*)" already present on machine/;

/** The kubelet's Pulled message (image_manager.go), any version since 1.20; undefined when it is not one. */
export function parsePulled(message: string): PullReport | undefined {
  const m = PULLED.exec(message);
  if (m) {
    const pullMs = parseGoDuration(m[2]!);
    const withWaitingMs = m[3] !== undefined ? parseGoDuration(m[3]) : undefined;
    return {
      image: m[1]!,
      pulled: true,
      ...(pullMs !== undefined ? { pullMs } : {}),
      ...(withWaitingMs !== undefined ? { withWaitingMs } : {}),
      ...(m[4] !== undefined ? { sizeBytes: Number(m[4]) } : {}),
    };
  }
  const p = PRESENT.exec(message);
  return p ? { image: p[1]!, pulled: false } : undefined;
}
