// The flight recording's format: what is written reads back exactly (objects at every instant, an
// object's history, timeline events), a file cut off at any byte of its last block reads up to the
// block before, a damaged block is recognised by its checksum, segments rotate within their bounds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recorder } from '../../src/core/recorder/recorder';
import { RecordingWriter } from '../../src/core/recorder/writer';
import { Recording } from '../../src/core/recorder/reader';
import { applyMergePatch, deepEqual, deltaOf, mergePatch } from '../../src/core/recorder/diff';
import { BLOCK_HEADER_BYTES, isDataBlock, parseBlockHeader } from '../../src/core/recorder/format';
import type { Obj } from '../../src/core/recorder/records';
import { FakeClock } from '../../src/core/clock';
import fc from 'fast-check';

const never = new AbortController().signal;
const PODS = { group: '', resource: 'pods' };

function pod(name: string, labels: Record<string, string>, extra: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] }, ...extra };
}

/** A recorder on a fake wall clock that the test moves; flushes are explicit. */
async function setup(dir: string, opts: Partial<ConstructorParameters<typeof RecordingWriter>[0]> = {}, start = 1_700_000_000_000) {
  let now = start;
  let rec: Recorder | undefined;
  const writer = new RecordingWriter({
    path: join(dir, 'rec.klr'),
    now: () => now,
    snapshot: Recorder.snapshotOf(() => rec),
    context: 'ctx',
    server: 'https://127.0.0.1:1',
    ...opts,
  });
  await writer.open(never);
  rec = new Recorder(writer, { now: () => now });
  return {
    rec,
    writer,
    path: join(dir, 'rec.klr'),
    advance: (ms: number) => (now += ms),
    get now() {
      return now;
    },
  };
}

