// Flight-recorder section of `npm run bench` (issue 12):
//   1. CPU overhead of recording, in ONE process (the default): a sync loop (ClusterSync, the code
//      `kubeloop sync --json` runs, its iterations serialized to /dev/null as --json prints them)
//      watches a demo cluster under churn (default 200 changes/s) over a real socket, and
//      a recording is started (as the extension's Start Recording does: a session, the loop's
//      holdings seeded) and stopped in windows, four to a group (on off off on, then off on on off);
//      the process's CPU (process.cpuUsage: every thread, the zlib pool and GC included) per wall
//      second in recording windows against the windows between, group by group, gives the overhead
//      (pooled, with a bootstrap interval; median of groups). A recording's start and stop are left
//      out (a settle time before each window); the keyframes a long recording writes (as often as
//      the writer's rule makes them due for the held set: keyframeChangesDue) are measured apart,
//      as the CPU of writing one of the held set, and added per second. Also the recorder's own CPU, attributed directly (its
//      flushes, packing and inline compression by cpuUsage, its queueing by wall time). --aa: the
//      same windows with nothing recorded (the noise floor). The windows' CPU is also split by
//      thread (/proc): the main thread against all others (V8's workers: parallel and concurrent
//      marking, optimizing compilation; libuv's pool). Target <= 5 %.
//      --two-process: also the old measure, two `kubeloop sync` processes (dist/cli.js), one with
//      --record, over the same window; /proc CPU. Two identical loops differ by -16 to +8 % here.
//   2. Bytes per recorded event on disk (the whole file, keyframes included, over every record but
//      keyframe objects), from one recording of --seconds in the same process. Target <= 150 B.
//   3. A synthetic 24-hour recording of a 100,000-object cluster, written by the recorder's own
//      writer on a fake clock (Recorder + RecordingWriter, the code `sync --record` runs): the
//      initial list, then --rate changes per second for --hours (label and status changes on pods,
//      config changes, pod deletes and creates, Events), flushed once per recorded second. Then the
//      time to open it and to rebuild the cluster at instants across it (the worst: just before a
//      keyframe). Target <= 1 s each. --managed-fields: the objects carry the managedFields an API
//      server sends (built by the demo's own field-set code: a pod's creator and the kubelet's
//      status entry, whose time moves with each status change), which recordings of format 4 keep
//      in their recorded form (core/recorder/managed.ts); the same run without the flag is the
//      recording without them, so the two give the ratio of size and of write time.
//   4. Events: the bytes 1,000 Events add to a recording, whole (format 4) against metadata only
//      (what the sync loop's metadata-only watch of Events gave before).
// Usage: node --import tsx bench/recorder.ts [--seconds 30] [--churn 200] [--groups 12] [--window 4]
//        [--settle 1] [--warmup 120] [--recorders 1] [--aa] [--two-process] [--objects 100000]
//        [--hours 24] [--rate 5] [--managed-fields] [--skip-cpu] [--skip-synthetic] [--keep]
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeClient } from '../src/core/kube';
import { Recorder } from '../src/core/recorder/recorder';
import type { SyncObserver } from '../src/core/syncloop/observer';
import { startRecording, type RecordingSession } from '../src/core/recorder/session';
import { RECORDING_DEFAULTS, RecordingWriter, keyframeChangesDue } from '../src/core/recorder/writer';
import { segmentPath } from '../src/core/recorder/segments';
import { Recording } from '../src/core/recorder/reader';
import type { Obj } from '../src/core/recorder/records';
import { ClusterSync } from '../src/core/syncloop/sources/cluster';
import type { WatchedType } from '../src/core/syncloop/sources/watchscope';
import { TimelineStore } from '../src/core/timeline/store';
import { iterationJson } from '../src/cli/sync';
import { withUpdateEntry } from '../src/demo/server/managed-fields';
import type { DemoObject } from '../src/demo/store';
import { benchArg, printChecks, type Check } from './measure';
import { statCpuMs, threadCpuMs } from './procCpu';

const arg = (name: string, dflt: number) => Number(benchArg(name, String(dflt)));
const flag = (name: string) => process.argv.includes(name);
const SECONDS = arg('--seconds', 30);
const CHURN = arg('--churn', 200);
const OBJECTS = arg('--objects', 100_000);
const HOURS = arg('--hours', 24);
const RATE = arg('--rate', 5);
/** The writer's keyframe rule (defaults: RECORDING_DEFAULTS). */
const KEYFRAME_PER_OBJECT = process.argv.includes('--keyframe-per-object') ? arg('--keyframe-per-object', 0) : undefined;
const KEYFRAME_MAX = process.argv.includes('--keyframe-max') ? arg('--keyframe-max', 0) : undefined;
const GROUPS = arg('--groups', 12);
const WINDOW_S = arg('--window', 4);
const WARMUP_S = arg('--warmup', 120);
const SETTLE_S = arg('--settle', 1);
const never = new AbortController().signal;
const root = join(__dirname, '..');
const cliJs = join(root, 'dist', 'cli.js');

function start(args: string[]): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [cliJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out, exited: new Promise((r) => child.on('exit', (c) => r(c))) };
}

