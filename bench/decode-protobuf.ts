// Decode section of `npm run bench` (issue 41): CPU of the protobuf walker against JSON.parse of the
// same page, for a page of full pods and a metadata-only (PartialObjectMetadataList) page of them;
// then the same pods as a watch stream's ADDED events: protobuf frames against JSON lines, both cut
// from 64 KiB chunks (a socket read) and decoded by eventFrames (listwatch/watchFrames.ts), as a
// watch reads them.
// The pages are real: written by apimachinery's protobuf serializer and encoding/json
// (scripts/protobuf-fixtures, built and cached by scripts/build-protobuf-fixtures.sh), pods as a
// Deployment leaves them, with the managedFields of three managers. The JSON side is what the
// loader pays per page: bytes to a string (latin1 when ASCII), then JSON.parse. The walker is
// measured as it ships, bundled by esbuild (under tsx every cross-module constant is a getter call).
// Targets: walker <= 0.3x JSON for full pods, <= 0.15x for metadata-only; the watch streams as the
// list pages, per event.
// Then the other kinds of the load's mix, as the loader reads them (ConfigMaps and Secrets without
// their data: ListOptions.rowsOnly): one page of each (up to --pods objects), both forms served by
// an in-process demo cluster of --mix-objects objects, whose objects weigh what a real
// kube-apiserver's do (test/apiserver/weight.test.ts), managedFields included. No target: the
// load's ratio to its JSON decode floor is what these add up to (`npm run bench -- load`).
// And the page of full pods as `kubeloop load` reads it: its items counted, none decoded.
// Usage: node --expose-gc --import tsx bench/decode-protobuf.ts [--pods 500] [--rounds 5] [--ms 1000] [--mix-objects 40000]
import { execFileSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { shipped } from './shipped';
import type * as Protobuf from '../src/core/kube/protobuf';
import type * as WatchFrames from '../src/core/kube/listwatch/watchFrames';
import { PROTOBUF_ACCEPT } from '../src/core/kube/protobuf';
import { startDemoCluster } from '../src/demo';
import { benchArg } from './measure';

const PODS = Number(benchArg('--pods', '500'));
const ROUNDS = Number(benchArg('--rounds', '5'));
const MS = Number(benchArg('--ms', '1000'));
const MIX_OBJECTS = Number(benchArg('--mix-objects', '40000'));
const ROOT = path.resolve(__dirname, '..');
const DIR = path.join(ROOT, '.bench/protobuf');

function pages(): void {
  if (fs.existsSync(path.join(DIR, `watch-pods-meta-${PODS}.jsonl`))) return;
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

/** `reading` 'count': the page as `kubeloop load` reads it, its items counted, not decoded. */
function compare(name: string, reading: 'rows' | 'count' = 'rows') {
  const pb = new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.pb`)));
  return compareBodies(reading === 'count' ? `${name} counted` : name, pb, fs.readFileSync(path.join(DIR, `${name}.json`)), reading);
}

function compareBodies(name: string, pb: Uint8Array, json: Buffer, reading: 'rows' | 'count' = 'rows') {
  const fromJson = () => JSON.parse(json.toString(isAscii(json) ? 'latin1' : 'utf8')) as { items: unknown[] };
  const fromPb = () => {
    const d = decodeProtobuf(pb, reading);
    if (!d.ok) throw d.error;
    return d.value as { items: unknown[] };
  };
  return measure(name, json.length, pb.length, fromJson, fromPb, fromJson().items.length, fromPb().items.length);
}

/** A watch stream's events (NAME.pb frames, NAME.jsonl lines) read from 64 KiB chunks as a watch reads them. */
function compareWatch(name: string) {
  const pb = fs.readFileSync(path.join(DIR, `${name}.pb`));
  const json = fs.readFileSync(path.join(DIR, `${name}.jsonl`));
  const read = (stream: Buffer, contentType: string) => {
    const chunks: Buffer[] = [];
    for (let at = 0; at < stream.length; at += 64 * 1024) chunks.push(stream.subarray(at, at + 64 * 1024));
    return () => {
      const frames = eventFrames(contentType);
      let events = 0;
      for (const c of [...chunks, undefined]) {
        const f = c ? frames.push(c) : frames.end();
        if (f.failed) throw new Error(`${name}: ${f.detail ?? f.failed}`);
        events += f.events.length;
      }
      return events;
    };
  };
  const fromJson = read(json, 'application/json');
  const fromPb = read(pb, 'application/vnd.kubernetes.protobuf;stream=watch');
  return measure(name, json.length, pb.length, fromJson, fromPb, fromJson(), fromPb());
}

function measure(name: string, jsonBytes: number, pbBytes: number, fromJson: () => unknown, fromPb: () => unknown, jsonCount: number, pbCount: number) {
  if (pbCount !== jsonCount) throw new Error(`${name}: the two forms hold different item counts (${pbCount}, ${jsonCount})`);
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
  return { name, items: pbCount, jsonBytes, pbBytes, jsonUs: jm, pbUs: pm, ratio: pm / jm, ratios: p.map((x, i) => x / j[i]!) };
}

/** The walker and the watch's frame reader, bundled as dist/ bundles them. */
function bundled(): typeof Protobuf & typeof WatchFrames {
  return shipped<typeof Protobuf & typeof WatchFrames>(
    `export { decodeProtobuf } from './src/core/kube/protobuf';\nexport { eventFrames } from './src/core/kube/listwatch/watchFrames';`,
    path.join(DIR, 'walker.js'),
  );
}

/** The kinds of the load's mix besides pods, as `group/version/resource`, asked as the loader asks them. */
const MIX = [
  '/v1/configmaps',
  '/v1/secrets',
  '/v1/serviceaccounts',
  '/v1/endpoints',
  'rbac.authorization.k8s.io/v1/rolebindings',
  'rbac.authorization.k8s.io/v1/roles',
  'rbac.authorization.k8s.io/v1/clusterroles',
  'coordination.k8s.io/v1/leases',
  'events.k8s.io/v1/events',
  'apps/v1/controllerrevisions',
  'networking.k8s.io/v1/ingresses',
  'policy/v1/poddisruptionbudgets',
  'autoscaling/v2/horizontalpodautoscalers',
];

function get(base: string, p: string, accept: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(p, base), { headers: { accept } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${p}: ${res.statusCode}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** One page of each kind of MIX, in JSON and in protobuf, from a demo cluster of MIX_OBJECTS objects. */
async function mixPages(): Promise<{ name: string; pb: Uint8Array; json: Buffer }[]> {
  const demo = await startDemoCluster({ objects: MIX_OBJECTS, seed: 7, kubelet: false });
  try {
    const out: { name: string; pb: Uint8Array; json: Buffer }[] = [];
    for (const t of MIX) {
      const [group, version, resource] = t.split('/') as [string, string, string];
      const p = `${group ? `/apis/${group}` : '/api'}/${version}/${resource}?limit=${PODS}`;
      const [json, pb] = [await get(demo.url, p, 'application/json'), await get(demo.url, p, PROTOBUF_ACCEPT)];
      out.push({ name: `${resource}${group ? `.${group.split('.')[0]}` : ''}`, pb: new Uint8Array(pb), json });
    }
    return out;
  } finally {
    await demo.stop();
  }
}

pages();
const { decodeProtobuf, eventFrames } = bundled();

async function main(): Promise<void> {
  const rows: (ReturnType<typeof measure> & { target?: number })[] = [
    { ...compare(`pods-${PODS}`), target: 0.3 },
    { ...compare(`pods-meta-${PODS}`), target: 0.15 },
    { ...compareWatch(`watch-pods-${PODS}`), target: 0.3 },
    { ...compareWatch(`watch-pods-meta-${PODS}`), target: 0.15 },
    compare(`pods-${PODS}`, 'count'),
  ];
  if (MIX_OBJECTS > 0) for (const m of await mixPages()) rows.push(compareBodies(m.name, m.pb, m.json));
  for (const r of rows) {
    const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
    const perItem = (us: number) => `${(us / r.items).toFixed(1).padStart(5)} us/item`;
    console.log(
      `${r.name.padEnd(20)} JSON ${kib(r.jsonBytes).padStart(8)} ${(r.jsonUs / 1000).toFixed(2).padStart(7)} ms ${perItem(r.jsonUs)}   protobuf ${kib(r.pbBytes).padStart(8)} ${(r.pbUs / 1000).toFixed(2).padStart(7)} ms ${perItem(r.pbUs)}   ratio ${r.ratio.toFixed(3)}${r.target === undefined ? '' : ` (target <= ${r.target}) ${r.ratio <= r.target ? 'ok' : 'MISSED'}`}   rounds ${r.ratios.map((x) => x.toFixed(3)).join(' ')}`,
    );
  }
  console.log(JSON.stringify({ section: 'decode', pods: PODS, results: rows.map(({ ratios: _, ...r }) => r) }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
