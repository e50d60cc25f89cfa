import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shareUnchanged } from '../../src/core/kube/objects/share';

const pod = (labels: Record<string, string>, ready: boolean) => ({
  kind: 'Pod',
  metadata: { name: 'a', namespace: 'n', uid: 'u1', resourceVersion: ready ? '2' : '1', labels },
  spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }], nodeName: 'node-1' },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: ready ? 'True' : 'False' },
      { type: 'PodScheduled', status: 'True' },
    ],
  },
});

test("unchanged subtrees of the next version are the previous version's objects; changed ones are the new ones", () => {
  const prev = pod({ app: 'x' }, false);
  const next = pod({ app: 'x' }, true);
  const expected = JSON.parse(JSON.stringify(next));
  const prevCopy = JSON.parse(JSON.stringify(prev));
  const r = shareUnchanged(prev, next);
  assert.deepEqual(r, expected, 'the result equals the next version');
  assert.deepEqual(prev, prevCopy, 'the previous version is untouched');
  assert.equal(r.spec, prev.spec, 'an equal spec is shared');
  assert.equal(r.metadata.labels, prev.metadata.labels, 'equal labels are shared');
  assert.notEqual(r.metadata, prev.metadata, 'metadata changed (resourceVersion): its own object');
  assert.notEqual(r.status, prev.status);
  assert.notEqual(r.status.conditions, prev.status.conditions, 'an array with a changed element is the new array');
  assert.notEqual(r.status.conditions[0], prev.status.conditions[0]);
  assert.equal(r.status.conditions[1], prev.status.conditions[1], 'its unchanged elements are shared');
});

test('equal versions give the previous object itself', () => {
  const prev = pod({ app: 'x' }, true);
  assert.equal(shareUnchanged(prev, pod({ app: 'x' }, true)), prev);
});

test('members added, removed or changed in type are never shared wrongly', () => {
  const cases: Array<[unknown, unknown]> = [
    [{ a: { b: 1 } }, { a: { b: 1, c: 2 } }],
    [{ a: { b: 1, c: 2 } }, { a: { b: 1 } }],
    [{ a: [1, 2] }, { a: [1, 2, 3] }],
    [{ a: [1, 2, 3] }, { a: [1, 2] }],
    [{ a: [1] }, { a: { 0: 1 } }],
    [{ a: { 0: 1 } }, { a: [1] }],
    [{ a: null }, { a: {} }],
    [{ a: {} }, { a: null }],
    [{ a: '1' }, { a: 1 }],
    [{ a: { b: undefined } }, { a: { c: 1 } }],
    [
      [{ x: 1 }, { y: 2 }],
      [{ y: 2 }, { x: 1 }],
    ],
  ];
  for (const [prev, next] of cases) {
    const want = JSON.parse(JSON.stringify(next));
    const before = JSON.stringify(prev);
    const r = shareUnchanged(prev, next);
    assert.deepEqual(r, want, JSON.stringify([prev, next]));
    assert.equal(JSON.stringify(prev), before);
    assert.notEqual(r, prev, JSON.stringify([prev, next]));
  }
});

test('undefined members count as absent, as in JSON', () => {
  const prev = { a: { b: 1 }, c: undefined };
  const r = shareUnchanged(prev, { a: { b: 1 } });
  assert.equal(r, prev);
});

test('random edits of a nested value: the result always equals the next version and the previous is untouched', () => {
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const make = (d: number): unknown => {
    const r = rand();
    if (d > 3 || r < 0.3) return [1, 'x', true, null][Math.floor(rand() * 4)];
    if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => make(d + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [`k${i}`, make(d + 1)]));
  };
  const edit = (v: unknown): unknown => {
    if (rand() < 0.15) return make(2);
    if (Array.isArray(v)) return rand() < 0.1 ? v.slice(1) : v.map(edit);
    if (v && typeof v === 'object') {
      const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, edit(x)]));
      if (rand() < 0.1) o[`n${Math.floor(rand() * 3)}`] = make(2);
      return o;
    }
    return v;
  };
  for (let i = 0; i < 2000; i++) {
    const prev = make(0);
    const next = edit(JSON.parse(JSON.stringify(prev)));
    const want = JSON.stringify(next);
    const before = JSON.stringify(prev);
    const r = shareUnchanged(prev, next);
    assert.equal(JSON.stringify(r), want);
    assert.equal(JSON.stringify(prev), before);
    if (JSON.stringify(prev) === want && typeof prev === 'object' && prev !== null) assert.equal(r, prev);
  }
});

test('a version nested 9,999 levels deep (kube-apiserver takes 10,000) is walked without overflowing the stack: shared down to 1,000 levels, kept as given below', () => {
  const nest = (n: number, leaf: unknown) => JSON.parse('{"a":'.repeat(n) + JSON.stringify(leaf) + '}'.repeat(n)) as Record<string, unknown>;
  const prev = { metadata: { name: 'deep' }, spec: nest(9_999, 0), status: { n: 1 } };
  const next = { metadata: { name: 'deep' }, spec: nest(9_999, 0), status: { n: 2 } };
  const r = shareUnchanged(prev, next);
  assert.equal(r.metadata, prev.metadata, 'an equal member is shared');
  assert.equal(r.spec, next.spec, 'a subtree deeper than the bound is not proven equal: kept as given');
  let a: unknown = r.spec;
  let b: unknown = prev.spec;
  for (let i = 0; i < 998; i++) {
    a = (a as Record<string, unknown>).a;
    b = (b as Record<string, unknown>).a;
  }
  assert.notEqual(a, b);
});
