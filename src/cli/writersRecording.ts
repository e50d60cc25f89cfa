/**
 * `kubeloop writers --recording FILE [--at T]`: the recorded changes replayed into the writers model
 * (core/writers) on a clock that reads the recording's time, so the report is the one `kubeloop
 * writers` printed live, second by second (or once, at T).
 *
 * What is replayed: every change after the recording's first complete keyframe, in recorded order,
 * each as the watch delivered it (an added key as ADDED, a deleted one as DELETED with its last
 * recorded state). The keyframe's objects are where it starts, not writes, as a live run starts
 * from now. Who wrote each version is read from the recorded managedFields (format 4,
 * core/recorder/managed.ts); a recording of an older format, or one whose watches did not keep
 * managedFields, names no manager: its writes count under "(unknown)".
 *
 * Guarantees: the recording is streamed (one block at a time, and the state of the objects whose
 * patches need it); every read takes the signal; errors are values (`{ error }`), never a throw.
 */
import { FakeClock } from '../core/clock';
import { Recording } from '../core/recorder/reader';
import { parseKey } from '../core/recorder/records';
import type { KubeObject } from '../core/kube/objects/types';
import { parseInstant } from '../app/recording/recordedTimeline';
import type { WriterStats } from '../core/writers/stats';

export interface RecordedWritersRun {
  /** The model, given the clock the replay moves (its time: ms since the recording's start). */
  stats: (clock: FakeClock) => Pick<WriterStats, 'observe'>;
  /** Called once the clock exists, before any change (the live report's one-second tick goes here). */
  started?: (clock: FakeClock, wallStart: number) => void;
}

/** T of `--at T`: an ISO time, `+SECONDS` from the start, or a clock time (recordedTimeline.ts); undefined when outside the recording. */
export function recordingInstant(text: string, range: { start: number; end: number }): number | undefined {
  const iso = /^\d{4}-\d{2}-\d{2}T/.test(text.trim()) ? Date.parse(text) : NaN;
  if (!Number.isNaN(iso)) return iso >= range.start && iso <= range.end ? iso : undefined;
  return parseInstant(text, range);
}

/**
 * Replays `path` up to `at` (default its end); resolves with the clock (at `at`, or the end) once
 * every change up to then was observed, or with what went wrong.
 */
export async function replayWriters(
  path: string,
  atText: string | undefined,
  run: RecordedWritersRun,
  signal: AbortSignal,
): Promise<{ clock: FakeClock; wallStart: number } | { error: string }> {
  let rec: Recording;
  try {
    rec = await Recording.open(path, signal);
  } catch (e) {
    return { error: `cannot open recording ${path}: ${(e as Error).message}` };
  }
  try {
    const kf = rec.keyframes[0];
    if (!kf) return { error: `${path}: the recording has no complete keyframe to start from` };
    let until = rec.range.end;
    if (atText !== undefined) {
      const t = recordingInstant(atText, rec.range);
      if (t === undefined)
        return {
          error: `--at ${atText}: not an instant of the recording (${new Date(rec.range.start).toISOString()} to ${new Date(rec.range.end).toISOString()}; an ISO time, +SECONDS or HH:MM:SS)`,
        };
      until = t;
    }
    const clock = new FakeClock();
    const t0 = kf.t;
    const stats = run.stats(clock);
    run.started?.(clock, t0);
    // Objects stay JSON text until a change needs them (RecordedObjects).
    const state = await rec.objectsAt(kf.t, signal);
    for await (const r of rec.changesAfter(kf, signal)) {
      if (r.t > until) break;
      const p = parseKey(r.key);
      if (!p) continue;
      if (r.t - t0 > clock.now()) await clock.advance(r.t - t0 - clock.now());
      if (r.op === 'D') {
        const before = state.get(r.key);
        state.apply(r.key, r);
        if (before) stats.observe('DELETED', p, before as KubeObject);
        continue;
      }
      state.apply(r.key, r);
      const after = state.get(r.key);
      if (after) stats.observe(r.op === 'A' ? 'ADDED' : 'MODIFIED', p, after as KubeObject);
    }
    if (until - t0 > clock.now()) await clock.advance(until - t0 - clock.now());
    return { clock, wallStart: t0 };
  } catch (e) {
    if (signal.aborted) throw e;
    return { error: `${path}: ${(e as Error).message}` };
  } finally {
    rec.close();
  }
}
