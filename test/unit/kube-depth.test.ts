/**
 * The depth cut of server objects (src/core/kube/objects/depth.ts): kube-apiserver stores JSON nested up to
 * 10,000 levels, and what comes in is cut at MAX_OBJECT_DEPTH levels, each deeper part replaced by a
 * marker string, with one notice per object. The list and watch cases run over a real socket.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient, type WatchEvent } from '../../src/core/kube';
import {
  cappedView,
  capObjectDepth,
  DepthNotices,
  depthNotices,
  MAX_OBJECT_DEPTH,
  parseJsonCapped,
  TRUNCATED,
  truncatedMarker,
} from '../../src/core/kube/objects/depth';
import { shareUnchanged } from '../../src/core/kube/objects/share';
import { deepEqual } from '../../src/core/syncloop/equal';
import { contextFor, startServer, type TestServer } from './kube-helpers';

/** Objects and arrays nested `n` levels (the value itself is level 1), as JSON text. */
function nestedText(n: number, leaf: unknown = 0, kinds: 'object' | 'array' | 'mixed' = 'object'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < n; i++) {
    const arr = kinds === 'array' || (kinds === 'mixed' && i % 2 === 1);
    open += arr ? '[' : '{"a":';
    close = (arr ? ']' : '}') + close;
  }
  return open + JSON.stringify(leaf) + close;
}

/** Levels of objects and arrays in `v` (a scalar: 0), walked without recursion. */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    max = Math.max(max, d);
    for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

describe('capObjectDepth', () => {
  for (const kinds of ['object', 'array', 'mixed'] as const) {
    it(`cuts ${kinds}s nested 9,999 levels at ${MAX_OBJECT_DEPTH}, the deeper part replaced by the marker`, () => {
      const v = JSON.parse(nestedText(9_999, 'leaf', kinds));
      assert.equal(capObjectDepth(v), 1);
      assert.equal(depthOf(v), MAX_OBJECT_DEPTH);
      // Level 1000's only member is the marker where level 1001 was.
      let x: unknown = v;
      for (let i = 1; i < MAX_OBJECT_DEPTH; i++) x = Array.isArray(x) ? x[0] : (x as Record<string, unknown>).a;
      assert.deepEqual(Object.values(x as object), [TRUNCATED]);
      assert.equal(TRUNCATED, '<truncated: nested deeper than 1000 levels>');
      // What every later walk does now works.
      assert.ok(JSON.stringify(v).includes(TRUNCATED));
    });
  }

  it('leaves a value no deeper than the bound exactly as it was (the same objects)', () => {
    const v = JSON.parse(nestedText(MAX_OBJECT_DEPTH, 'leaf', 'mixed'));
    const before = JSON.stringify(v);
    const inner = v.a;
    assert.equal(capObjectDepth(v), 0);
    assert.equal(JSON.stringify(v), before);
    assert.equal(v.a, inner);
    const pod = { metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } };
    const copy = structuredClone(pod);
    assert.equal(capObjectDepth(pod), 0);
    assert.deepEqual(pod, copy);
    assert.equal(capObjectDepth('text'), 0);
    assert.equal(capObjectDepth(null), 0);
  });

  it('counts every subtree it cut, siblings included; a smaller bound has its own marker', () => {
    const v = { a: { b: { c: 1 }, d: [[1], 2] }, e: 3 };
    assert.equal(capObjectDepth(v, 2), 2);
    assert.deepEqual(v, { a: { b: truncatedMarker(2), d: truncatedMarker(2) }, e: 3 });
    assert.throws(() => capObjectDepth({}, 0), RangeError);
  });

  it('runs from a stack that is already deep (its own recursion is bounded by the cut)', () => {
    const v = JSON.parse(nestedText(9_999));
    const deepCall = (n: number): number => (n === 0 ? capObjectDepth(v) : deepCall(n - 1) + 0);
    assert.equal(deepCall(3_000), 1);
  });

  it('cappedView cuts a copy of the path down to each cut, shares the rest, and changes nothing it was given', () => {
    const shallow = { x: [1, { y: 2 }] };
    assert.equal(cappedView(shallow), shallow, 'nothing to cut: the value itself');
    const v = { keep: { k: 1 }, deep: { b: { c: { d: 1 } } }, list: [{ e: { f: 1 } }, 'x'] };
    const before = JSON.stringify(v);
    const w = cappedView(v, 3);
    assert.equal(JSON.stringify(v), before, 'unchanged');
    assert.deepEqual(w, { keep: { k: 1 }, deep: { b: { c: truncatedMarker(3) } }, list: [{ e: truncatedMarker(3) }, 'x'] });
    assert.equal(w.keep, v.keep, 'an uncut member is shared');
    const deep = JSON.parse(nestedText(9_999, 'leaf', 'mixed'));
    assert.equal(depthOf(cappedView(deep)), MAX_OBJECT_DEPTH);
  });

  it('parseJsonCapped parses, then cuts', () => {
    assert.equal(depthOf(parseJsonCapped(nestedText(9_999, 'x', 'array'))), MAX_OBJECT_DEPTH);
  });
});

