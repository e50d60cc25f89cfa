// What grew between two V8 heap snapshots (bench/host-heap.ts --snap, or any .heapsnapshot):
// objects by shape (constructor and their first property names, so a pod's spec and a view are told
// apart where DevTools says "Object"), strings and other nodes by type, and the largest arrays of
// each with a path that holds them (each node's first strong retainer in the snapshot's order; a
// Map's table that doubled shows as its owner's field).
// Given one snapshot, what it holds by shape, largest first. --per N adds bytes per object for N objects
// (e.g. the cluster's object count: what each holder costs per object).
// Usage: node --max-old-space-size=16000 --import tsx bench/heap-compare.ts [BEFORE.heapsnapshot] AFTER.heapsnapshot [--top 30] [--per N]
//        [--by-holder | --owners]
import { readFileSync } from 'node:fs';
import { benchArg } from './measure';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Summary {
  /** shape -> [count, self bytes] */
  shapes: Map<string, [number, number]>;
  /** the largest arrays: bytes and a path that holds each (first strong retainers) */
  arrays: [number, string][];
}

const byHolder = process.argv.includes('--by-holder');
const owners = process.argv.includes('--owners');
/** --samples OWNER: a few paths of what --owners counts under OWNER. */
const samplesOf = benchArg('--samples', '');

function summarize(file: string): Summary {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields: nf, edge_fields: ef } = s.snapshot.meta;
  const types = s.snapshot.meta.node_types[0];
  const etypes = s.snapshot.meta.edge_types[0];
  const [n, en] = [nf.length, ef.length];
  const [iT, iN, iS, iE] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f)) as [number, number, number, number];
  const [eT, eN, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number];
  const { nodes, edges, strings } = s;
  const count = nodes.length / n;
  const parent = new Int32Array(count).fill(-1);
  const viaEdge = new Int32Array(count).fill(-1);
  const shapes = new Map<string, [number, number]>();
  const arrays: [number, number][] = [];
  const shapeNames: string[] = [];
  const shapeIds = new Map<string, number>();
  const shapeOf = new Int32Array(count);
  for (let i = 0, e = 0; i < count; i++) {
    const type = types[nodes[i * n + iT]!]!;
    const props: string[] = [];
    for (let k = nodes[i * n + iE]!; k > 0; k--, e += en) {
      const et = etypes[edges[e + eT]!];
      if (et === 'property' && props.length < 8) props.push(strings[edges[e + eN]!]!);
      const to = edges[e + eTo]! / n;
      if (et !== 'weak' && parent[to] === -1) {
        parent[to] = i;
        viaEdge[to] = e;
      }
    }
    const self = nodes[i * n + iS]!;
    const shape = type === 'object' ? `${strings[nodes[i * n + iN]!]}{${props.join(',')}}` : `(${type})`;
    let id = shapeIds.get(shape);
    if (id === undefined) shapeIds.set(shape, (id = shapeNames.push(shape) - 1));
    shapeOf[i] = id;
    if (type === 'array') arrays.push([self, i]);
  }
  // --owners: every node counted under the nearest instance of a named class above it in the
  // first-retainer tree, with the field it hangs from (`PodStorage.pods`, `DesiredStateOfWorld.byKey`):
  // roughly what each holder keeps (an object two holders share counts for the first one met).
  const samples: number[] = [];
  const plain = /^(Object|Array|Map|Set|system \/ .*|\(.*\)|)$/;
  const ownerOf = (i: number): string => {
    for (let x = i, d = 0; d < 24; d++) {
      const p = parent[x]!;
      if (p === -1) break;
      const name = String(strings[nodes[p * n + iN]!]);
      if (types[nodes[p * n + iT]!] === 'object' && !plain.test(name)) {
        const et = etypes[edges[viaEdge[x]! + eT]!];
        return `${name}${et === 'property' || et === 'internal' ? `.${strings[edges[viaEdge[x]! + eN]!]}` : '[]'}`;
      }
      x = p;
    }
    return '(no named owner)';
  };
  // --by-holder: a node that is no object (a string, an array, a Map's table) is counted under what
  // holds it, `(string) in Object{key,obj,...}.key`, so the strings of a view and of a stored object
  // are told apart.
  for (let i = 0; i < count; i++) {
    let shape = shapeNames[shapeOf[i]!]!;
    if (owners) {
      shape = ownerOf(i);
      if (shape === samplesOf && samples.length < 8 && i % 97 === 0) samples.push(i);
    } else if (byHolder && (shape.startsWith('(') || shape.startsWith('Array{'))) {
      // An array's holder is what holds the Array (and its elements), not the Array.
      let x = i;
      let p = parent[x]!;
      while (p !== -1 && /^(\(array\)|Array\{)/.test(shapeNames[shapeOf[p]!]!)) p = parent[(x = p)]!;
      if (p !== -1) {
        const et = etypes[edges[viaEdge[x]! + eT]!];
        const edge = et === 'property' || et === 'internal' ? `.${strings[edges[viaEdge[x]! + eN]!]}` : '[]';
        shape = `${shape} in ${shapeNames[shapeOf[p]!]!.slice(0, 80)}${edge}`;
      }
    }
    const x = shapes.get(shape) ?? [0, 0];
    x[0]++;
    x[1] += nodes[i * n + iS]!;
    shapes.set(shape, x);
  }
  const label = (i: number) => `${types[nodes[i * n + iT]!]}:${String(strings[nodes[i * n + iN]!]).slice(0, 40)}`;
  const edgeName = (e: number) => {
    const et = etypes[edges[e + eT]!];
    return et === 'element' || et === 'hidden' ? `[${edges[e + eN]}]` : `.${strings[edges[e + eN]!]}`;
  };
  const path = (i: number) => {
    const out: string[] = [];
    for (let x = i, d = 0; x !== -1 && d < 10; x = parent[x]!, d++) out.push(label(x) + (viaEdge[x] === -1 ? '' : edgeName(viaEdge[x]!)));
    return out.join(' <- ');
  };
  for (const i of samples) console.log(`  ${samplesOf}: ${path(i).slice(0, 400)}`);
  arrays.sort((a, b) => b[0] - a[0]);
  return { shapes, arrays: arrays.slice(0, 15).map(([bytes, i]) => [bytes, path(i)]) };
}

