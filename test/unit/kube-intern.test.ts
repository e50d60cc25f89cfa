// StringInterner (src/core/kube/objects/intern.ts): a parsed object's repeated values become one copy each,
// its values never change, unique fields stay out of the table, and the table stays bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { StringInterner } from '../../src/core/kube/objects/intern';
import { shareUnchanged } from '../../src/core/kube/objects/share';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap used after full collections: what is live. */
function liveBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function podJson(i: number): string {
  // Repeated values long enough (~120 characters each) that their copies dominate the object.
  const image = `registry.example.com/team/some-long-image-name-for-the-test:v1.2.3-${'x'.repeat(60)}`;
  const ns = `namespace-with-a-long-name-${'n'.repeat(90)}`;
  return JSON.stringify({
    metadata: { name: `pod-${i}`, namespace: ns, uid: `uid-${i}`, resourceVersion: String(i), labels: { app: `app-${'a'.repeat(110)}` } },
    spec: { containers: [{ name: 'c', image }], nodeName: `node-${'m'.repeat(115)}` },
  });
}

describe('StringInterner', () => {
  it('holds one copy of each repeated value: 20,000 parsed objects shrink by most of their copies', () => {
    const N = 20_000;
    const texts = Array.from({ length: N }, (_, i) => podJson(i));
    // 4 repeated values of ~120 characters per object: ~480 B of copies each, ~9.6 MB in all.
    const copies = N * 4 * 120;
    const base = liveBytes();
    let plain: unknown[] | undefined = texts.map((t) => JSON.parse(t));
    const withCopies = liveBytes() - base;
    plain = undefined;
    const interner = new StringInterner();
    const shared = texts.map((t) => {
      const o = JSON.parse(t);
      interner.internObject(o);
      return o;
    });
    const interned = liveBytes() - base;
    assert.ok(plain === undefined && shared.length === N);
    assert.ok(
      withCopies - interned > copies * 0.8,
      `interning saved ${((withCopies - interned) / 2 ** 20).toFixed(1)} MB of ~${(copies / 2 ** 20).toFixed(1)} MB of copies (${(withCopies / 2 ** 20).toFixed(1)} -> ${(interned / 2 ** 20).toFixed(1)} MB)`,
    );
  });

  it('never changes a value (any JSON)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), (values) => {
        const interner = new StringInterner(16, 32); // small: generations turn over within a run
        for (const v of values) {
          const copy = JSON.parse(JSON.stringify(v)) as unknown;
          interner.internObject(copy);
          assert.deepEqual(copy, JSON.parse(JSON.stringify(v)));
        }
        assert.ok(interner.size <= 16);
      }),
    );
  });

  it("leaves unique fields and the object's own name out of the table, and starts a new generation when full", () => {
    const interner = new StringInterner(100);
    for (let i = 0; i < 1000; i++) {
      interner.internObject({
        metadata: { name: `pod-${i}`, uid: `u-${i}`, resourceVersion: `${i}`, namespace: 'ns', annotations: { note: `free text ${i}` } },
        status: {
          podIP: `10.0.${i >> 8}.${i & 255}`,
          containerStatuses: [{ name: 'c', containerID: `cri://${i}`, state: { running: { startedAt: `t${i}` } } }],
        },
      });
    }
    assert.equal(interner.size, 2, 'only "ns" and the container name "c" were kept');
    for (let i = 0; i < 250; i++) interner.intern(`v${i}`);
    assert.ok(interner.size <= 100, `bounded (${interner.size})`);
    assert.equal(interner.intern('y'.repeat(300)).length, 300, 'a long value passes through');
  });

  it('internChanged interns what a new version changed and skips the subtrees it shares with the held one', () => {
    const held = new StringInterner();
    const prev = JSON.parse(podJson(1)) as Record<string, any>;
    held.internObject(prev);
    const next = JSON.parse(podJson(1)) as Record<string, any>;
    next.metadata.labels.app = 'changed';
    next.metadata.labels.tier = 'web';
    const expected = structuredClone(next);
    const shared = shareUnchanged(prev, next);
    assert.equal(shared.spec, prev.spec, 'the unchanged spec is the held one');
    // Another interner: its table shows which strings the walk visited (the spec's were interned elsewhere).
    const fresh = new StringInterner();
    fresh.internChanged(shared, prev);
    assert.deepEqual(shared, expected, 'no value changed');
    // metadata.namespace and the two label values: the changed metadata walked, the shared spec skipped.
    assert.equal(fresh.size, 3);
    const whole = new StringInterner();
    whole.internObject(structuredClone(expected));
    assert.equal(whole.size, 6, 'internObject also visits the spec (container name, image, node)');
    fresh.internChanged(prev, prev);
    assert.equal(fresh.size, 3, 'a version equal throughout (the held one itself) is not walked');
  });
});