describe("deepEqual (the sync loop's) on values nested past the bound", () => {
  it('answers without overflowing the stack: distinct values nested 9,999 levels are unequal (a change), equal ones within the bound equal', () => {
    const a = JSON.parse(nestedText(9_999, 'leaf', 'mixed'));
    const b = JSON.parse(nestedText(9_999, 'leaf', 'mixed'));
    assert.equal(deepEqual(a, b), false);
    assert.equal(deepEqual(a, a), true);
    assert.equal(deepEqual(JSON.parse(nestedText(MAX_OBJECT_DEPTH, 'x')), JSON.parse(nestedText(MAX_OBJECT_DEPTH, 'x'))), true);
    assert.equal(deepEqual(JSON.parse(nestedText(MAX_OBJECT_DEPTH, 'x')), JSON.parse(nestedText(MAX_OBJECT_DEPTH, 'y'))), false);
  });
});

describe('DepthNotices', () => {
  const deep = (name: string, uid?: string) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'team-a', ...(uid ? { uid } : {}) },
  });

  it('tells each object once, however many times it is reported (every watch event of it), naming kind, namespace/name and apiVersion', () => {
    const n = new DepthNotices();
    const told: string[] = [];
    n.subscribe((m) => told.push(m));
    for (let i = 0; i < 50; i++) n.report(deep('deep', 'uid-1'));
    n.report(deep('other', 'uid-2'));
    n.report(deep('no-uid'));
    n.report(deep('no-uid'));
    assert.equal(told.length, 3);
    assert.equal(
      told[0],
      `Widget team-a/deep (example.com/v1) nests deeper than 1000 levels: it is kept cut at that depth, each deeper part replaced by "${TRUNCATED}"`,
    );
    assert.match(told[1]!, /^Widget team-a\/other /);
    assert.match(told[2]!, /^Widget team-a\/no-uid /);
  });

  it('names at most 100 objects, then says once that more were cut', () => {
    const n = new DepthNotices();
    const told: string[] = [];
    n.subscribe((m) => told.push(m));
    for (let i = 0; i < 1_000; i++) n.report(deep(`w-${i}`, `uid-${i}`));
    assert.equal(told.length, 101);
    assert.match(told[100]!, /^more than 100 objects nest deeper than 1000 levels/);
  });

  it('a listener that throws does not stop the others, and an unsubscribed one hears nothing', () => {
    const n = new DepthNotices();
    const told: string[] = [];
    n.subscribe(() => {
      throw new Error('broken listener');
    });
    const off = n.subscribe((m) => told.push(m));
    n.report(deep('a', 'u-a'));
    off();
    n.report(deep('b', 'u-b'));
    assert.equal(told.length, 1);
  });
});

describe('a custom resource nested 9,999 levels, from a real server', () => {
  const servers: TestServer[] = [];
  const clients: KubeClient[] = [];
  after(async () => {
    clients.forEach((c) => c.close());
    await Promise.all(servers.map((s) => s.close()));
  });
  const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
  // Written as kube-apiserver writes a custom resource (keys sorted), the deep part as text: no
  // JSON.stringify of it on this side could write it.
  const widget = (name: string, uid: string, rv: string, spec: string) =>
    `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}","namespace":"team-a","resourceVersion":"${rv}","uid":"${uid}"},"spec":${spec}}`;
  const deepSpec = (leaf: number) => nestedText(9_999, leaf, 'mixed');

  it('a list page and watch events: every object flows, the deep one cut at 1,000 levels, one notice for it across the list and all its events', async () => {
    const s = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('watch=')) {
        res.end(
          [
            `{"type":"MODIFIED","object":${widget('deep', 'uid-deep', '11', deepSpec(1))}}`,
            `{"type":"MODIFIED","object":${widget('flat', 'uid-flat', '12', '{"n":1}')}}`,
            `{"type":"MODIFIED","object":${widget('deep', 'uid-deep', '13', deepSpec(2))}}`,
            `{"type":"MODIFIED","object":${widget('deep', 'uid-deep', '14', deepSpec(3))}}`,
          ].join('\n') + '\n',
        );
        return;
      }
      res.end(
        `{"apiVersion":"example.com/v1","items":[${widget('deep', 'uid-deep', '9', deepSpec(0))},${widget('flat', 'uid-flat', '10', '{"n":0}')}],"kind":"WidgetList","metadata":{"continue":"","resourceVersion":"10"}}`,
      );
    });
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    const told: string[] = [];
    const off = depthNotices.subscribe((m) => told.push(m));
    try {
      const listed = await c.list(widgets, { limit: 500 });
      assert.deepEqual(
        listed.items.map((o) => o.metadata.name),
        ['deep', 'flat'],
      );
      assert.equal(depthOf(listed.items[0]), MAX_OBJECT_DEPTH);
      assert.ok(JSON.stringify(listed.items[0]).includes(TRUNCATED));
      const events: WatchEvent[] = [];
      const end = await c.watch(widgets, { resourceVersion: '10' }, (e) => events.push(e));
      assert.equal(end.kind, 'closed');
      assert.deepEqual(
        events.map((e) => `${e.object.metadata.name}@${e.object.metadata.resourceVersion}`),
        ['deep@11', 'flat@12', 'deep@13', 'deep@14'],
      );
      // What the sync loop does with each MODIFIED event: share with the version held, compare.
      let held: unknown = listed.items[0];
      for (const e of events.filter((x) => x.object.metadata.name === 'deep')) {
        assert.equal(depthOf(e.object), MAX_OBJECT_DEPTH);
        const next = shareUnchanged(held, e.object);
        assert.equal(deepEqual(next, held), false);
        held = next;
      }
      assert.equal(told.length, 1, told.join('\n'));
      assert.match(told[0]!, /^Widget team-a\/deep \(example\.com\/v1\) nests deeper than 1000 levels/);
    } finally {
      off();
    }
  });
});
