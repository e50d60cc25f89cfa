// The generator at the scale the issue asks for: 100,000 objects of 60 or more types. Its time and
// heap are printed for the report, not asserted: on a shared 2-core machine a wall-time bound is a
// flaky test (it took 48 s under a load average of 16); the demo bench measures speed.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectStore } from '../../src/demo/store';
import { Catalog } from '../../src/demo/server/catalog';
import { generateObjects } from '../../src/demo/generator';

it('generates 100,000 objects of 60 or more types into a store, with the measured time, heap and JSON size', () => {
  const store = new ObjectStore();
  new Catalog(store).registerBuiltins();
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const res = generateObjects(store, { objects: 100_000, seed: 2026 });
  const heapAfter = process.memoryUsage().heapUsed;
  assert.equal(res.objects, 100_000);
  let bytes = 0;
  let types = 0;
  for (const t of store.types()) {
    if (!t.verbs.includes('list')) continue;
    const items = store.list(t.group, t.resource).items;
    if (items.length) types++;
    for (const o of items) bytes += JSON.stringify(o).length;
  }
  const figures = {
    ms: Math.round(res.ms),
    heapMB: Math.round((heapAfter - heapBefore) / 1e6),
    jsonMB: +(bytes / 1e6).toFixed(1),
    avgBytes: Math.round(bytes / res.objects),
    types,
    namespaces: res.namespaces.length,
    nodes: res.nodes.length,
  };
  console.log(`generator 100k: ${JSON.stringify(figures)}`);
  assert.ok(types >= 60);
});
