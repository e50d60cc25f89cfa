/**
 * A checker of the Chrome Trace Event format's rules (the "Trace Event Format" document that
 * chrome://tracing and Perfetto follow), for the export tests:
 * - the file is well-formed JSON: an array of events, or an object whose `traceEvents` is one;
 * - every event has a string `name`, a `ph` from the format's set, numeric `pid` and `tid`;
 * - every event but metadata has a finite, non-negative numeric `ts` in microseconds;
 * - "X" (complete) events have a numeric `dur` >= 0; "B"/"E" pairs match per (pid, tid) in time
 *   order and nest properly; spans on one track never partly overlap (nested or disjoint only);
 * - "i"/"I" instants have `s` in g/p/t when given; "M" metadata events are process_name,
 *   process_labels, process_sort_index, thread_name or thread_sort_index with an `args` object
 *   (`name` a string for the names).
 * Returns the list of violations (empty: the trace follows the rules).
 */
const PHASES = new Set(['B', 'E', 'X', 'i', 'I', 'C', 'b', 'n', 'e', 's', 't', 'f', 'P', 'N', 'O', 'D', 'M', 'V', 'v', 'R', 'c', '(', ')']);
const METADATA = new Set(['process_name', 'process_labels', 'process_sort_index', 'thread_name', 'thread_sort_index']);

type Ev = Record<string, unknown>;

export function traceViolations(text: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return [`not well-formed JSON: ${(e as Error).message}`];
  }
  const events = Array.isArray(doc) ? doc : (doc as { traceEvents?: unknown })?.traceEvents;
  if (!Array.isArray(events)) return ['no traceEvents array'];
  const bad: string[] = [];
  const spans = new Map<string, { start: number; end: number; i: number }[]>();
  const open = new Map<string, { ts: number; name: unknown; i: number }[]>();
  const timed: { e: Ev; i: number }[] = [];
  events.forEach((e: Ev, i) => {
    const where = `event ${i} (${JSON.stringify(e).slice(0, 120)})`;
    if (typeof e !== 'object' || e === null) return bad.push(`${where}: not an object`);
    if (typeof e.ph !== 'string' || !PHASES.has(e.ph)) bad.push(`${where}: ph ${JSON.stringify(e.ph)} not in the format's set`);
    if (typeof e.name !== 'string' && e.ph !== 'E') bad.push(`${where}: name is not a string`);
    if (typeof e.pid !== 'number' || typeof e.tid !== 'number') bad.push(`${where}: pid/tid not numbers`);
    if (e.ph === 'M') {
      if (!METADATA.has(e.name as string)) bad.push(`${where}: unknown metadata name`);
      if (typeof e.args !== 'object' || e.args === null) bad.push(`${where}: metadata without args`);
      else if ((e.name === 'process_name' || e.name === 'thread_name') && typeof (e.args as Ev).name !== 'string')
        bad.push(`${where}: metadata name not a string`);
      return;
    }
    if (typeof e.ts !== 'number' || !Number.isFinite(e.ts) || e.ts < 0) bad.push(`${where}: ts is not a non-negative number of microseconds`);
    if (e.ph === 'X' && (typeof e.dur !== 'number' || !Number.isFinite(e.dur) || e.dur < 0)) bad.push(`${where}: X without a dur >= 0`);
    if ((e.ph === 'i' || e.ph === 'I') && e.s !== undefined && !['g', 'p', 't'].includes(e.s as string)) bad.push(`${where}: instant scope not g/p/t`);
    timed.push({ e, i });
  });
  // B/E matching and overlap, per track, in time order (stable: file order breaks ties, as viewers do).
  timed.sort((a, b) => (a.e.ts as number) - (b.e.ts as number) || a.i - b.i);
  for (const { e, i } of timed) {
    const track = `${e.pid}/${e.tid}`;
    if (e.ph === 'B') {
      const st = open.get(track) ?? [];
      st.push({ ts: e.ts as number, name: e.name, i });
      open.set(track, st);
    } else if (e.ph === 'E') {
      const st = open.get(track);
      const b = st?.pop();
      if (!b) bad.push(`event ${i}: E on track ${track} with no open B`);
      else {
        if (e.name !== undefined && e.name !== b.name) bad.push(`event ${i}: E named ${String(e.name)} closes B ${String(b.name)} (not nested)`);
        (spans.get(track) ?? spans.set(track, []).get(track)!).push({ start: b.ts, end: e.ts as number, i: b.i });
      }
    } else if (e.ph === 'X') {
      (spans.get(track) ?? spans.set(track, []).get(track)!).push({ start: e.ts as number, end: (e.ts as number) + (e.dur as number), i });
    }
  }
  for (const [track, st] of open) for (const b of st) bad.push(`event ${b.i}: B on track ${track} never ended`);
  for (const [track, list] of spans) {
    list.sort((a, b) => a.start - b.start || b.end - a.end);
    const stack: { end: number; i: number }[] = [];
    for (const s of list) {
      while (stack.length && stack[stack.length - 1]!.end <= s.start) stack.pop();
      const top = stack[stack.length - 1];
      if (top && s.end > top.end) bad.push(`track ${track}: event ${s.i} overlaps event ${top.i} without nesting`);
      stack.push({ end: s.end, i: s.i });
    }
  }
  return bad;
}