async function until(what: string, f: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** CPU seconds (user + system) a process has used, from /proc/PID/stat. */
const cpuSeconds = (pid: number) => statCpuMs(`/proc/${pid}/stat`) / 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startDemo(dir: string): { demo: ReturnType<typeof start>; kc: string } {
  const kc = join(dir, 'kc');
  const demo = start(['demo-cluster', '--objects', '2000', '--seed', '7', '--churn', String(CHURN), '--no-kubelet', '--kubeconfig-out', kc]);
  return { demo, kc };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (i - lo);
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

/**
 * CPU (ms) spent inside the recorders on this thread, attributed by wrapping their entry points
 * (bench only): the writer's flush (the recorder's drain: masking, diffs, JSON, packing) and the
 * synchronous start of each write step (the data block's inline compression), by process.cpuUsage
 * (about once a second each); the observer and timeline calls (queueing, hundreds a second), by
 * wall time (a syscall each would cost more than the call). Nested calls count once. Keyframes
 * and the writes themselves are not in it (keyframes are measured apart).
 */
const attributed = { ms: 0, depth: 0 };
function attributeRecorder(): void {
  const timed = <A extends unknown[], R>(fn: (this: unknown, ...a: A) => R, byCpu: boolean) =>
    function (this: unknown, ...a: A): R {
      if (attributed.depth++ > 0) {
        try {
          return fn.apply(this, a);
        } finally {
          attributed.depth--;
        }
      }
      const c0 = byCpu ? process.cpuUsage() : undefined;
      const t0 = performance.now();
      try {
        return fn.apply(this, a);
      } finally {
        attributed.depth--;
        attributed.ms += c0 ? cpuSince(c0) : performance.now() - t0;
      }
    };
  const rec = Recorder.prototype as unknown as Record<'replace' | 'apply' | 'timeline', (...a: unknown[]) => unknown>;
  for (const m of ['replace', 'apply', 'timeline'] as const) rec[m] = timed(rec[m], false);
  const w = RecordingWriter.prototype as unknown as {
    flush: (...a: unknown[]) => unknown;
    run: (step: () => Promise<void>) => Promise<void>;
  };
  w.flush = timed(w.flush, true);
  const run = w.run;
  w.run = function (this: unknown, step: () => Promise<void>) {
    return run.call(this, timed(step, true));
  };
}

/** A full garbage collection on demand (without --expose-gc on the command line). */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

interface Window {
  on: boolean;
  /** CPU of the window, the full collection that ends it included. */
  cpuMs: number;
  /** A full collection right after that one: the fixed part of one (marking what lives). */
  fixedMs: number;
  wallMs: number;
  /** CPU of the main thread and of all other threads (threadCpuMs), the closing collection included. */
  mainMs: number;
  othersMs: number;
  /** CPU inside the recorders' calls (attributeRecorder), all of them together. */
  attributedMs: number;
  changes: number;
}

const cpuSince = (from: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1000;
};

/**
 * The overhead in one process: a sync loop against the demo cluster, recordings switched on and off
 * in windows, the process's CPU per wall second compared group by group.
 *
 * Why it is built so (measured here, 2 shared cores): the loop's CPU per second falls for minutes
 * after its start as V8 optimizes it (so a long warm-up, and groups of four windows in which a
 * linear drift cancels); its major collections (every ~20 s, 40-100 ms of CPU each) would fall in
 * one window and not another by chance (so each window starts collected and ends with a full
 * collection of its own garbage, whose fixed part, marking what lives, is taken off, and the
 * recorders' held state is charged as often as real major collections mark it); and bursts
 * still make windows of the same loop differ by tens of %, so twelve groups by default. An
 * on-window may run --recorders sessions at once (each its own file, held set, diffs, packing and
 * compression, all fed by the same loop), the overhead of one being the measured one over their
 * number; the default is one, what a user runs, because that division understates one recording:
 * four at once measured +12.1 to +15.3 % per recording (four runs) where one alone measured
 * +15.5 to +35.8 % (six runs, the same loop): part of what a recording costs (marking, optimizing its code)
 * is paid once for all of them.
 */
/** A sync loop against the demo cluster, with recordings switched on and off behind it as the extension's SyncRunner has them. */
interface Loop {
  sync: ClusterSync;
  /** Changes the loop has applied so far. */
  changes(): number;
  recorders(): Recorder[];
  /** Starts n recordings as the extension's Start Recording does: a session, the loop's holdings seeded. */
  record(name: string, n: number): Promise<void>;
  unrecord(): Promise<void>;
  recording(): boolean;
  /** Stops the loop; the demo cluster runs on until close. */
  stopLoop(): Promise<void>;
  close(): Promise<void>;
}

async function startLoop(dir: string): Promise<Loop> {
  const { demo, kc } = startDemo(dir);
  await until('the demo cluster', () => /demo cluster:/.test(demo.out()), 60_000);
  const client = await KubeClient.fromKubeconfig({ kubeconfig: kc });
  const ns = { namespaced: true };
  const types: WatchedType[] = [
    { group: '', version: 'v1', resource: 'configmaps', ...ns },
    { group: '', version: 'v1', resource: 'services', ...ns },
    { group: 'apps', version: 'v1', resource: 'deployments', ...ns },
  ];
  // As `kubeloop sync --json` prints its loop's iterations (here to /dev/null).
  const timeline = new TimelineStore(10_000);
  const out = createWriteStream('/dev/null');
  timeline.subscribe((e) => {
    if (e.kind !== 'iteration' || e.source === 'podworker') return;
    out.write(`${iterationJson(e)}\n`);
  });
  let changes = 0;
  let recorders: Recorder[] = [];
  // As the extension's SyncRunner: one forwarder for the loop's life, recorders behind it at times.
  let eventLists = 0;
  const observer: SyncObserver = {
    replace: (source, type, items) => {
      if (source.startsWith('events')) eventLists++;
      for (const r of recorders) r.replace(source, type, items);
    },
    apply: (source, type, event, obj) => {
      changes++;
      for (const r of recorders) r.apply(source, type, event, obj);
    },
  };
  const stop = new AbortController();
  const sync = new ClusterSync({
    client,
    reviewer: client,
    timeline,
    types,
    observer,
    logger: { info: () => undefined, warn: (l) => console.error(`W ${l}`), error: (l) => console.error(l) },
  });
  const running = sync.run(stop.signal);
  let sessions: RecordingSession[] = [];
  let life: AbortController | undefined;
  const record = async (name: string, n: number) => {
    life = new AbortController();
    for (let i = 0; i < n; i++) {
      const s = await startRecording(
        { path: join(dir, `${name}-${i}.klr`), context: 'bench', timeline, onError: (e) => console.error(`recording stopped: ${e.message}`) },
        life.signal,
      );
      sessions.push(s);
      recorders.push(s.recorder);
      const lists = eventLists;
      // The Events sources list again for it (the loop holds no Events): their lists arrive later.
      const { relisted } = sync.seedObserver(s.recorder);
      await until('the Events sources relisted', () => eventLists >= lists + relisted, 60_000);
    }
    // The seeded lists written now, not in the window that follows (they are the start's cost).
    for (const s of sessions) await s.writer.flush(never);
  };
  const unrecord = async () => {
    recorders = [];
    life?.abort();
    await Promise.all(sessions.map((s) => s.done));
    sessions = [];
  };
  const stopLoop = async () => {
    stop.abort();
    await running.catch(() => undefined);
  };
  return {
    sync,
    changes: () => changes,
    recorders: () => recorders,
    record,
    unrecord,
    recording: () => sessions.length > 0,
    stopLoop,
    close: async () => {
      await unrecord();
      await stopLoop();
      client.close();
      out.end();
      if (demo.child.exitCode === null) demo.child.kill('SIGINT');
      await demo.exited;
    },
  };
}

/**
 * GROUPS groups of four windows, on off off on or off on on off (alternately): a drift of the loop's
 * CPU (it was still falling, 47 -> 21 ms/s, over the two minutes after a 60 s warm-up) cancels
 * within each group when it is linear, which a pair does not do: with nothing recorded, pairs of a
 * random order measured -14.7 % (90 % interval -18.4 .. -10.0 %).
 */
async function measureWindows(loop: Loop, K: number, gc: () => void): Promise<Window[]> {
  const windows: Window[] = [];
  for (let k = 0; k < GROUPS; k++) {
    for (const on of k % 2 === 0 ? [true, false, false, true] : [false, true, true, false]) {
      if (on && !loop.recording() && K > 0) await loop.record('window', K);
      if (!on && loop.recording()) await loop.unrecord();
      await sleep(SETTLE_S * 1000);
      // Each window starts collected and ends with a full collection of its own garbage, so it pays
      // for exactly what it allocated, not for a start's garbage nor a major collection that fell
      // in it by chance (one every ~20 s here, 40-100 ms of CPU). The fixed part of that
      // collection (marking what lives, measured at once by another) is taken off, the median
      // of its kind of window (see fixedOf in overheadOf).
      gc();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const a0 = attributed.ms;
      const n0 = loop.changes();
      const th0 = threadCpuMs();
      await sleep(WINDOW_S * 1000);
      gc();
      const cpuMs = cpuSince(c0);
      const wallMs = performance.now() - t0;
      const f0 = process.cpuUsage();
      gc();
      const th = threadCpuMs();
      windows.push({
        on,
        cpuMs,
        fixedMs: cpuSince(f0),
        wallMs,
        mainMs: th.main - th0.main,
        othersMs: th.others - th0.others,
        attributedMs: attributed.ms - a0,
        changes: loop.changes() - n0,
      });
    }
  }
  await loop.unrecord();
  return windows;
}

/**
 * One recording of --seconds: its bytes per event, and (at its end, the held set as large as it
 * gets) the CPU of writing one keyframe, which a long recording adds as the writer's rule says.
 * Stops the loop.
 */
async function longRecording(loop: Loop, dir: string, gc: () => void) {
  await loop.record('long', 1);
  await sleep(SECONDS * 1000);
  const held = [...Recorder.snapshotOf(() => loop.recorders()[0])()];
  await loop.unrecord();
  // The loop stopped first: process.cpuUsage counts every thread, and a keyframe's write awaits
  // (a file opened, blocks written), during which the loop's own work would count as the
  // keyframe's (an empty keyframe measured 7 to 16 ms with the loop running).
  await loop.stopLoop();
  const keyframeMs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const w = new RecordingWriter({ path: join(dir, `keyframe-${i}.klr`), snapshot: () => held });
    gc();
    const c0 = process.cpuUsage();
    await w.open(never);
    keyframeMs.push(cpuSince(c0));
    await w.close(never);
  }
  const r = await Recording.open(join(dir, 'long-0.klr'), never);
  let events = 0;
  for await (const x of r.records(never)) if (x.k === 'D' || x.k === 'T') events++;
  const bytes = r.bytes;
  r.close();
  return { heldObjects: held.length, keyframeMs, events, bytes };
}

/** Sums and rates over windows; a full collection's fixed part taken off each (the median of its kind's). */
function windowMath(windows: Window[]) {
  // The recorders' held state is marked in on-windows only, so each kind has its own fixed part.
  const fixedOf = (on: boolean) =>
    quantile(
      windows.filter((w) => w.on === on).map((w) => w.fixedMs),
      0.5,
    );
  const fixedOn = fixedOf(true);
  const fixedOff = fixedOf(false);
  const sum = (ws: Window[], f: (w: Window) => number) => ws.reduce((s, w) => s + f(w), 0);
  const pooledRate = (ws: Window[]) => sum(ws, (w) => w.cpuMs - (w.on ? fixedOn : fixedOff)) / sum(ws, (w) => w.wallMs);
  const msPerS = (ws: Window[], f: (w: Window) => number) => (sum(ws, f) / sum(ws, (w) => w.wallMs)) * 1000;
  return { fixedOn, fixedOff, sum, pooledRate, msPerS };
}

/** The overhead per recording, group by group and pooled, with the pooled figure's bootstrap spread. */
function overheadOf(windows: Window[], per: number) {
  const { pooledRate } = windowMath(windows);
  const groups: { on: Window[]; off: Window[]; overhead: number }[] = [];
  for (let k = 0; k < GROUPS; k++) {
    const four = windows.slice(4 * k, 4 * k + 4);
    const on = four.filter((w) => w.on);
    const off = four.filter((w) => !w.on);
    groups.push({ on, off, overhead: (pooledRate(on) / pooledRate(off) - 1) / per });
  }
  const offRate = pooledRate(windows.filter((w) => !w.on));
  const pooled = (pooledRate(windows.filter((w) => w.on)) / offRate - 1) / per;
  // The pooled figure's spread: groups drawn again at random, 2,000 times; the 5th and 95th percentiles.
  const draw = rng(7);
  const boots: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const pick = Array.from({ length: GROUPS }, () => groups[Math.floor(draw() * GROUPS)]!);
    boots.push((pooledRate(pick.flatMap((g) => g.on)) / pooledRate(pick.flatMap((g) => g.off)) - 1) / per);
  }
  return { groups, offRate, pooled, boots };
}