describe('recorder format', () => {
  it('round-trips objects at every instant, an object history and timeline events', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const s = await setup(dir, { keyframeChanges: 5, keyframeChangesPerObject: 0 });
    const truth: { t: number; state: Map<string, Obj> }[] = [];
    const state = new Map<string, Obj>();
    const snap = () => truth.push({ t: s.now, state: new Map(state) });
    snap();
    const items = [pod('a', { v: '0' }), pod('b', { v: '0' })];
    s.advance(10);
    s.rec.replace('api', PODS, items);
    for (const p of items) state.set(`pods/default/${(p.metadata as Obj).name}`, p);
    snap();
    for (let i = 1; i <= 30; i++) {
      s.advance(100);
      const p = pod(i % 3 === 0 ? `n${i}` : 'a', { v: String(i) }, { status: { phase: i % 2 ? 'Running' : 'Pending' } });
      s.rec.apply('api', PODS, 'ADDED', p);
      state.set(`pods/default/${(p.metadata as Obj).name}`, p);
      if (i % 7 === 0) {
        s.rec.apply('api', PODS, 'DELETED', pod('b', {}));
        state.delete('pods/default/b');
      }
      s.rec.timeline({ kind: 'iteration', t: i, source: 'config', op: 'ADD', key: 'default/a', handler: 'HandlePodAdditions', durationMs: 1, outcome: 'ok' });
      snap();
      if (i % 4 === 0) await s.writer.flush(never);
    }
    // A relist that lacks n3 deletes it; one that repeats an object unchanged records nothing.
    s.advance(100);
    const kept = [...state.entries()].filter(([k]) => k !== 'pods/default/n3').map(([, v]) => v);
    await s.writer.flush(never);
    const before = s.writer.stats.deltas;
    s.rec.replace('api', PODS, kept);
    await s.writer.flush(never);
    assert.equal(s.writer.stats.deltas, before + 1);
    state.delete('pods/default/n3');
    snap();
    await s.writer.close(never);

    const r = await Recording.open(s.path, never);
    try {
      assert.equal(r.header.context, 'ctx');
      assert.ok(r.keyframes.length >= 3, `keyframes: ${r.keyframes.length}`);
      for (const { t, state: want } of truth) assert.deepEqual(Object.fromEntries(await r.objectsAt(t, never)), Object.fromEntries(want), `at ${t}`);
      const h = await r.historyOf('pods/default/a', never);
      assert.equal(h.length, 21); // the list's add, then 20 of the 30 changes
      assert.equal(h[0]!.op, 'A');
      assert.equal(h[0]!.before, undefined);
      for (let i = 1; i < h.length; i++) assert.deepEqual(h[i]!.before, h[i - 1]!.after);
      assert.deepEqual((h.at(-1)!.after!.metadata as Obj).labels, { v: '29' });
      const hb = await r.historyOf('pods/default/b', never);
      assert.deepEqual(
        hb.map((c) => c.op),
        ['A', 'D'],
      );
      const tl = await r.timelineEvents({}, never);
      assert.equal(tl.length, 30);
      assert.equal((await r.timelineEvents({ from: tl[10]!.t, to: tl[12]!.t }, never)).length, 3);
    } finally {
      r.close();
      rmSync(dir, { recursive: true });
    }
  });

  it('a file cut off at any byte of its last block reads up to the block before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const s = await setup(dir);
    s.rec.replace('api', PODS, [pod('a', { v: '1' })]);
    s.advance(1000);
    await s.writer.flush(never);
    s.rec.apply('api', PODS, 'MODIFIED', pod('a', { v: '2' }));
    s.advance(1000);
    await s.writer.close(never);
    const whole = readFileSync(s.path);
    // The last block's start: walk the headers.
    let off = 0;
    let lastStart = 0;
    while (off < whole.length) {
      lastStart = off;
      off += parseBlockHeader(whole.subarray(off, off + BLOCK_HEADER_BYTES), off)!.size;
    }
    const cut = join(dir, 'cut.klr');
    for (let n = lastStart; n < whole.length; n++) {
      writeFileSync(cut, whole.subarray(0, n));
      const r = await Recording.open(cut, never);
      try {
        const objs = await r.objectsAt(Infinity, never);
        assert.deepEqual((objs.get('pods/default/a')!.metadata as Obj).labels, { v: '1' }, `cut at ${n}`);
        assert.equal(
          r.damage.reduce((x, d) => x + d.bytes, 0),
          n - lastStart,
        );
      } finally {
        r.close();
      }
    }
    // The whole file has the change.
    const r = await Recording.open(s.path, never);
    assert.deepEqual(((await r.objectsAt(Infinity, never)).get('pods/default/a')!.metadata as Obj).labels, { v: '2' });
    r.close();
    rmSync(dir, { recursive: true });
  });

  it('a flipped byte fails the checksum: the block is skipped and counted, never half-read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const s = await setup(dir);
    s.rec.replace('api', PODS, [pod('a', { v: '1' })]);
    await s.writer.flush(never);
    s.advance(10);
    s.rec.apply('api', PODS, 'ADDED', pod('z', { v: '1' }));
    await s.writer.flush(never);
    s.advance(10);
    s.rec.apply('api', PODS, 'ADDED', pod('y', { v: '1' }));
    await s.writer.close(never);
    const buf = readFileSync(s.path);
    // Flip a payload byte of the block that adds z (found by time: the second data block).
    const r0 = await Recording.open(s.path, never);
    const dataBlocks = r0.blocks.filter((b) => isDataBlock(b.kind));
    r0.close();
    const victim = dataBlocks[1]!;
    buf[victim.offset + BLOCK_HEADER_BYTES + 2]! ^= 0xff;
    writeFileSync(s.path, buf);
    const r = await Recording.open(s.path, never);
    const objs = await r.objectsAt(Infinity, never);
    assert.ok(objs.has('pods/default/a'));
    assert.ok(!objs.has('pods/default/z'));
    assert.ok(objs.has('pods/default/y'));
    assert.equal(r.damage.length, 1);
    assert.equal(r.damage[0]!.at, victim.offset);
    r.close();
    // Not a recording at all: a clear error.
    writeFileSync(join(dir, 'x'), 'hello world, this is not a recording at all........');
    await assert.rejects(Recording.open(join(dir, 'x'), never), /not a KubeLoop recording/);
    rmSync(dir, { recursive: true });
  });

  it('a keyframe of many blocks, read ahead: every object, keys with escapes, a damaged block skipped and counted, an abort rejects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const s = await setup(dir, { keyframeBlockObjects: 3, keyframeChanges: 1, keyframeChangesPerObject: 0 });
    const names = Array.from({ length: 20 }, (_, i) => (i === 7 ? 'we"ird\\name' : i === 8 ? 'caf\u00e9-\u00fcml' : `p${i}`));
    s.rec.replace(
      'api',
      PODS,
      names.map((n, i) => pod(n, { i: String(i) })),
    );
    s.advance(10);
    await s.writer.flush(never);
    await s.writer.close(never);
    const r0 = await Recording.open(s.path, never);
    const kf = r0.keyframes[r0.keyframes.length - 1]!;
    assert.equal(kf.last - kf.first + 1, 7, 'twenty objects in blocks of three');
    const all = await r0.objectsAt(Infinity, never);
    assert.deepEqual([...all.keys()].sort(), names.map((n) => `pods/default/${n}`).sort());
    assert.equal((all.get('pods/default/we"ird\\name')!.metadata as { labels: { i: string } }).labels.i, '7');
    // Aborted while reading the keyframe: the query rejects with the abort, nothing is left unhandled.
    const ac = new AbortController();
    const pending = r0.objectsAt(Infinity, ac.signal);
    ac.abort(new Error('user closed the recording'));
    await assert.rejects(pending, /user closed the recording/);
    const victim = r0.blocks[kf.first + 2]!;
    r0.close();
    const buf = readFileSync(s.path);
    buf[victim.offset + BLOCK_HEADER_BYTES + 1]! ^= 0xff;
    writeFileSync(s.path, buf);
    const r = await Recording.open(s.path, never);
    const objs = await r.objectsAt(Infinity, never);
    assert.equal(objs.size, 17, 'one block of three objects lost, the other six read');
    assert.deepEqual(r.damage, [{ segment: 0, at: victim.offset, bytes: victim.size }]);
    r.close();
    rmSync(dir, { recursive: true });
  });

  it('keyframes come after changes in proportion to the objects held, at least keyframeChanges, at most keyframeChangesMax', async () => {
    // 50 pods held; per object 2: a keyframe is due after max(10, min(2 x 50, cap)) changes.
    for (const [cap, due] of [
      [1_000, 100],
      [60, 60],
      [5, 10],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'klr-'));
      const s = await setup(dir, { keyframeChanges: 10, keyframeChangesPerObject: 2, keyframeChangesMax: cap });
      s.rec.replace(
        'api',
        PODS,
        Array.from({ length: 50 }, (_, i) => pod(`p${i}`, { v: '0' })),
      );
      s.advance(10);
      await s.writer.flush(never);
      // The block's bytes count once it is written: the next flush finds the deltas weigh enough.
      s.advance(10);
      await s.writer.flush(never);
      const after = s.writer.stats.keyframes;
      assert.equal(after, 2, 'the opening keyframe and one after the 50 first objects');
      for (let i = 1; i <= due; i++) {
        s.advance(10);
        s.rec.apply('api', PODS, 'MODIFIED', pod(`p${i % 50}`, { v: String(i) }));
        await s.writer.flush(never);
        assert.equal(s.writer.stats.keyframes, i < due ? after : after + 1, `cap ${cap}: keyframes after ${i} changes`);
      }
      await s.writer.close(never);
      const r = await Recording.open(s.path, never);
      assert.equal(r.keyframes.length, 3);
      assert.equal((await r.objectsAt(Infinity, never)).size, 50);
      r.close();
      rmSync(dir, { recursive: true });
    }
  });

  it('rotates segments at maxBytes/segments; each segment opens alone, the whole recording spans them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const s = await setup(dir, { maxBytes: 40_000, segments: 4 });
    for (let i = 0; i < 2000; i++) {
      s.advance(1000);
      s.rec.apply('api', PODS, 'ADDED', pod(`p${i % 50}`, { v: String(i), noise: Math.random().toString(36) }));
      if (i % 5 === 0) await s.writer.flush(never);
    }
    await s.writer.close(never);
    assert.ok(existsSync(`${s.path}.1`) && existsSync(`${s.path}.3`) && !existsSync(`${s.path}.4`));
    let total = 0;
    for (const p of [s.path, `${s.path}.1`, `${s.path}.2`, `${s.path}.3`]) total += statSync(p).size;
    assert.ok(total <= 40_000 + 12_000, `total ${total}`);
    const r = await Recording.open(s.path, never);
    assert.equal(r.headers.length, 4);
    assert.deepEqual(
      r.headers.map((h) => h.segment),
      [...r.headers.map((h) => h.segment)].sort((a, b) => a - b),
    );
    const objs = await r.objectsAt(Infinity, never);
    assert.equal(objs.size, 50);
    assert.deepEqual((objs.get('pods/default/p49')!.metadata as Obj as { labels: Obj }).labels.v, '1999');
    r.close();
    const alone = await Recording.open(`${s.path}.2`, never);
    assert.ok((await alone.objectsAt(Infinity, never)).size > 0);
    alone.close();
    rmSync(dir, { recursive: true });
  });

  it('a run that ends while a periodic flush is under way still writes every record and closes cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const path = join(dir, 'r.klr');
    const clock = new FakeClock();
    let rec: Recorder | undefined;
    const w = new RecordingWriter({ path, snapshot: Recorder.snapshotOf(() => rec) });
    await w.open(never);
    const errors: Error[] = [];
    rec = new Recorder(w, { clock, onError: (e) => errors.push(e) });
    const life = new AbortController();
    const done = rec.start(life.signal);
    rec.apply('api', PODS, 'ADDED', pod('a', { v: '1' }));
    // A write on the thread pool holds the writer's chain while the periodic flush queues behind it.
    void w.flush(never);
    rec.apply('api', PODS, 'ADDED', pod('b', { v: '1' }));
    // Due with the periodic flush, after it: the run ends in the tick the flush started in.
    clock.setTimer(1000, () => life.abort(new Error('interrupted')));
    await clock.advance(1000);
    await done;
    assert.deepEqual(errors, []);
    assert.equal(w.failed, undefined);
    const r = await Recording.open(path, never);
    assert.deepEqual([...(await r.objectsAt(Infinity, never)).keys()].sort(), ['pods/default/a', 'pods/default/b']);
    r.close();
    rmSync(dir, { recursive: true });
  });

  it('an object that cannot be serialized fails the recording once, cleanly: what came before reads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const s = await setup(dir);
    s.rec.apply('api', PODS, 'ADDED', pod('a', { v: '1' }));
    s.advance(10);
    await s.writer.flush(never);
    s.rec.apply('api', PODS, 'ADDED', pod('b', { v: '1' }, { spec: { big: 1n } }));
    await s.writer.flush(never);
    assert.match(String(s.writer.failed), /BigInt/);
    // Later records are dropped; closing does not throw.
    s.rec.apply('api', PODS, 'ADDED', pod('c', { v: '1' }));
    await s.writer.close(never);
    const r = await Recording.open(s.path, never);
    assert.deepEqual([...(await r.objectsAt(Infinity, never)).keys()], ['pods/default/a']);
    r.close();
    rmSync(dir, { recursive: true });
  });

  it('recording anew into a file rotates the old recording away: opening the file reads only the new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const a = await setup(dir);
    a.rec.apply('api', PODS, 'ADDED', pod('old', { v: '1' }));
    await a.writer.close(never);
    const b = await setup(dir, {}, 1_700_000_100_000);
    b.rec.apply('api', PODS, 'ADDED', pod('new', { v: '1' }));
    await b.writer.close(never);
    const r = await Recording.open(b.path, never);
    assert.deepEqual([...(await r.objectsAt(Infinity, never)).keys()], ['pods/default/new']);
    assert.equal(r.headers.length, 1);
    r.close();
    const old = await Recording.open(`${b.path}.1`, never);
    assert.deepEqual([...(await old.objectsAt(Infinity, never)).keys()], ['pods/default/old']);
    old.close();
    rmSync(dir, { recursive: true });
  });

  it('merge patches reproduce the object exactly or the object is stored whole', () => {
    const a = { metadata: { name: 'x', labels: { a: '1', b: '2' } }, spec: { list: [1, 2] } };
    const b = { metadata: { name: 'x', labels: { a: '1' } }, spec: { list: [1, 2, 3] }, status: { phase: 'Running' } };
    const p = mergePatch(a, b);
    assert.deepEqual(p, { metadata: { labels: { b: null } }, spec: { list: [1, 2, 3] }, status: { phase: 'Running' } });
    assert.deepEqual(applyMergePatch(a, p), b);
    // A null value cannot be set by a merge patch: stored whole.
    const c = { ...b, status: { phase: null } } as unknown as Obj;
    assert.deepEqual(deltaOf(b, c), { o: c });
  });

  it('for any two JSON objects: equal gives no delta, a patch rebuilds `after` exactly and is its own JSON, else `after` whole', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, 0, 1, 'a', 'b', ''), tie('arr'), tie('obj')),
      arr: fc.array(tie('value'), { maxLength: 3 }),
      obj: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4, noNullPrototype: true }),
    }));
    const obj = json.obj as fc.Arbitrary<Obj>;
    // `after` is often a small edit of `before`, as a watch's MODIFIED is
    const pair = fc.oneof(
      fc.tuple(obj, obj),
      fc.tuple(obj, obj).map(([a, b]) => [a, { ...a, ...b }] as [Obj, Obj]),
    );
    fc.assert(
      fc.property(pair, ([before, after]) => {
        const same = JSON.stringify(canonical(before)) === JSON.stringify(canonical(after));
        assert.equal(deepEqual(before, after), same);
        const d = deltaOf(before, structuredClone(after));
        if (same) return assert.equal(d, undefined);
        assert.ok(d);
        if ('p' in d) {
          assert.deepEqual(applyMergePatch(before, d.p), after);
          assert.equal(d.json, JSON.stringify(d.p));
        } else assert.deepEqual(d.o, after);
      }),
      { numRuns: 2000, seed: 12 },
    );
  });
});

/** The value with every object's keys sorted (JSON text equality is then deep equality). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical((v as Obj)[k])]),
  );
}
