/**
 * Container logs of the kubelet simulation: one log per container instance (a restart starts a
 * new one; the kubelet keeps the previous instance's, readable with `previous=true`), written as
 * the instance runs from its output plan (./output.ts).
 *
 * Guarantees:
 * - Lazy and timer-free: a log materialises its plan's lines up to "now" when it is read or told
 *   to; the next line's wall time (nextDueWall) lets a follower wait for it with its own timer,
 *   tied to its request's lifetime.
 * - Bounded like the kubelet's log rotation: at most MAX_LOG_BYTES (and MAX_LOG_LINES) per
 *   instance; older lines are dropped first, and a series running for days materialises only the
 *   iterations that can still be kept.
 * - An ended log (the instance exited or was killed) never grows again; listeners hear of every
 *   new line and of the end, and forget() ends every log of a pod (its followers finish).
 */
import type { LogStream, OutputLine, OutputPlan } from './output';

export const MAX_LOG_BYTES = 1024 * 1024;
export const MAX_LOG_LINES = 10_000;

export interface LogEntry {
  /** Wall-clock ms (fractional: sub-ms precision for RFC3339Nano timestamps). */
  wallMs: number;
  stream: LogStream;
  text: string;
}

interface Pending {
  at: number;
  order: number;
  line: OutputLine;
  k: number;
}

export class ContainerLog {
  private readonly kept: LogEntry[] = [];
  private head = 0;
  private bytes = 0;
  /** Entries ever written; kept[head + i] is entry number `written - (kept.length - head) + i`. */
  private written = 0;
  /** Plan lines up to this offset (simulated ms since start) are materialised. */
  private doneTo = -1;
  private endedWall?: number;
  private readonly listeners = new Set<() => void>();

  constructor(
    /** The container ID of the instance. */
    readonly id: string,
    private readonly plan: OutputPlan,
    /** Wall-clock ms of the instance's start. */
    readonly startWall: number,
    /** Simulated ms per wall ms (the kubelet's speed). */
    private readonly speed: number,
    private readonly now: () => number,
    endWall?: number,
  ) {
    if (endWall !== undefined) this.end(endWall);
  }

  get ended(): boolean {
    return this.endedWall !== undefined;
  }

  private wallOf(offset: number): number {
    return this.startWall + offset / this.speed;
  }

  /** Materialises the plan's lines due by wall time `wall` (never past the end). */
  advance(wall = this.now()): void {
    const until = Math.min(wall, this.endedWall ?? Infinity);
    const to = (until - this.startWall) * this.speed;
    if (to <= this.doneTo) return;
    const due: Pending[] = [];
    let order = 0;
    for (const line of this.plan.lines) {
      if (line.at > this.doneTo && line.at <= to) due.push({ at: line.at, order: order++, line, k: 0 });
    }
    for (const s of this.plan.series) {
      if (!s.body.length || s.periodMs <= 0 || to < s.fromMs) continue;
      const last = Math.floor((to - s.fromMs) / s.periodMs);
      let first = Math.max(0, Math.floor((this.doneTo - s.fromMs) / s.periodMs) - 1);
      // Only the iterations that can still be kept.
      first = Math.max(first, last - Math.ceil(MAX_LOG_LINES / s.body.length));
      for (let k = first; k <= last; k++) {
        for (const line of s.body) {
          const at = s.fromMs + k * s.periodMs + line.at;
          if (at > this.doneTo && at <= to) due.push({ at, order: order++, line, k });
        }
      }
    }
    this.doneTo = to;
    if (!due.length) return;
    due.sort((a, b) => a.at - b.at || a.order - b.order);
    for (const p of due.slice(-MAX_LOG_LINES)) {
      const w = this.wallOf(p.at);
      this.push({ wallMs: w, stream: p.line.stream, text: p.line.text(w, p.k) });
    }
    this.notify();
  }