/** Prints the windows' figures and the recording's, and judges them against the targets. */
function reportOverhead(windows: Window[], K: number, majorsPerS: number, long: Awaited<ReturnType<typeof longRecording>>): Check[] {
  const per = Math.max(K, 1);
  const { fixedOn, fixedOff, sum, pooledRate, msPerS } = windowMath(windows);
  const { groups, offRate, pooled, boots } = overheadOf(windows, per);
  const ons = windows.filter((w) => w.on);
  const offs = windows.filter((w) => !w.on);
  const changesPerS = (sum(windows, (w) => w.changes) / sum(windows, (w) => w.wallMs)) * 1000;
  const kfMs = quantile(long.keyframeMs, 0.5);
  // The recorders' held state is marked at each real major collection: its share is added at the rate they came in the warm-up.
  const markShare = ((Math.max(0, fixedOn - fixedOff) / per) * majorsPerS) / (offRate * 1000);
  // A keyframe when the writer's rule makes one due for the held set (by changes, or by time at
  // this rate, whichever comes first): its CPU spread over the seconds between two.
  const kfEveryS = Math.min(keyframeChangesDue(long.heldObjects) / changesPerS, RECORDING_DEFAULTS.keyframeEveryMs / 1000);
  const kfShare = kfMs / kfEveryS / (offRate * 1000);
  const attributedMsPerS = (sum(ons, (w) => w.attributedMs) / sum(ons, (w) => w.wallMs) / per) * 1000;
  const attributedShare = attributedMsPerS / (offRate * 1000);
  const over = groups.map((g) => g.overhead);
  const med = quantile(over, 0.5);
  console.log(
    `\n== recording overhead, one process: ${GROUPS} groups of four ${WINDOW_S} s windows, ${K} recording(s) on / none (${SETTLE_S} s settle before each), churn ${CHURN}/s, ${WARMUP_S} s warm-up`,
  );
  console.table(
    groups.map((g, i) => ({
      group: `${i + 1} ${i % 2 === 0 ? 'on off off on' : 'off on on off'}`,
      'off CPU ms/s': (pooledRate(g.off) * 1000).toFixed(1),
      'on CPU ms/s': (pooledRate(g.on) * 1000).toFixed(1),
      'per recording': pct(g.overhead),
      'attributed ms/s': (msPerS(g.on, (w) => w.attributedMs) / per).toFixed(2),
      'main / other threads ms/s off, on': `${msPerS(g.off, (w) => w.mainMs).toFixed(0)} / ${msPerS(g.off, (w) => w.othersMs).toFixed(0)}, ${msPerS(g.on, (w) => w.mainMs).toFixed(0)} / ${msPerS(g.on, (w) => w.othersMs).toFixed(0)}`,
      'changes off, on': `${sum(g.off, (w) => w.changes)}, ${sum(g.on, (w) => w.changes)}`,
    })),
  );
  console.log(
    `loop CPU ${(offRate * 1000).toFixed(1)} ms/s without recording at ${changesPerS.toFixed(0)} changes/s (a full collection's fixed part taken off each window: ${fixedOff.toFixed(1)} ms off, ${fixedOn.toFixed(1)} ms on). Per recording: pooled ${pct(pooled)} ` +
      `(90 % bootstrap interval ${pct(quantile(boots, 0.05))} .. ${pct(quantile(boots, 0.95))}), median of groups ${pct(med)} ` +
      `(quartiles ${pct(quantile(over, 0.25))} .. ${pct(quantile(over, 0.75))})`,
  );
  console.log(
    `recorder's own CPU, attributed: ${attributedMsPerS.toFixed(2)} ms/s = ${pct(attributedShare)} of the loop; ` +
      `a keyframe of ${long.heldObjects} objects: ${kfMs.toFixed(1)} ms CPU (median of ${long.keyframeMs.length}: ${long.keyframeMs.map((x) => x.toFixed(1)).join(', ')}), one per ${kfEveryS.toFixed(0)} s = ${pct(kfShare)}; ` +
      `the held state marked at each major collection (${(fixedOn - fixedOff).toFixed(1)} ms more for ${per}, ${(majorsPerS * 60).toFixed(1)} a minute) = ${pct(markShare)}`,
  );
  // Where the difference is spent, by thread (the closing collection included, its fixed part not taken off).
  const byThread = (name: string, f: (w: Window) => number) => {
    const off = msPerS(offs, f);
    const on = msPerS(ons, f);
    return `${name} ${off.toFixed(1)} -> ${on.toFixed(1)} ms/s (${((on - off) / per).toFixed(2)} per recording)`;
  };
  console.log(
    `by thread, with recording against without (${per} at once): ${byThread('main thread', (w) => w.mainMs)}, ${byThread('other threads', (w) => w.othersMs)}`,
  );
  const { bytes, events } = long;
  console.log(`file ${bytes} B for ${events} events (deltas + timeline) in ${SECONDS} s: ${(bytes / events).toFixed(1)} B/event`);
  return [
    [
      'recording adds <= 5 % to the sync loop CPU (one process, pooled windows, keyframes and marking added)',
      pooled + kfShare + markShare <= 0.05,
      `${pct(pooled + kfShare + markShare)} (windows ${pct(pooled)} + keyframes ${pct(kfShare)} + marking held state ${pct(markShare)}; attributed ${pct(attributedShare + kfShare)})`,
    ],
    ['bytes per recorded event <= 150 B', bytes / events <= 150, `${(bytes / events).toFixed(1)} B`],
  ];
}

