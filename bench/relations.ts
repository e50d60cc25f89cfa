// The owner index at 100k objects (issue 44, story 5: "Owners/owned of an object at 100k objects in
// at most 50 ms"): the demo generator's cluster (test/support/demoOwnerGraph.ts) indexed, then the
// time of an owners chain and a dependents tree (best, median and worst of --repeat), the build time and
// the index's live heap. Also one owner of every object (--objects ConfigMaps under one owner):
// the widest tree a query can meet.
// Usage: node --import tsx bench/relations.ts [--objects 100000] [--repeat 20]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OwnerIndex } from '../src/core/relations/ownerIndex';
import { demoOwners, indexOf } from '../test/support/demoOwnerGraph';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const live = () => (gc(), gc(), process.memoryUsage().heapUsed);

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const objects = arg('objects', 100_000);
const repeat = arg('repeat', 20);

function timed(fn: () => unknown): { best: number; median: number; worst: number } {
  const d: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    fn();
    d.push(performance.now() - t);
  }
  d.sort((a, b) => a - b);
  return { best: d[0]!, median: d[d.length >> 1]!, worst: d[d.length - 1]! };
}
const fig = (t: { best: number; median: number; worst: number }) => `best ${ms(t.best)} median ${ms(t.median)} worst ${ms(t.worst)}`;

const ms = (x: number) => `${x.toFixed(2)} ms`;
const demo = demoOwners(objects);
const before = live();
const t0 = performance.now();
const index = indexOf(demo.items);
const buildMs = performance.now() - t0;
const heap = live() - before;
const owners = timed(() => index.ownersOf(demo.ownedPod));
const dependents = timed(() => index.dependentsOf(demo.widestOwner));
console.log(
  `demo cluster: ${index.size} objects, ${index.nodes} nodes; build ${ms(buildMs)}; index heap ${(heap / 1e6).toFixed(1)} MB (${Math.round(heap / index.nodes)} B/node, the name strings shared with the objects; uids kept as words); owners chain ${fig(owners)}; dependents of the widest owner (${index.dependentsOf(demo.widestOwner)!.children.length}) ${fig(dependents)}`,
);

const wide = new OwnerIndex();
wide.upsert({ metadata: { uid: 'root', name: 'root', namespace: 'ns' } }, 'widgets.example.com', 'Widget');
const ref = [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'root', uid: 'root', controller: true }];
for (let i = 0; i < objects; i++)
  wide.upsert({ metadata: { uid: `u${i}`, name: `cm-${i}`, namespace: 'ns', ownerReferences: ref } }, 'configmaps', 'ConfigMap');
const all = timed(() => wide.dependentsOf('root'));
console.log(`one owner of ${objects} ConfigMaps: dependents (default limit, QUERY_LIMIT nodes) ${fig(all)}`);
