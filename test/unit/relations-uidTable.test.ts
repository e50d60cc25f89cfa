// UidTable (src/core/relations/uidTable.ts): uid -> id as a Map would answer, for lowercase UUIDs
// (held as words, deletes shifting their neighbours back) and any other uid alike, through growth
// and deletes in crowded runs of slots.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UidTable } from '../../src/core/relations/uidTable';
import { uidOfWords, uidWords } from '../../src/core/kube/objects/uidWords';

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
const uuid = (a: number, b: number, c: number, d: number) => {
  const h = hex8(a) + hex8(b) + hex8(c) + hex8(d);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

describe('UidTable', () => {
  it('answers as a Map after any sequence of sets, gets and deletes, past growth', () => {
    // A pool of UUIDs (some differing in one word only) and uids that are not lowercase UUIDs.
    const uid = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.tuple(fc.nat({ max: 7 }), fc.nat({ max: 3000 })).map(([w, n]) => uuid(w === 0 ? n : 0x1234, w === 1 ? n : 7, w === 2 ? n : n * 31, n)),
      },
      { weight: 1, arbitrary: fc.constantFrom('u1', 'root', 'A1067A8E-9446-4E90-A528-8EC0F1AC1966', '', 'a1067a8e-9446-4e90-a528-8ec0f1ac196') },
    );
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.record({ op: fc.constant('set' as const), uid, id: fc.nat() }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), uid }) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1500, maxLength: 3000 }), (ops) => {
        const t = new UidTable();
        const m = new Map<string, number>();
        for (const o of ops) {
          if (o.op === 'set') {
            t.set(o.uid, o.id);
            m.set(o.uid, o.id);
          } else assert.equal(t.delete(o.uid), m.delete(o.uid));
        }
        assert.equal(t.size, m.size);
        for (const [u, id] of m) assert.equal(t.get(u), id, u);
        for (const o of ops) if (!m.has(o.uid)) assert.equal(t.get(o.uid), undefined);
      }),
      { numRuns: 60 },
    );
  });

  it('adds the uid its get did not find without reading it again, and hands over its words', () => {
    const t = new UidTable();
    const w = new Uint32Array(4);
    const u = 'a1067a8e-9446-4e90-a528-8ec0f1ac1966';
    assert.equal(t.get(u), undefined);
    t.addLast(7);
    assert.equal(t.lastWordsInto(w, 0), true);
    assert.equal(uidOfWords(w, 0), u);
    assert.equal(t.get(u), 7);
    assert.equal(t.get('odd'), undefined);
    t.addLast(8);
    assert.equal(t.lastWordsInto(w, 0), false);
    assert.equal(t.get('odd'), 8);
  });

  it('reads back exactly the lowercase UUIDs it packs, and packs nothing else', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), fc.nat(), (a, b, c, d) => {
        const w = new Uint32Array(4);
        const u = uuid(a, b, c, d);
        assert.equal(uidWords(u, w, 0), true);
        assert.equal(uidOfWords(w, 0), u);
        assert.equal(uidWords(u.toUpperCase(), w, 0), u === u.toUpperCase());
      }),
    );
  });
});