  private push(e: LogEntry): void {
    this.kept.push(e);
    this.written++;
    this.bytes += Buffer.byteLength(e.text) + 1;
    while (this.kept.length - this.head > MAX_LOG_LINES || (this.bytes > MAX_LOG_BYTES && this.kept.length - this.head > 1)) {
      this.bytes -= Buffer.byteLength(this.kept[this.head]!.text) + 1;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Ends the log at wall time `wall` (the instance's exit or kill): lines due by then are written. */
  end(wall = this.now()): void {
    if (this.ended) return;
    this.advance(wall);
    this.endedWall = wall;
    this.notify();
    this.listeners.clear();
  }

  /** Kept entries numbered from `from` on (all kept when `from` is older), after advancing. */
  read(from = 0): { entries: LogEntry[]; next: number } {
    this.advance();
    const firstKept = this.written - (this.kept.length - this.head);
    const start = this.head + Math.max(0, from - firstKept);
    return { entries: this.kept.slice(start), next: this.written };
  }

  /** Wall time of the next line the plan will write, if the log has not ended. */
  nextDueWall(): number | undefined {
    if (this.ended) return undefined;
    let next = Infinity;
    for (const line of this.plan.lines) if (line.at > this.doneTo) next = Math.min(next, line.at);
    for (const s of this.plan.series) {
      if (!s.body.length || s.periodMs <= 0) continue;
      const k = Math.max(0, Math.floor((this.doneTo - s.fromMs) / s.periodMs));
      for (const kk of [k, k + 1]) {
        for (const line of s.body) {
          const at = s.fromMs + kk * s.periodMs + line.at;
          if (at > this.doneTo) next = Math.min(next, at);
        }
      }
    }
    return Number.isFinite(next) ? this.wallOf(next) : undefined;
  }

  /** Wall ms until the next planned line (0 if overdue), undefined when none will come. */
  untilNext(): number | undefined {
    const due = this.nextDueWall();
    return due === undefined ? undefined : Math.max(0, due - this.now());
  }

  /** Calls fn after new lines or the end; returns the unsubscribe. An ended log calls nothing. */
  subscribe(fn: () => void): () => void {
    if (this.ended) return () => {};
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(): void {
    for (const fn of [...this.listeners]) fn();
  }
}

/** The logs of one container: its current instance and the one before. */
interface ContainerLogs {
  current?: ContainerLog;
  previous?: ContainerLog;
}

/** Every pod's container logs, by pod UID and container name. */
export class LogStore {
  private readonly pods = new Map<string, Map<string, ContainerLogs>>();

  /** A new instance of the container starts: the current log becomes the previous one. */
  start(uid: string, container: string, log: ContainerLog): void {
    let pod = this.pods.get(uid);
    if (!pod) this.pods.set(uid, (pod = new Map()));
    const logs = pod.get(container) ?? {};
    if (logs.current?.id === log.id) return;
    if (logs.current) {
      logs.current.end();
      logs.previous = logs.current;
    }
    logs.current = log;
    pod.set(container, logs);
  }

  /** The instance's log ends (it exited, or was killed). */
  end(uid: string, container: string, id: string, wall?: number): void {
    const log = this.pods.get(uid)?.get(container)?.current;
    if (log?.id === id) log.end(wall);
  }

  /** The log of the container instance with this ID, if the kubelet still keeps it. */
  find(uid: string, container: string, id: string): ContainerLog | undefined {
    const logs = this.pods.get(uid)?.get(container);
    return [logs?.current, logs?.previous].find((l) => l?.id === id);
  }

  /** The pod is gone: its logs end (followers finish) and are dropped. */
  forget(uid: string): void {
    for (const logs of this.pods.get(uid)?.values() ?? []) {
      logs.current?.end();
      logs.previous?.end();
    }
    this.pods.delete(uid);
  }

  get size(): number {
    return this.pods.size;
  }
}

/**
 * A log too big to keep, for testing readers against it: the pod annotation GENERATED_LOG_ANNOTATION
 * (`"104857600"`) makes each of its containers' instances a log of that many bytes (rounded down to
 * whole lines of GENERATED_LINE_BYTES), every line computed from its index and never stored, all
 * written within the instance's first second (one line every 1e3/lines ms).
 */
export const GENERATED_LOG_ANNOTATION = 'demo.kubeloop.dev/log-bytes';
export const GENERATED_LINE_BYTES = 100;

export class GeneratedLog {
  readonly lines: number;

  constructor(
    bytes: number,
    /** Wall-clock ms of the instance's start. */
    readonly startWall: number,
  ) {
    this.lines = Math.max(0, Math.floor(bytes / GENERATED_LINE_BYTES));
  }

  /** The pod's generated log size, if it asks for one. */
  static bytesOf(annotations: Record<string, string> | undefined): number | undefined {
    const v = annotations?.[GENERATED_LOG_ANNOTATION];
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  }

  wallOf(i: number): number {
    return this.startWall + (i * 1000) / Math.max(1, this.lines);
  }

  /** The first line written at or after `wall`. */
  firstAtOrAfter(wall: number): number {
    const i = Math.ceil(((wall - this.startWall) * Math.max(1, this.lines)) / 1000);
    return Math.min(this.lines, Math.max(0, i));
  }

  /** Line i without its newline: GENERATED_LINE_BYTES - 1 ASCII characters. */
  text(i: number): string {
    const head = `line ${String(i).padStart(10, '0')} `;
    return head + 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3).slice(0, GENERATED_LINE_BYTES - 1 - head.length);
  }
}
