// What keeping who wrote each version costs a recording sync loop (issue 44): a watch stream of
// --pods ADDED pods (real apimachinery frames with the managedFields of three managers, from
// scripts/protobuf-fixtures), read from 64 KiB chunks as a watch reads them and kept as the loop
// keeps them (compactItem), three ways: protobuf without managers (the loop not recording),
// protobuf with the walker's compact managers (recording now), and JSON with compactItem's
// compact managers (recording before: the watches switched to JSON). Per way: CPU per stream
// (median of --rounds, the ways alternated so each sees the same load) and heap held per object.
// The walker is measured as it ships, bundled by esbuild.
// Usage: node --expose-gc --import tsx bench/decode-managers.ts [--pods 10000] [--rounds 5]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shipped } from './shipped';
import type * as WatchFrames from '../src/core/kube/listwatch/watchFrames';
import type * as List from '../src/core/kube/listwatch/list';
import { benchArg } from './measure';

const PODS = Number(benchArg('--pods', '10000'));
const ROUNDS = Number(benchArg('--rounds', '5'));
const ROOT = path.resolve(__dirname, '..');
const DIR = path.join(ROOT, '.bench/protobuf');

function streams(): void {
  if (fs.existsSync(path.join(DIR, `watch-pods-${PODS}.jsonl`))) return;
  const out = execFileSync('bash', [path.join(ROOT, 'scripts/build-protobuf-fixtures.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  execFileSync(out.trim().split('\n').pop()!, ['-out', DIR, '-pods', String(PODS)], { stdio: 'inherit' });
}

function bundled(): typeof WatchFrames & typeof List {
  return shipped<typeof WatchFrames & typeof List>(
    `export { eventFrames } from './src/core/kube/listwatch/watchFrames';\nexport { compactItem } from './src/core/kube/listwatch/list';`,
    path.join(DIR, 'managers.js'),
  );
}

streams();
const { eventFrames, compactItem } = bundled();
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

interface Way {
  name: string;
  stream: Buffer;
  contentType: string;
  managers: boolean;
  keep: List.ManagedFieldsKept;
}

const PB = 'application/vnd.kubernetes.protobuf;stream=watch';
const pb = fs.readFileSync(path.join(DIR, `watch-pods-${PODS}.pb`));
const jsonl = fs.readFileSync(path.join(DIR, `watch-pods-${PODS}.jsonl`));
const WAYS: Way[] = [
  { name: 'protobuf, no managers (not recording)', stream: pb, contentType: PB, managers: false, keep: false },
  { name: 'protobuf, compact managers (recording)', stream: pb, contentType: PB, managers: true, keep: 'compact' },
  { name: 'JSON, compact managers (story-mgrs)', stream: jsonl, contentType: 'application/json', managers: false, keep: 'compact' },
];

/** The stream's objects as the loop keeps them. */
function read(w: Way): unknown[] {
  const frames = eventFrames(w.contentType, 16 * 1024 * 1024, w.managers);
  const kept: unknown[] = [];
  const take = (f: WatchFrames.FramedEvents) => {
    if (f.failed) throw new Error(`${w.name}: ${f.detail ?? f.failed}`);
    for (const e of f.events) kept.push(compactItem(e.object, false, w.keep, false, w.managers));
  };
  for (let at = 0; at < w.stream.length; at += 64 * 1024) take(frames.push(w.stream.subarray(at, at + 64 * 1024)));
  take(frames.end());
  return kept;
}

function cpuMs(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** Heap held per object by the kept objects (after a full GC on both sides). */
function heapPerObject(w: Way): number {
  gc!();
  const before = process.memoryUsage().heapUsed;
  const kept = read(w);
  gc!();
  const after = process.memoryUsage().heapUsed;
  if (kept.length !== PODS) throw new Error(`${w.name}: ${kept.length} objects, expected ${PODS}`);
  return (after - before) / kept.length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cpu: number[][] = WAYS.map(() => []);
for (const w of WAYS) read(w); // warm up
for (let r = 0; r < ROUNDS; r++) WAYS.forEach((w, i) => cpu[i]!.push(cpuMs(() => read(w))));
const heap = WAYS.map((w) => heapPerObject(w));
const base = median(cpu[0]!);
console.log(
  `watch stream of ${PODS} pods (${(pb.length / 1e6).toFixed(1)} MB protobuf, ${(jsonl.length / 1e6).toFixed(1)} MB JSON lines), median of ${ROUNDS} rounds`,
);
WAYS.forEach((w, i) => {
  const ms = median(cpu[i]!);
  console.log(
    `${w.name.padEnd(40)} CPU ${ms.toFixed(0).padStart(6)} ms (${((ms * 1000) / PODS).toFixed(1)} us/object, ${(ms / base).toFixed(2)}x)   heap ${heap[i]!.toFixed(0).padStart(5)} B/object (+${(heap[i]! - heap[0]!).toFixed(0)})`,
  );
});
