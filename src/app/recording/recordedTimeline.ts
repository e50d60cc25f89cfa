/**
 * A recording's timeline as the timeline webview draws it, without VS Code: the recorded events on
 * the recording's own time axis (ms since the recording started), the banner that marks the panel
 * as a recording, and the instant an event stands for (what the Recording tree shows when the user
 * picks it).
 *
 * A timeline event's `t` is on the recording process's monotonic clock, relative to its timeline's
 * origin; a record's `t` is the wall clock when the recorder was told (at or after the event). So
 * the wall clock of that origin is at most the smallest `record.t - event.t`, and that smallest
 * value is the estimate used: exact to the delay of the most promptly recorded event (well under a
 * millisecond for a sync-loop tick).
 */
import type { TimelineRecord } from '../../core/recorder/records';
import type { TimelineEvent } from '../../core/timeline/events';
import { clockTime } from './liveRecording';

/** The recorded events with `t` (and a pod worker's `nextDueT`) in ms since `start`, oldest first. */
export function recordedTimeline(records: readonly TimelineRecord[], start: number): TimelineEvent[] {
  let origin = Infinity;
  for (const r of records) origin = Math.min(origin, r.t - r.e.t);
  if (!Number.isFinite(origin)) return [];
  const shift = origin - start;
  return records.map((r) => {
    const e = { ...r.e, t: round3(r.e.t + shift) } as TimelineEvent;
    if (e.kind === 'iteration' && e.worker?.nextDueT !== undefined) e.worker = { ...e.worker, nextDueT: round3(e.worker.nextDueT + shift) };
    return e;
  });
}

/** The wall-clock instant an event (on the recording's axis) stands for: its end, when what it handled had happened. */
export function instantOf(e: TimelineEvent, start: number): number {
  const duration = e.kind === 'task' ? 0 : e.durationMs;
  return Math.round(start + e.t + Math.max(0, duration));
}

/** The panel's banner: which recording, its span, read-only, and the instant the tree shows. */
export function recordingBanner(file: string, range: { start: number; end: number }, at?: number): string {
  const base = `Recording ${file} — ${clockTime(range.start)}..${clockTime(range.end)} (read-only)`;
  return at === undefined ? base : `${base} · the Recording view shows the cluster at ${clockTime(at)}`;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * The instant a user typed for "Recording: Go to Time...": `HH:MM[:SS[.mmm]]` on the local clock
 * (on the recording's first day, or the next when the recording spans midnight), or `+SECONDS` from
 * the start. Undefined when it is not a time or not within the recording.
 */
export function parseInstant(text: string, range: { start: number; end: number }): number | undefined {
  const s = text.trim();
  let t: number | undefined;
  const rel = /^\+(\d+(?:\.\d+)?)$/.exec(s);
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?$/.exec(s);
  if (rel) t = range.start + Math.round(Number(rel[1]) * 1000);
  else if (clock) {
    const [h, m, sec] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    if (h > 23 || m > 59 || sec > 59) return undefined;
    const d = new Date(range.start);
    d.setHours(h, m, sec, clock[4] ? Math.round(Number(clock[4]) * 1000) : 0);
    t = d.getTime();
    // `HH:MM` names a whole minute and `HH:MM:SS` a whole second: the start's own second counts as in.
    const grain = clock[4] ? 1 : clock[3] ? 1000 : 60_000;
    if (t + grain <= range.start) {
      d.setDate(d.getDate() + 1);
      t = d.getTime();
    }
    if (t < range.start && t + grain > range.start) t = range.start;
  }
  if (t === undefined || t < range.start || t > range.end) return undefined;
  return t;
}
