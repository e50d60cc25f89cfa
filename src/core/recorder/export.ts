/**
 * Exports of a recording (or of a live timeline's records): JSON lines, and the Chrome Trace Event
 * format that Perfetto and chrome://tracing open.
 *
 * Trace layout: one process per lane group ("sync loop": one thread per source; "loader": one
 * thread per worker; "watch": one thread per type, an instant per delta; "Events": one instant per
 * core/v1 Event written), named by "M" metadata events. Spans are complete "X" events with
 * integer microsecond `ts` (since the recording's start) and `dur`.
 *
 * Guarantee: no two spans on one track (pid, tid) overlap: the spans of a lane are sorted by start
 * and each goes on the first sub-track free at its start ("config", "config #2", ...), so viewers
 * never see a torn or mis-nested slice. Objects are already masked in the records; the export adds
 * nothing from outside them.
 */
import type { TimelineEvent } from '../timeline/events';
import { isEventKey, parseKey, type Obj, type RecordingRecord } from './records';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'i' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  s?: 'g' | 'p' | 't';
  cat?: string;
  args?: Record<string, unknown>;
}

const PID = { sync: 1, loader: 2, watch: 3, events: 4, controllers: 5, kubelet: 6, writers: 7 } as const;
const PROCESS_NAMES: Record<number, string> = {
  1: 'sync loop',
  2: 'loader',
  3: 'watch',
  4: 'Events',
  5: 'controllers',
  6: 'kubelet (its own log)',
  7: 'writers (field managers)',
};

interface Span {
  pid: number;
  lane: string;
  start: number; // µs
  end: number; // µs
  name: string;
  cat: string;
  args: Record<string, unknown>;
}

/** One JSON line per record, with an ISO time beside the epoch-ms `t`. */
export function jsonLine(r: RecordingRecord): string {
  return JSON.stringify({ time: new Date(r.t).toISOString(), ...r });
}

function spanOf(e: TimelineEvent, endWall: number, origin: number): Span | undefined {
  const us = (ms: number) => Math.round((ms - origin) * 1000);
  if (e.kind === 'iteration') {
    const { kind: _k, t: _t, durationMs, ...args } = e;
    return { pid: PID.sync, lane: e.source, start: us(endWall - durationMs), end: us(endWall), name: `${e.op} ${e.key}`.trim(), cat: e.source, args };
  }
  if (e.kind === 'reconcile') {
    // The demo cluster's controllers (their lanes in the timeline), one span per reconcile.
    const { kind: _k, t: _t, durationMs, ...args } = e;
    return {
      pid: PID.controllers,
      lane: `controller/${e.controller}`,
      start: us(endWall - durationMs),
      end: us(endWall),
      name: `${e.handler} ${e.key}`,
      cat: 'controller',
      args,
    };
  }
  if (e.kind === 'kubelet') {
    // A real kubelet's own log line (a lab node), on its node's lane.
    const { kind: _k, t: _t, durationMs, raw: _raw, ...args } = e;
    return {
      pid: PID.kubelet,
      lane: `kubelet ${e.node}`,
      start: us(endWall - durationMs),
      end: us(endWall),
      name: `${e.source} ${e.op} ${e.key}`.trim(),
      cat: 'kubelet',
      args,
    };
  }
  if (e.kind === 'writes') {
    // A busy field manager's writes over one window (core/writers), on its manager's lane.
    const { kind: _k, t: _t, durationMs, ...args } = e;
    return {
      pid: PID.writers,
      lane: `writer ${e.manager}`,
      start: us(endWall - durationMs),
      end: us(endWall),
      name: `${e.writes} writes`,
      cat: 'writers',
      args,
    };
  }
  if (e.phase !== 'finish') return undefined;
  const { kind: _k, t: _t, ...args } = e;
  const type = e.gvr.group ? `${e.gvr.resource}.${e.gvr.group}` : e.gvr.resource;
  return {
    pid: PID.loader,
    lane: `worker ${e.worker}`,
    start: us(endWall - (e.durationMs ?? 0)),
    end: us(endWall),
    name: `list ${type}${e.namespace ? ` -n ${e.namespace}` : ''}`,
    cat: 'loader',
    args,
  };
}

/**
 * The trace of a record stream as its parts, in order: written one by one by `write`, so a large
 * recording is never one string. Spans are held (to lay out sub-tracks) until the end.
 */