function main(): void {
  const files = process.argv.slice(2).filter((a) => a.endsWith('.heapsnapshot'));
  if (files.length < 1 || files.length > 2) throw new Error('usage: heap-compare.ts [BEFORE.heapsnapshot] AFTER.heapsnapshot [--top N] [--per N]');
  const top = Number(benchArg('--top', '30'));
  const per = Number(benchArg('--per', '0'));
  const afterFile = files[files.length - 1]!;
  const beforeFile = files.length === 2 ? files[0]! : '(nothing)';
  const b = summarize(afterFile);
  const a: Summary = files.length === 2 ? summarize(beforeFile) : { shapes: new Map(), arrays: [] };
  const mb = (x: number) => (x / 1e6).toFixed(2);
  const rows = [...new Set([...a.shapes.keys(), ...b.shapes.keys()])].map((k) => {
    const [c0, s0] = a.shapes.get(k) ?? [0, 0];
    const [c1, s1] = b.shapes.get(k) ?? [0, 0];
    return { k, dCount: c1 - c0, dBytes: s1 - s0, count: c1, bytes: s1 };
  });
  const total = rows.reduce((t, r) => t + r.dBytes, 0);
  console.log(`self bytes: ${mb(total)} MB more in ${afterFile} than in ${beforeFile}`);
  console.log(`   count   +MB     now   MB now${per ? ' +B/obj' : ''}  shape`);
  for (const r of rows.sort((x, y) => Math.abs(y.dBytes) - Math.abs(x.dBytes)).slice(0, top)) {
    const perObject = per ? ` ${(r.dBytes / per).toFixed(1).padStart(6)}` : '';
    console.log(
      `${String(r.dCount).padStart(8)} ${mb(r.dBytes).padStart(6)} ${String(r.count).padStart(8)} ${mb(r.bytes).padStart(7)}${perObject}  ${r.k.slice(0, 140)}`,
    );
  }
  for (const [name, s] of [
    ['before', a],
    ['after', b],
  ] as const) {
    console.log(`largest arrays ${name}:`);
    for (const [bytes, p] of s.arrays) console.log(`  ${mb(bytes)} MB ${p.slice(0, 220)}`);
  }
}

main();