async function cpuInterleaved(dir: string): Promise<Check[]> {
  const K = flag('--aa') ? 0 : arg('--recorders', 1);
  const loop = await startLoop(dir);
  attributeRecorder();
  let majors = 0;
  const gcs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
    }
  });
  gcs.observe({ entryTypes: ['gc'] });
  const gc = fullGc();
  try {
    await until('every source listed', () => loop.sync.allSourcesReady(), 60_000);
    // Warm-up: the initial lists done and the code compiled, the recorder's code with it.
    // The loop's own major collections, unforced, in the warm-up's second quarter: how often a real
    // one marks what lives (the recorders' held state included).
    await sleep((WARMUP_S * 1000) / 4);
    const m0 = majors;
    await sleep((WARMUP_S * 1000) / 4);
    const majorsPerS = (majors - m0) / (WARMUP_S / 4);
    await loop.record('warm', Math.max(K, 1));
    await sleep((WARMUP_S * 1000) / 2);
    await loop.unrecord();
    const windows = await measureWindows(loop, K, gc);
    const long = await longRecording(loop, dir, gc);
    return reportOverhead(windows, K, majorsPerS, long);
  } finally {
    gcs.disconnect();
    await loop.close();
  }
}

async function cpuOverhead(dir: string): Promise<Check[]> {
  const { demo, kc } = startDemo(dir);
  await until('the demo cluster', () => /demo cluster:/.test(demo.out()), 60_000);
  const watch = ['--watch', 'configmaps', '--watch', 'services', '--watch', 'deployments.apps'];
  const rec = join(dir, 'churn.klr');
  const plain = start(['sync', '--kubeconfig', kc, ...watch, '--json']);
  const recording = start(['sync', '--kubeconfig', kc, ...watch, '--json', '--record', rec]);
  try {
    await until('both loops listing', () => plain.out().includes('"source"') && recording.out().includes('"source"'), 60_000);
    await new Promise((r) => setTimeout(r, 5000)); // warm-up: initial lists done, JIT warm
    const a0 = cpuSeconds(plain.child.pid!);
    const b0 = cpuSeconds(recording.child.pid!);
    const r0 = await Recording.open(rec, never);
    const d0 = await deltas(r0);
    r0.close();
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const a1 = cpuSeconds(plain.child.pid!);
    const b1 = cpuSeconds(recording.child.pid!);
    const wall = (Date.now() - t0) / 1000;
    recording.child.kill('SIGINT');
    plain.child.kill('SIGINT');
    await Promise.all([recording.exited, plain.exited]);
    const r = await Recording.open(rec, never);
    const d1 = await deltas(r);
    let events = 0;
    for await (const x of r.records(never)) if (x.k === 'D' || x.k === 'T') events++;
    const bytes = r.bytes;
    r.close();
    const cpuPlain = a1 - a0;
    const cpuRec = b1 - b0;
    const overhead = (cpuRec - cpuPlain) / cpuPlain;
    const perS = (d1 - d0) / wall;
    console.log(`\n== recording overhead: ${SECONDS} s window, churn ${CHURN}/s, both loops on one demo cluster`);
    console.table([
      { loop: 'sync (no recording)', 'CPU s': cpuPlain.toFixed(2), 'CPU %': ((cpuPlain / wall) * 100).toFixed(1) },
      {
        loop: 'sync --record',
        'CPU s': cpuRec.toFixed(2),
        'CPU %': ((cpuRec / wall) * 100).toFixed(1),
        'vs no recording': `${(cpuRec / cpuPlain).toFixed(3)}x`,
      },
    ]);
    console.log(`changes recorded: ${perS.toFixed(0)}/s; file ${bytes} B for ${events} events (deltas + timeline): ${(bytes / events).toFixed(1)} B/event`);
    return [
      [
        'recording adds <= 5 % to the sync loop CPU (two processes, one window)',
        overhead <= 0.05,
        `${(overhead * 100).toFixed(1)} % (${cpuRec.toFixed(2)} s vs ${cpuPlain.toFixed(2)} s at ${perS.toFixed(0)} changes/s)`,
      ],
      ['bytes per recorded event <= 150 B (two processes)', bytes / events <= 150, `${(bytes / events).toFixed(1)} B`],
    ];
  } finally {
    for (const p of [plain, recording, demo]) if (p.child.exitCode === null) p.child.kill('SIGINT');
    await demo.exited;
  }
}

