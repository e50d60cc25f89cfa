// Decode section of `npm run bench` (issue 41): CPU of the protobuf walker against JSON.parse of the
// same page, for a page of full pods and a metadata-only (PartialObjectMetadataList) page of them.
// The pages are real: written by apimachinery's protobuf serializer and encoding/json
// (scripts/protobuf-fixtures, built and cached by scripts/build-protobuf-fixtures.sh), pods as a
// Deployment leaves them, with the managedFields of three managers. The JSON side is what the
// loader pays per page: bytes to a string (latin1 when ASCII), then JSON.parse. The walker is
// measured as it ships, bundled by esbuild (under tsx every cross-module constant is a getter call).
// Targets: walker <= 0.3x JSON for full pods, <= 0.15x for metadata-only.
// Usage: node --expose-gc --import tsx bench/decode-protobuf.ts [--pods 500] [--rounds 5] [--ms 1000]
import { execFileSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import type * as Protobuf from '../src/core/kube/protobuf';
import { benchArg } from './measure';

const PODS = Number(benchArg('--pods', '500'));
const ROUNDS = Number(benchArg('--rounds', '5'));
const MS = Number(benchArg('--ms', '1000'));
const ROOT = path.resolve(__dirname, '..');
const DIR = path.join(ROOT, '.bench/protobuf');

function pages(): void {
  if (fs.existsSync(path.join(DIR, `pods-meta-${PODS}.json`))) return;
  const out = execFileSync('bash', [path.join(ROOT, 'scripts/build-protobuf-fixtures.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = out.trim().split('\n').pop()!;
  execFileSync(bin, ['-out', DIR, '-pods', String(PODS)], { stdio: 'inherit' });
}

/** CPU microseconds per call of `fn`, over calls that take about MS milliseconds of CPU. */
function cpuPerCall(fn: () => unknown): number {
  let n = 0;
  const start = process.cpuUsage();
  let used = 0;
  while (used < MS * 1000) {
    fn();
    n++;
    const d = process.cpuUsage(start);
    used = d.user + d.system;
  }
  return used / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function compare(name: string) {
  const pb = new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.pb`)));
  const json = fs.readFileSync(path.join(DIR, `${name}.json`));
  const fromJson = () => JSON.parse(json.toString(isAscii(json) ? 'latin1' : 'utf8')) as { items: unknown[] };
  const fromPb = () => {
    const d = decodeProtobuf(pb);
    if (!d.ok) throw d.error;
    return d.value as { items: unknown[] };
  };
  if (fromPb().items.length !== fromJson().items.length) throw new Error(`${name}: the two forms hold different item counts`);
  // Alternate the two in every round so both see the same machine load; the median round is
  // reported. No forced GC between runs: a full GC shrinks the heap, and the next run pays for
  // growing it back (in 400 ms runs that doubled the walker's figure), which a loader decoding
  // page after page into a steady heap does not pay.
  const j: number[] = [];
  const p: number[] = [];
  cpuPerCall(fromJson);
  cpuPerCall(fromPb);
  for (let r = 0; r < ROUNDS; r++) {
    j.push(cpuPerCall(fromJson));
    p.push(cpuPerCall(fromPb));
  }
  const jm = median(j);
  const pm = median(p);
  return { name, jsonBytes: json.length, pbBytes: pb.length, jsonUs: jm, pbUs: pm, ratio: pm / jm, ratios: p.map((x, i) => x / j[i]!) };
}

/** The walker bundled as dist/ bundles it. */
function walker(): typeof Protobuf {
  const outfile = path.join(DIR, 'walker.js');
  esbuild.buildSync({
    entryPoints: [path.join(ROOT, 'src/core/kube/protobuf/index.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    logLevel: 'warning',
  });
  return require(outfile) as typeof Protobuf;
}

pages();
const { decodeProtobuf } = walker();
const rows = [
  { ...compare(`pods-${PODS}`), target: 0.3 },
  { ...compare(`pods-meta-${PODS}`), target: 0.15 },
];
for (const r of rows) {
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `${r.name.padEnd(14)} JSON ${kib(r.jsonBytes).padStart(8)} ${(r.jsonUs / 1000).toFixed(2).padStart(7)} ms   protobuf ${kib(r.pbBytes).padStart(8)} ${(r.pbUs / 1000).toFixed(2).padStart(7)} ms   ratio ${r.ratio.toFixed(3)} (target <= ${r.target}) ${r.ratio <= r.target ? 'ok' : 'MISSED'}   rounds ${r.ratios.map((x) => x.toFixed(3)).join(' ')}`,
  );
}
console.log(JSON.stringify({ section: 'decode', pods: PODS, results: rows.map(({ ratios: _, ...r }) => r) }));
