/**
 * The writer model (src/core/writers): rates, decay and top-K; who wrote a version; no-op and unseen
 * writes; fights; hot loops; bounded memory. Objects carry managedFields as the demo's API server
 * records them (withUpdateEntry), time on a FakeClock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { DecayingRates } from '../../src/core/writers/rates';
import { WriterStats, type WriterFinding } from '../../src/core/writers/stats';
import { leafPaths } from '../../src/core/writers/entries';
import { withApplyEntry, withUpdateEntry } from '../../src/demo/server/managed-fields';
import type { DemoObject } from '../../src/demo/store';

const DEPLOYMENTS = { group: 'apps', resource: 'deployments' };

let rv = 1;
function deployment(name: string, ns = 'shop', replicas = 1, status: Record<string, unknown> = {}, annotations?: Record<string, string>): DemoObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, resourceVersion: String(rv++), ...(annotations ? { annotations } : {}) },
    spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
    status,
  } as DemoObject;
}

const replicasOf = (d: DemoObject) => (d.spec as { replicas: number }).replicas;

/** managedFields' time: seconds only, as the API server writes it. */
const timeOf = (clock: FakeClock) => new Date(Date.UTC(2026, 0, 1) + clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');

/** `next` as the API server stores it after `manager` wrote it over `old` (new resourceVersion, managedFields updated). */
function written(clock: FakeClock, old: DemoObject | undefined, next: DemoObject, manager: string, subresource?: 'status'): DemoObject {
  const time = timeOf(clock);
  const withMeta = { ...next, metadata: { ...next.metadata, managedFields: old?.metadata.managedFields, resourceVersion: String(rv++) } } as DemoObject;
  return withUpdateEntry(old, withMeta, { manager, apiVersion: 'apps/v1', time, ...(subresource ? { subresource } : {}) }, true);
}

describe('DecayingRates', () => {
  it('reads a steady rate back as writes per second, and forgets it after silence', async () => {
    const clock = new FakeClock();
    const r = new DecayingRates(10_000);
    for (let i = 0; i < 600; i++) {
      r.add('m', clock.now());
      await clock.advance(200); // 5 writes/s for 120 s
    }
    assert.ok(Math.abs(r.rate('m', clock.now()) - 5) < 0.3, `rate ${r.rate('m', clock.now())}`);
    await clock.advance(120_000);
    r.prune(clock.now());
    assert.equal(r.size, 0);
  });
  it('reads a steady rate true from its first seconds (the warm-up scaled up)', async () => {
    const clock = new FakeClock();
    const r = new DecayingRates(10_000);
    for (let i = 0; i < 39; i++) {
      r.add('m', clock.now());
      await clock.advance(77); // 13 writes/s for 3 s
    }
    assert.ok(Math.abs(r.rate('m', clock.now()) - 13) < 1, `rate ${r.rate('m', clock.now())}`);
  });
  it('top(k) is the k fastest keys, fastest first, ties by key', () => {
    const r = new DecayingRates(10_000);
    for (const [k, n] of [
      ['a', 3],
      ['b', 9],
      ['c', 1],
      ['d', 9],
      ['e', 5],
    ] as const)
      r.add(k, 0, n);
    assert.deepEqual(
      r.top(3, 0).map((x) => x.key),
      ['b', 'd', 'e'],
    );
  });
  it('keeps at most maxKeys keys, the weakest dropped first', () => {
    const r = new DecayingRates(10_000, 100);
    for (let i = 0; i < 1000; i++) r.add(`k${i}`, 0, 1 + i);
    r.prune(0);
    assert.equal(r.size, 100);
    assert.equal(r.top(1, 0)[0]!.key, 'k999');
  });
});

describe('leafPaths', () => {
  it('names the owned leaves of a FieldsV1 set', () => {
    assert.deepEqual(leafPaths({ 'f:metadata': { 'f:annotations': { 'f:x': {} } }, 'f:spec': { 'f:replicas': {}, 'f:t': { '.': {}, 'f:a': {} } } }), [
      'metadata.annotations.x',
      'spec.replicas',
      'spec.t',
      'spec.t.a',
    ]);
  });
});

describe('WriterStats', () => {
  it('counts writes per manager, kind, namespace and object, the writer found from managedFields', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    let a = written(clock, undefined, deployment('a'), 'kubectl-create');
    s.observe('ADDED', DEPLOYMENTS, a);
    for (let i = 0; i < 10; i++) {
      await clock.advance(500);
      a = written(clock, a, deployment('a', 'shop', 1, { observedGeneration: i }), 'deployment-controller', 'status');
      s.observe('MODIFIED', DEPLOYMENTS, a);
    }
    const snap = s.snapshot();
    assert.deepEqual(
      snap.managers.map((m) => m.key),
      ['deployment-controller', 'kubectl-create'],
    );
    assert.ok(snap.managers[0]!.perSecond > 1.8 && snap.managers[0]!.perSecond < 2.2, `${snap.managers[0]!.perSecond}`);
    assert.equal(snap.kinds[0]!.key, 'Deployment');
    assert.equal(snap.namespaces[0]!.key, 'shop');
    assert.equal(snap.objects[0]!.key, 'deployments.apps:shop/a');
  });

  it('tells a no-op write (only resourceVersion and managedFields moved) and an unseen one (nothing the row shows) from a visible one', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    let a = written(clock, undefined, deployment('a', 'shop', 2, { readyReplicas: 2 }), 'kubectl-create');
    s.observe('ADDED', DEPLOYMENTS, a);
    for (let i = 0; i < 20; i++) {
      await clock.advance(1000);
      // noisy: applies what is there already, so only its managedFields entry (and the resourceVersion) moves
      a = withApplyEntry(
        { ...a, metadata: { ...a.metadata, resourceVersion: String(rv++) } },
        { spec: { replicas: replicasOf(a) } },
        { manager: 'noisy', apiVersion: 'apps/v1', time: timeOf(clock) },
      );
      s.observe('MODIFIED', DEPLOYMENTS, a);
      // quiet: a status field no row shows
      a = written(clock, a, deployment('a', 'shop', replicasOf(a), { readyReplicas: 2, observedGeneration: i }), 'quiet', 'status');
      s.observe('MODIFIED', DEPLOYMENTS, a);
      // loud: the READY column changes
      a = written(clock, a, deployment('a', 'shop', 3 - (i % 2), { readyReplicas: 2, observedGeneration: i }), 'loud');
      s.observe('MODIFIED', DEPLOYMENTS, a);
    }
    const m = new Map(s.snapshot().managers.map((x) => [x.key, x]));
    assert.ok(m.get('noisy')!.noopPerSecond > 0.5, 'no-op writes counted');
    assert.equal(m.get('quiet')!.noopPerSecond, 0);
    assert.ok(m.get('quiet')!.unseenPerSecond > 0.5, 'unseen writes counted');
    assert.equal(m.get('loud')!.unseenPerSecond, 0);
    assert.equal(s.snapshot().unseenObjects[0]!.key, 'deployments.apps:shop/a');
  });

  it('flags two managers taking one field from each other as a fight, once, naming the field', async () => {
    const clock = new FakeClock();
    const found: WriterFinding[] = [];
    const s = new WriterStats({ clock, onFinding: (f) => found.push(f) });
    let a = written(clock, undefined, deployment('a'), 'kubectl-create');
    s.observe('ADDED', DEPLOYMENTS, a);
    const flaggedAt: number[] = [];
    for (let i = 0; i < 10; i++) {
      await clock.advance(1000);
      const [manager, value] = i % 2 ? ['scaler-b', 'b'] : ['scaler-a', 'a'];
      a = written(clock, a, deployment('a', 'shop', 1, {}, { 'demo/owner': value }), manager);
      s.observe('MODIFIED', DEPLOYMENTS, a);
      if (found.length && !flaggedAt.length) flaggedAt.push(clock.now());
    }
    assert.equal(found.length, 1, JSON.stringify(found));
    const f = found[0]!;
    assert.equal(f.kind, 'fight');
    assert.ok(f.kind === 'fight' && f.path === 'metadata.annotations.demo/owner', JSON.stringify(f));
    assert.deepEqual(f.kind === 'fight' && [...f.managers].sort(), ['scaler-a', 'scaler-b']);
    assert.ok(flaggedAt[0]! <= 6000, `flagged at ${flaggedAt[0]} ms`);
    assert.equal(s.snapshot().fights.length, 1);
    await clock.advance(120_000);
    assert.equal(s.snapshot().fights.length, 0, 'a fight that stopped leaves the list');
  });

  it('does not call one edit and its correction a fight', async () => {
    const clock = new FakeClock();
    const found: WriterFinding[] = [];
    const s = new WriterStats({ clock, onFinding: (f) => found.push(f) });
    let a = written(clock, undefined, deployment('a', 'shop', 3), 'helm');
    s.observe('ADDED', DEPLOYMENTS, a);
    await clock.advance(1000);
    a = written(clock, a, deployment('a', 'shop', 5), 'kubectl-edit');
    s.observe('MODIFIED', DEPLOYMENTS, a);
    await clock.advance(1000);
    a = written(clock, a, deployment('a', 'shop', 3), 'helm');
    s.observe('MODIFIED', DEPLOYMENTS, a);
    assert.deepEqual(found, []);
  });

  it('flags a manager writing one object above the hot-loop rate for the hold time, and not a steady slow writer', async () => {
    const clock = new FakeClock();
    const found: WriterFinding[] = [];
    const s = new WriterStats({ clock, onFinding: (f) => found.push(f) });
    let hot = written(clock, undefined, deployment('hot'), 'create');
    let slow = written(clock, undefined, deployment('slow'), 'create');
    for (let i = 0; i < 400; i++) {
      await clock.advance(77); // ~13 writes/s, as the operator of issue 44
      hot = written(clock, hot, deployment('hot', 'shop', 1, { observedGeneration: i }), 'looping-operator', 'status');
      s.observe('MODIFIED', DEPLOYMENTS, hot);
      if (i % 13 === 0) {
        slow = written(clock, slow, deployment('slow', 'shop', 1, { observedGeneration: i }), 'calm-controller', 'status');
        s.observe('MODIFIED', DEPLOYMENTS, slow);
      }
    }
    assert.deepEqual(
      found.map((f) => f.kind === 'hotloop' && [f.key, f.manager]),
      [['deployments.apps:shop/hot', 'looping-operator']],
    );
    const loops = s.snapshot().hotLoops;
    assert.equal(loops.length, 1);
    assert.ok(loops[0]!.perSecond > 10, `${loops[0]!.perSecond}`);
  });

  it('keeps at most maxObjects versions and forgets rates once writes stop', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock, maxObjects: 1000, maxFieldObjects: 100 });
    for (let i = 0; i < 20_000; i++) {
      s.observe('MODIFIED', DEPLOYMENTS, written(clock, undefined, deployment(`d${i}`, `ns${i % 50}`), 'bulk'));
      if (i % 500 === 0) await clock.advance(1000);
    }
    assert.equal(s.snapshot().keptObjects, 1000);
    assert.equal(s.snapshot().keptFieldObjects, 100);
    await clock.advance(120_000);
    const snap = s.snapshot(5);
    assert.equal(snap.objects.length, 0);
    assert.equal(snap.managers.length, 0);
  });

  it('counts deletes under "(delete)" and forgets the deleted object', () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    const a = written(clock, undefined, deployment('a'), 'create');
    s.observe('ADDED', DEPLOYMENTS, a);
    s.observe('DELETED', DEPLOYMENTS, a);
    const snap = s.snapshot();
    assert.deepEqual(snap.managers.map((m) => m.key).sort(), ['(delete)', 'create']);
    assert.equal(snap.keptObjects, 0);
  });
});