async function deltas(r: Recording): Promise<number> {
  let n = 0;
  for await (const x of r.records(never)) if (x.k === 'D') n++;
  return n;
}

// ---- synthetic 24 h recording -------------------------------------------------------------------

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function podOf(i: number, ns: string, gen: number): Obj {
  const app = `app-${i % 997}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-${(i * 2654435761) % 100000}-${gen}`,
      namespace: ns,
      uid: `00000000-0000-4000-8000-${String(i).padStart(6, '0')}${String(gen).padStart(6, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-12-01T00:00:00Z',
      labels: { app, 'pod-template-hash': `h${i % 31}`, tier: i % 3 ? 'web' : 'db' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-h${i % 31}`, uid: `rs-${i % 997}`, controller: true }],
    },
    spec: {
      nodeName: `node-${i % 200}`,
      containers: [
        {
          name: 'main',
          image: `registry.example.com/${app}:1.${i % 7}`,
          ports: [{ containerPort: 8080 }],
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
      serviceAccountName: 'default',
    },
    status: {
      phase: 'Running',
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: { running: { startedAt: '2026-12-01T00:00:10Z' } } }],
    },
  };
}

function configMapOf(i: number, ns: string, v: number): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `config-${i}`, namespace: ns, uid: `cm-${i}`, resourceVersion: String(v), labels: { app: `app-${i % 997}` } },
    data: { 'settings.yaml': `replicas: ${i % 5}\nversion: ${v}\nfeature: ${i % 2 ? 'on' : 'off'}\n` },
  };
}