export async function writeTrace(records: AsyncIterable<RecordingRecord>, write: (chunk: string) => Promise<void>): Promise<{ events: number }> {
  let origin: number | undefined;
  let header: Obj | undefined;
  const spans: Span[] = [];
  const instants: TraceEvent[] = [];
  const watchTids = new Map<string, number>();
  for await (const r of records) {
    origin ??= r.k === 'H' ? r.startedAt : r.t;
    if (r.k === 'H') header ??= { context: r.context, server: r.server, startedAt: new Date(r.startedAt).toISOString() };
    else if (r.k === 'T') {
      const s = spanOf(r.e, r.t, origin);
      if (s) spans.push(s);
    } else if (r.k === 'D') {
      const ts = Math.round((r.t - origin) * 1000);
      const k = parseKey(r.key);
      if (isEventKey(r.key)) {
        if (r.op === 'D') continue;
        const o = r.o ?? {};
        instants.push({
          name: String(o.reason ?? r.key),
          ph: 'i',
          s: 't',
          pid: PID.events,
          tid: 1,
          ts,
          cat: 'event',
          args: { key: r.key, op: r.op, ...(o.message ? { message: o.message } : {}) },
        });
      } else {
        const type = k?.type ?? '?';
        let tid = watchTids.get(type);
        if (tid === undefined) watchTids.set(type, (tid = watchTids.size + 1));
        instants.push({ name: `${r.op} ${r.key}`, ph: 'i', s: 't', pid: PID.watch, tid, ts, cat: 'watch', args: { key: r.key, op: r.op } });
      }
    }
  }
  // Sub-tracks: per lane, by start; each span on the first sub-track whose last span has ended.
  const out: TraceEvent[] = [];
  const tidNames = new Map<string, { pid: number; tid: number; name: string }>();
  const byLane = new Map<string, Span[]>();
  for (const s of spans) {
    const id = `${s.pid}\u0000${s.lane}`;
    let l = byLane.get(id);
    if (!l) byLane.set(id, (l = []));
    l.push(s);
  }
  let laneNo = 0;
  for (const lane of [...byLane.values()].sort((a, b) => a[0]!.pid - b[0]!.pid || a[0]!.lane.localeCompare(b[0]!.lane))) {
    laneNo++;
    lane.sort((a, b) => a.start - b.start || a.end - b.end);
    const ends: number[] = [];
    for (const s of lane) {
      let sub = ends.findIndex((e) => e <= s.start);
      if (sub < 0) sub = ends.push(0) - 1;
      ends[sub] = s.end;
      const tid = laneNo * 100 + sub;
      tidNames.set(`${s.pid}/${tid}`, { pid: s.pid, tid, name: sub ? `${s.lane} #${sub + 1}` : s.lane });
      out.push({ name: s.name, ph: 'X', pid: s.pid, tid, ts: s.start, dur: s.end - s.start, cat: s.cat, args: s.args });
    }
  }
  for (const [type, tid] of watchTids) tidNames.set(`${PID.watch}/${tid}`, { pid: PID.watch, tid, name: type });
  if (instants.some((e) => e.pid === PID.events)) tidNames.set(`${PID.events}/1`, { pid: PID.events, tid: 1, name: 'Events' });
  const meta: TraceEvent[] = [];
  const pids = new Set([...tidNames.values()].map((t) => t.pid));
  for (const pid of pids) {
    meta.push({ name: 'process_name', ph: 'M', pid, tid: 0, args: { name: PROCESS_NAMES[pid] } });
    meta.push({ name: 'process_sort_index', ph: 'M', pid, tid: 0, args: { sort_index: pid } });
  }
  for (const t of tidNames.values()) {
    meta.push({ name: 'thread_name', ph: 'M', pid: t.pid, tid: t.tid, args: { name: t.name } });
    meta.push({ name: 'thread_sort_index', ph: 'M', pid: t.pid, tid: t.tid, args: { sort_index: t.tid } });
  }
  await write(`{"displayTimeUnit":"ms","otherData":${JSON.stringify(header ?? {})},"traceEvents":[\n`);
  let n = 0;
  let batch: string[] = [];
  for (const e of [...meta, ...out, ...instants]) {
    batch.push((n++ ? ',' : '') + JSON.stringify(e));
    if (batch.length >= 1000) {
      await write(batch.join('\n') + '\n');
      batch = [];
    }
  }
  await write(batch.join('\n') + '\n]}\n');
  return { events: n };
}
