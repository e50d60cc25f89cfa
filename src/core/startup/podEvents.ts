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
 * Parsed timestamps other than the API server's own form. Date.parse was most of a 100,000-pod
 * report: bounded, cleared whole.
 */
const parsed = new Map<string, number>();
const PARSED_MAX = 65_536;

const digit = (t: string, i: number) => t.charCodeAt(i) - 48;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, m: number) => (m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : MONTH_DAYS[m - 1]!);
const two = (t: string, i: number) => digit(t, i) * 10 + digit(t, i + 1);

/**
 * The API server's form, `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (metav1.Time, MicroTime), read without
 * Date.parse; NaN for anything else. Same value as Date.parse gives for it: the fraction truncated
 * to the millisecond. Fields out of their usual ranges are left to Date.parse (it has its own rules).
 */
function apiTime(t: string): number {
  const n = t.length;
  if (n < 20 || t.charCodeAt(n - 1) !== 90 /* Z */ || t[4] !== '-' || t[7] !== '-' || t[10] !== 'T' || t[13] !== ':' || t[16] !== ':') return NaN;
  let end = 19;
  let ms = 0;
  if (n > 20) {
    if (t[19] !== '.' || n > 30 || n === 21) return NaN;
    for (let i = 20; i < n - 1; i++) {
      const d = digit(t, i);
      if (d < 0 || d > 9) return NaN;
      if (i < 23) ms += d * (i === 20 ? 100 : i === 21 ? 10 : 1);
    }
    end = n - 1;
  }
  for (let i = 0; i < end; i++) {
    if (i === 4 || i === 7 || i === 10 || i === 13 || i === 16 || i === 19) continue;
    const d = digit(t, i);
    if (d < 0 || d > 9) return NaN;
  }
  const year = two(t, 0) * 100 + two(t, 2);
  const month = two(t, 5);
  const day = two(t, 8);
  const h = two(t, 11);
  const m = two(t, 14);
  const sec = two(t, 17);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || h > 23 || m > 59 || sec > 59) return NaN;
  // Days since the epoch of a proleptic Gregorian date (the civil-from-days inverse), as Date.UTC counts them.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return ((days * 24 + h) * 60 + m) * 60_000 + sec * 1000 + ms;
}

/** Epoch ms of a Kubernetes timestamp; undefined when absent or unreadable. */
export function timeOf(t: unknown): number | undefined {
  if (typeof t !== 'string' || t === '') return undefined;
  let ms = apiTime(t);
  if (Number.isNaN(ms)) {
    const known = parsed.get(t);
    if (known !== undefined) ms = known;
    else {
      ms = Date.parse(t);
      if (parsed.size >= PARSED_MAX) parsed.clear();
      parsed.set(t, ms);
    }
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