const MANAGED = flag('--managed-fields');

/** `next` with managedFields as an API server leaves them after `manager`'s write (`old` undefined: its create). */
function managed(old: Obj | undefined, next: Obj, manager: string, t: number, status = false): Obj {
  if (!MANAGED) return next;
  const w = {
    manager,
    apiVersion: 'v1',
    time: new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    ...(status ? { subresource: 'status' as const } : {}),
  };
  return withUpdateEntry(old as DemoObject | undefined, next as DemoObject, w, true) as Obj;
}

/** A pod as created by its ReplicaSet's controller and then started by the kubelet. */
function createdPod(i: number, ns: string, gen: number, t: number): Obj {
  const p = podOf(i, ns, gen);
  if (!MANAGED) return p;
  const { status, ...spec } = p;
  const created = managed(undefined, spec, 'kube-controller-manager', t);
  return managed(created, { ...created, status }, 'kubelet', t, true);
}

async function synthetic(dir: string): Promise<Check[]> {
  const path = join(dir, 'day.klr');
  const T0 = Date.UTC(2026, 11, 1);
  let now = T0;
  let rec: Recorder | undefined;
  const writer = new RecordingWriter({
    path,
    now: () => now,
    snapshot: Recorder.snapshotOf(() => rec),
    maxBytes: 8 * 1024 ** 3,
    maxAgeMs: 48 * 3600_000,
    ...(KEYFRAME_PER_OBJECT !== undefined ? { keyframeChangesPerObject: KEYFRAME_PER_OBJECT } : {}),
    ...(KEYFRAME_MAX !== undefined ? { keyframeChangesMax: KEYFRAME_MAX } : {}),
    context: 'synthetic',
  });
  await writer.open(never);
  rec = new Recorder(writer, { now: () => now });
  const random = rng(12);
  const PODS = { group: '', resource: 'pods' };
  const CMS = { group: '', resource: 'configmaps' };
  const EVENTS = { group: '', resource: 'events' };
  const nPods = Math.round(OBJECTS * 0.7);
  const nCms = OBJECTS - nPods;
  const ns = (i: number) => `team-${i % 40}`;
  const pods: Obj[] = Array.from({ length: nPods }, (_, i) => createdPod(i, ns(i), 0, T0));
  const gens = new Array<number>(nPods).fill(0);
  const cms: Obj[] = Array.from({ length: nCms }, (_, i) => managed(undefined, configMapOf(i, ns(i), 1), 'kubectl-client-side-apply', T0));
  const t0 = performance.now();
  rec.replace('api', PODS, pods);
  rec.replace('api:configmaps', CMS, cms);
  now += 1000;
  await writer.flush(never);
  // The recorder's CPU on the changes (masking, diffs, packing, compression), apart from making them:
  // the process's CPU during its flushes (the machine's load does not count, as wall time would).
  const cpuMsSince = (u: NodeJS.CpuUsage) => {
    const d = process.cpuUsage(u);
    return (d.user + d.system) / 1000;
  };
  let flushMs = 0;
  let changes = 0;
  let ev = 0;
  for (let s = 1; s <= HOURS * 3600; s++) {
    // RATE changes per second on average, spread over the second.
    const n = Math.floor(RATE) + (random() < RATE - Math.floor(RATE) ? 1 : 0);
    for (let k = 0; k < n; k++) {
      now = T0 + s * 1000 + Math.floor((k * 1000) / (n + 1));
      const x = random();
      const i = Math.floor(random() * nPods);
      if (x < 0.4) {
        const p = pods[i]!;
        const st = p.status as { containerStatuses: { restartCount: number }[]; conditions: { status: string }[] };
        pods[i] = managed(
          p,
          {
            ...p,
            metadata: { ...(p.metadata as Obj), resourceVersion: String(100000 + changes) },
            status: {
              ...st,
              conditions: [{ type: 'Ready', status: st.conditions[0]!.status === 'True' ? 'False' : 'True' }],
              containerStatuses: [{ ...st.containerStatuses[0]!, restartCount: st.containerStatuses[0]!.restartCount + 1 }],
            },
          },
          'kubelet',
          now,
          true,
        );
        rec.apply('api', PODS, 'MODIFIED', pods[i]!);
      } else if (x < 0.6) {
        const j = Math.floor(random() * nCms);
        cms[j] = managed(cms[j], configMapOf(j, ns(j), 2 + changes), 'config-operator', now);
        rec.apply('api:configmaps', CMS, 'MODIFIED', cms[j]!);
      } else if (x < 0.8) {
        rec.apply('api', PODS, 'DELETED', pods[i]!);
        pods[i] = createdPod(i, ns(i), ++gens[i]!, now);
        rec.apply('api', PODS, 'ADDED', pods[i]!);
        changes++;
      } else {
        const p = pods[i]!.metadata as { name: string; namespace: string; uid: string };
        rec.apply('events', EVENTS, 'ADDED', {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${p.name}.${(ev++).toString(16)}`, namespace: p.namespace, resourceVersion: String(ev) },
          involvedObject: { kind: 'Pod', namespace: p.namespace, name: p.name, uid: p.uid },
          reason: 'Unhealthy',
          message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
          type: 'Warning',
          count: 1,
          firstTimestamp: new Date(now).toISOString(),
          lastTimestamp: new Date(now).toISOString(),
          source: { component: 'kubelet', host: (pods[i]!.spec as { nodeName: string }).nodeName },
        });
      }
      changes++;
    }
    now = T0 + s * 1000 + 999;
    const f0 = process.cpuUsage();
    await writer.flush(never);
    flushMs += cpuMsSince(f0);
  }
  const c0 = process.cpuUsage();
  await writer.close(never);
  flushMs += cpuMsSince(c0);
  const genS = (performance.now() - t0) / 1000;
  let bytes = 0;
  for (let i = 0; existsSync(segmentPath(path, i)); i++) bytes += statSync(segmentPath(path, i)).size;
  console.log(`\n== synthetic recording: ${OBJECTS} objects, ${HOURS} h, ${RATE} changes/s (${changes} changes), written in ${genS.toFixed(1)} s`);
  console.log(
    `   ${(bytes / 1024 ** 2).toFixed(1)} MiB in ${writer.stats.segments} segment(s), ${writer.stats.blocks} blocks, ${writer.stats.keyframes} keyframes${MANAGED ? ', managedFields kept' : ''}`,
  );
  console.log(
    `   recorder's CPU after the first list: ${(flushMs / 1000).toFixed(1)} s (${((flushMs / (HOURS * 3600_000)) * 100).toFixed(2)} % of one core over the recorded time)`,
  );

  // Opened and read by a fresh process, as a user opening it would: not this one's heap, which
  // still holds the generator's 100,000 objects.
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--seek-only', path, String(OBJECTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let json = '';
  child.stdout!.on('data', (d: Buffer) => (json += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  if (code !== 0) throw new Error(`the seek process failed (${code})`);
  const { openMs, seeks, instants } = JSON.parse(json.trim().split('\n').pop()!) as { openMs: number; seeks: number[]; instants: number[] };
  const worst = Math.max(...seeks);
  console.table([
    { step: 'open (index only)', ms: openMs.toFixed(0) },
    ...seeks.map((ms, i) => ({ step: `objectsAt ${new Date(instants[i]!).toISOString()}${i === 4 ? ' (just before a keyframe)' : ''}`, ms: ms.toFixed(0) })),
  ]);
  return [
    [`open a ${HOURS} h recording of ${OBJECTS} objects <= 1 s`, openMs <= 1000, `${openMs.toFixed(0)} ms`],
    ['seek to any instant in it <= 1 s', worst <= 1000, `${worst.toFixed(0)} ms worst of ${seeks.length}`],
  ];
}

/** The bytes 1,000 Events add to a recording, whole against metadata only (section 4). */
async function eventBytes(dir: string): Promise<Check[]> {
  const EVENTS = { group: '', resource: 'events' };
  const reasons = [
    ['Normal', 'Scheduled', 'Successfully assigned team-3/app-17-5d8f-0 to node-12', 'default-scheduler'],
    ['Normal', 'Pulled', 'Successfully pulled image "registry.example.com/app-17:1.3" in 1m28s (1m30s including waiting)', 'kubelet'],
    ['Warning', 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', 'kubelet'],
    ['Normal', 'ScalingReplicaSet', 'Scaled up replica set app-17-5d8f to 3 from 2', 'deployment-controller'],
    ['Warning', 'ReconcileError', 'Widget shop/cart: backend not ready', 'widget-operator'],
  ] as const;
  const size = async (name: string, whole: boolean, n: number): Promise<number> => {
    const path = join(dir, `${name}.klr`);
    let now = Date.UTC(2026, 11, 1);
    let rec: Recorder | undefined;
    const w = new RecordingWriter({ path, now: () => now, snapshot: Recorder.snapshotOf(() => rec) });
    await w.open(never);
    rec = new Recorder(w, { now: () => now });
    for (let i = 0; i < n; i++) {
      now += 50;
      const [type, reason, message, component] = reasons[i % reasons.length]!;
      const t = new Date(now).toISOString();
      const meta = {
        name: `app-${i % 997}-5d8f.${(0x17a000000 + i).toString(16)}`,
        namespace: `team-${i % 40}`,
        uid: `ev-${i}`,
        resourceVersion: String(5000 + i),
        creationTimestamp: t,
      };
      const full = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: meta,
        involvedObject: { kind: i % 5 === 4 ? 'Widget' : 'Pod', namespace: meta.namespace, name: `app-${i % 997}`, uid: `obj-${i % 997}`, apiVersion: 'v1' },
        type,
        reason,
        message,
        count: 1 + (i % 3),
        firstTimestamp: t,
        lastTimestamp: t,
        source: { component, ...(component === 'kubelet' ? { host: `node-${i % 200}` } : {}) },
        reportingComponent: component,
        reportingInstance: '',
      };
      // As the metadata-only watch delivered it: PartialObjectMetadata, stamped with its kind.
      rec.apply('events', EVENTS, 'ADDED', whole ? full : { apiVersion: 'v1', kind: 'Event', metadata: meta });
      if (i % 100 === 99) await w.flush(never);
    }
    await w.close(never);
    return statSync(path).size;
  };
  const base = await size('events-none', true, 0);
  const whole = (await size('events-whole', true, 1000)) - base;
  const metaOnly = (await size('events-meta', false, 1000)) - base;
  console.log(
    `\n== 1,000 Events in a recording: whole ${whole} B, metadata only ${metaOnly} B: +${whole - metaOnly} B per 1,000 Events (${(whole / metaOnly).toFixed(2)}x)`,
  );
  return [['1,000 Events kept whole add <= 100 KiB to a recording', whole - metaOnly <= 100 * 1024, `+${whole - metaOnly} B`]];
}

/** In a fresh process: open the recording and rebuild the cluster at instants across it; prints the times as JSON. */
async function seekOnly(path: string, objects: number): Promise<void> {
  const o0 = performance.now();
  const r = await Recording.open(path, never);
  const openMs = performance.now() - o0;
  const { start, end } = r.range;
  const instants = [0.13, 0.37, 0.61, 0.89].map((f) => start + f * (end - start));
  // The worst instant: just before a keyframe, the most deltas to apply after the one before.
  if (r.keyframes.length > 2) instants.push(r.keyframes[2]!.t - 1);
  const seeks: number[] = [];
  for (const t of instants) {
    const s0 = performance.now();
    const objs = await r.objectsAt(t, never);
    seeks.push(performance.now() - s0);
    if (objs.size < objects * 0.9) throw new Error(`objectsAt(${new Date(t).toISOString()}) has ${objs.size} objects`);
  }
  r.close();
  console.log(JSON.stringify({ openMs, seeks, instants }));
}

async function main() {
  const seek = process.argv.indexOf('--seek-only');
  if (seek >= 0) return seekOnly(process.argv[seek + 1]!, Number(process.argv[seek + 2]));
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-rec-'));
  const checks: Check[] = [];
  try {
    if (!flag('--skip-cpu')) checks.push(...(await cpuInterleaved(dir)));
    if (flag('--two-process')) checks.push(...(await cpuOverhead(dir)));
    if (!flag('--skip-synthetic')) checks.push(...(await synthetic(dir)));
    if (!flag('--skip-events')) checks.push(...(await eventBytes(dir)));
  } finally {
    // --keep: leave the recordings for a profile of the reader (`--seek-only FILE N` with --cpu-prof).
    if (flag('--keep')) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  console.log('');
  printChecks(checks);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
