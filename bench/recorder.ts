// Flight-recorder section of `npm run bench` (issue 12):
//   1. CPU overhead of recording: two `kubeloop sync` processes (dist/cli.js) watch the same demo
//      cluster under churn (default 200 changes/s) at the same time, one with --record; the CPU
//      each used over the same window (utime+stime from /proc) gives the ratio. Target <= 5 %.
//   2. Bytes per recorded event on disk (the whole file, keyframes included, over every record but
//      keyframe objects). Target <= 150 B.
//   3. A synthetic 24-hour recording of a 100,000-object cluster, written by the recorder's own
//      writer on a fake clock (Recorder + RecordingWriter, the code `sync --record` runs): the
//      initial list, then --rate changes per second for --hours (label and status changes on pods,
//      config changes, pod deletes and creates, Events), flushed once per recorded second. Then the
//      time to open it and to rebuild the cluster at instants across it (the worst: just before a
//      keyframe). Target <= 1 s each.
// Usage: node --import tsx bench/recorder.ts [--seconds 30] [--churn 200] [--objects 100000]
//        [--hours 24] [--rate 5] [--skip-cpu] [--skip-synthetic] [--keep]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recorder } from '../src/core/recorder/recorder';
import { RecordingWriter, segmentPath } from '../src/core/recorder/writer';
import { Recording } from '../src/core/recorder/reader';
import type { Obj } from '../src/core/recorder/records';
import { benchArg, printChecks, type Check } from './measure';

const arg = (name: string, dflt: number) => Number(benchArg(name, String(dflt)));
const flag = (name: string) => process.argv.includes(name);
const SECONDS = arg('--seconds', 30);
const CHURN = arg('--churn', 200);
const OBJECTS = arg('--objects', 100_000);
const HOURS = arg('--hours', 24);
const RATE = arg('--rate', 5);
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
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function cpuOverhead(dir: string): Promise<Check[]> {
  const kc = join(dir, 'kc');
  const demo = start(['demo-cluster', '--objects', '2000', '--seed', '7', '--churn', String(CHURN), '--no-kubelet', '--kubeconfig-out', kc]);
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
        'recording adds <= 5 % to the sync loop CPU',
        overhead <= 0.05,
        `${(overhead * 100).toFixed(1)} % (${cpuRec.toFixed(2)} s vs ${cpuPlain.toFixed(2)} s at ${perS.toFixed(0)} changes/s)`,
      ],
      ['bytes per recorded event <= 150 B', bytes / events <= 150, `${(bytes / events).toFixed(1)} B`],
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
  const pods: Obj[] = Array.from({ length: nPods }, (_, i) => podOf(i, ns(i), 0));
  const gens = new Array<number>(nPods).fill(0);
  const cms: Obj[] = Array.from({ length: nCms }, (_, i) => configMapOf(i, ns(i), 1));
  const t0 = performance.now();
  rec.replace('api', PODS, pods);
  rec.replace('api:configmaps', CMS, cms);
  now += 1000;
  await writer.flush(never);
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
        pods[i] = {
          ...p,
          metadata: { ...(p.metadata as Obj), resourceVersion: String(100000 + changes) },
          status: {
            ...st,
            conditions: [{ type: 'Ready', status: st.conditions[0]!.status === 'True' ? 'False' : 'True' }],
            containerStatuses: [{ ...st.containerStatuses[0]!, restartCount: st.containerStatuses[0]!.restartCount + 1 }],
          },
        };
        rec.apply('api', PODS, 'MODIFIED', pods[i]!);
      } else if (x < 0.6) {
        const j = Math.floor(random() * nCms);
        cms[j] = configMapOf(j, ns(j), 2 + changes);
        rec.apply('api:configmaps', CMS, 'MODIFIED', cms[j]!);
      } else if (x < 0.8) {
        rec.apply('api', PODS, 'DELETED', pods[i]!);
        pods[i] = podOf(i, ns(i), ++gens[i]!);
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
    await writer.flush(never);
  }
  await writer.close(never);
  const genS = (performance.now() - t0) / 1000;
  let bytes = 0;
  for (let i = 0; existsSync(segmentPath(path, i)); i++) bytes += statSync(segmentPath(path, i)).size;
  console.log(`\n== synthetic recording: ${OBJECTS} objects, ${HOURS} h, ${RATE} changes/s (${changes} changes), written in ${genS.toFixed(1)} s`);
  console.log(
    `   ${(bytes / 1024 ** 2).toFixed(1)} MiB in ${writer.stats.segments} segment(s), ${writer.stats.blocks} blocks, ${writer.stats.keyframes} keyframes`,
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
    if (!flag('--skip-cpu')) checks.push(...(await cpuOverhead(dir)));
    if (!flag('--skip-synthetic')) checks.push(...(await synthetic(dir)));
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
