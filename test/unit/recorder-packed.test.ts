// The packed data blocks (format version 2 on; data and waitedMs from 3): every record reads back deep-equal to what was
// written (marks field by field, anything else as JSON), a seek's read of the changes alone (JSON
// unparsed, objects built on first read) gives the same objects, strings with escapes and non-ASCII text
// survive, a cut or unknown payload is refused rather than misread, and a version 1 recording (JSON
// lines) still reads while an unknown version is refused by name.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PackedEncoder, decodePacked, decodePackedDeltas, deltaTag } from '../../src/core/recorder/packed';
import { RecordedObjects } from '../../src/core/recorder/objects';
import { BlockKind, encodeBlock, encodeLines } from '../../src/core/recorder/format';
import { Recording, applyDelta } from '../../src/core/recorder/reader';
import type { Obj, RecordingRecord } from '../../src/core/recorder/records';
import type { SyncIterationEvent, TimelineEvent } from '../../src/core/timeline/events';

const never = new AbortController().signal;

/** Encodes records as the writer does (marks and deltas by their own calls, others as JSON). */
function pack(records: RecordingRecord[]): Buffer {
  const enc = new PackedEncoder();
  for (const r of records) {
    if (r.k === 'T') enc.timeline(r.t, r.e);
    else if (r.k === 'D') {
      const form = r.o ? 1 : r.p ? 2 : 0;
      enc.delta(deltaTag(r.op, form), r.t, r.key, r.o ? JSON.stringify(r.o) : r.p ? JSON.stringify(r.p) : undefined);
    } else enc.record(r, JSON.stringify(r));
  }
  return enc.take();
}

/** What JSON lines would have read back: the reference the packed records must equal. */
const viaJson = (records: RecordingRecord[]) => JSON.parse(JSON.stringify(records)) as RecordingRecord[];

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', 'default/web-0', 'caf\u00e9 \u{1F680}', 'a"b\\c\nd\te', 'x'.repeat(300)));
const number = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 1000),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, 2 ** 52, -(2 ** 53), 1e300, 5e-324, 0.1 + 0.2),
);
const mark: fc.Arbitrary<SyncIterationEvent> = fc.record(
  {
    kind: fc.constant('iteration' as const),
    t: number,
    durationMs: number,
    source: fc.constantFrom('config', 'pleg', 'sync', 'informer', 'podworker') as fc.Arbitrary<SyncIterationEvent['source']>,
    op: text,
    key: text,
    handler: text,
    outcome: fc.constantFrom('ok', 'error', 'skipped') as fc.Arbitrary<SyncIterationEvent['outcome']>,
    message: text,
    node: text,
    uid: text,
    data: text,
    inferred: fc.boolean(),
    worker: fc.record(
      {
        state: fc.constantFrom('syncing', 'terminating', 'terminated') as fc.Arbitrary<'syncing'>,
        coalesced: fc.nat(),
        nextDueT: number,
        gracePeriodSeconds: fc.nat(),
        probes: fc.array(text, { maxLength: 3 }),
        waitedMs: number,
      },
      { requiredKeys: ['state', 'coalesced'] },
    ),
  },
  { requiredKeys: ['kind', 't', 'durationMs', 'source', 'op', 'key', 'handler', 'outcome'] },
);
const wallTime = fc.oneof(fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }), fc.double({ min: 0, max: 2e12, noNaN: true }));
const obj = fc.dictionary(text, fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 2 })), { maxKeys: 4 });
const record: fc.Arbitrary<RecordingRecord> = fc.oneof(
  fc.record({ k: fc.constant('T' as const), t: wallTime, e: mark as fc.Arbitrary<TimelineEvent> }),
  fc.record({
    k: fc.constant('T' as const),
    t: wallTime,
    e: fc.oneof(
      // not packable: another kind, a member the mark does not know, a field of another type
      fc.constant({
        kind: 'reconcile',
        t: 1,
        controller: 'deployment',
        key: 'a:b/c',
        handler: 'syncDeployment',
        durationMs: 2,
        outcome: 'ok',
      } as TimelineEvent),
      mark.map((e) => ({ ...e, extra: [1, 'two'] }) as unknown as TimelineEvent),
      mark.map((e) => ({ ...e, message: 42 }) as unknown as TimelineEvent),
      mark.map((e) => ({ ...e, worker: { state: 'syncing', coalesced: 0, more: true } }) as unknown as TimelineEvent),
    ),
  }),
  fc.record({ k: fc.constant('D' as const), t: wallTime, op: fc.constantFrom('A' as const, 'M' as const), key: text, o: obj }),
  fc.record({ k: fc.constant('D' as const), t: wallTime, op: fc.constant('M' as const), key: text, p: obj }),
  fc.record({ k: fc.constant('D' as const), t: wallTime, op: fc.constant('D' as const), key: text }),
  fc.record({ k: fc.constant('KE' as const), t: wallTime, seq: fc.nat(), n: fc.nat() }),
);

describe('packed data blocks', () => {
  it('read back deep-equal to what JSON lines would have read, for any records', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        assert.deepEqual(decodePacked(pack(records)), viaJson(records));
      }),
      { numRuns: 1500, seed: 12 },
    );
  });

  it('a seek reads the same changes with their JSON unparsed, and the objects it builds lazily equal those built change by change', () => {
    // Few keys, so objects are added, patched several times over and deleted.
    const change = fc.oneof(
      record,
      fc.record({ k: fc.constant('D' as const), t: wallTime, op: fc.constantFrom('A' as const, 'M' as const), key: fc.constantFrom('a', 'b', 'c'), o: obj }),
      fc.record({ k: fc.constant('D' as const), t: wallTime, op: fc.constant('M' as const), key: fc.constantFrom('a', 'b', 'c'), p: obj }),
      fc.record({ k: fc.constant('D' as const), t: wallTime, op: fc.constant('D' as const), key: fc.constantFrom('a', 'b', 'c') }),
    );
    fc.assert(
      fc.property(fc.array(change, { maxLength: 40 }), fc.subarray(['a', 'b', 'c']), (records, readEarly) => {
        const buf = pack(records);
        const lazy = decodePackedDeltas(buf);
        const eager = decodePacked(buf).filter((r) => r.k === 'D');
        const parsed = lazy.map((r) => ({
          ...r,
          ...(typeof r.o === 'string' ? { o: JSON.parse(r.o) as Obj } : {}),
          ...(typeof r.p === 'string' ? { p: JSON.parse(r.p) as Obj } : {}),
        }));
        assert.deepEqual(parsed, eager);
        const want = new Map<string, Obj>();
        const got = new RecordedObjects();
        lazy.forEach((r, i) => {
          applyDelta(want, r.key, eager[i]!);
          got.apply(r.key, r);
          // An object read mid-way is built then, and later patches go on from it.
          if (i === lazy.length >> 1) for (const k of readEarly) assert.deepEqual(got.get(k), want.get(k));
        });
        assert.deepEqual(new Map(got), want);
      }),
      { numRuns: 1000, seed: 13 },
    );
  });

  it('keeps quotes, backslashes, newlines and non-ASCII text in keys, names and JSON', () => {
    const odd = ['we"ird\\name', 'line\nbreak', 'caf\u00e9-\u00fcml', '\u{1F680}', '\u0000', 'x'.repeat(127) + '\u00e9'];
    const records: RecordingRecord[] = odd.flatMap((s, i) => [
      {
        k: 'T' as const,
        t: 1000 + i,
        e: { kind: 'iteration' as const, t: i, durationMs: 0.5, source: 'config' as const, op: s, key: s, handler: s, outcome: 'ok' as const, message: s },
      },
      { k: 'D' as const, t: 1000 + i, op: 'A' as const, key: `pods/${s}/${s}`, o: { metadata: { name: s }, data: { [s]: s } } },
    ]);
    assert.deepEqual(decodePacked(pack(records)), records);
  });

  it('refuses a payload cut short or with an unknown tag instead of misreading it', () => {
    const records: RecordingRecord[] = [
      {
        k: 'T',
        t: 1_700_000_000_000,
        e: { kind: 'iteration', t: 5011.41, durationMs: 0.379, source: 'sync', op: 'tick', key: '', handler: 'HandlePodSyncs', outcome: 'skipped' },
      },
      { k: 'D', t: 1_700_000_000_003, op: 'M', key: 'configmaps/default/a', p: { data: { x: '1' } } },
      { k: 'D', t: 1_700_000_000_004, op: 'D', key: 'configmaps/default/a' },
    ];
    const whole = pack(records);
    for (let n = 0; n < whole.length; n++) {
      let got: RecordingRecord[] | undefined;
      try {
        got = decodePacked(whole.subarray(0, n));
      } catch (e) {
        assert.ok(e instanceof RangeError, `cut at ${n}: ${String(e)}`);
        continue;
      }
      // A cut that falls between records reads the records before it, nothing else.
      assert.deepEqual(got, records.slice(0, got.length), `cut at ${n}`);
      assert.ok(got.length < records.length);
    }
    assert.throws(() => decodePacked(Buffer.from([0x7f, 0x00])), RangeError);
  });

  it('reads a version 1 recording (JSON-lines data blocks) and refuses an unknown version by name', async () => {
    const t = 1_700_000_000_000;
    const v1 = Buffer.concat([
      await encodeBlock(BlockKind.Header, [{ k: 'H', version: 1, startedAt: t, t, segment: 0 }]),
      await encodeBlock(BlockKind.KeyframeEnd, [{ k: 'KE', t, seq: 1, n: 0 }]),
      await encodeLines(
        BlockKind.Data,
        [
          JSON.stringify({ k: 'D', t: t + 1, op: 'A', key: 'pods/default/a', o: { metadata: { name: 'a' } } }),
          JSON.stringify({
            k: 'T',
            t: t + 2,
            e: { kind: 'iteration', t: 2, durationMs: 1, source: 'config', op: 'ADD', key: 'default/a', handler: 'HandlePodAdditions', outcome: 'ok' },
          }),
        ],
        t + 1,
        t + 2,
      ),
    ]);
    const r = await Recording.fromBuffer(v1, never);
    assert.deepEqual([...(await r.objectsAt(Infinity, never)).keys()], ['pods/default/a']);
    assert.equal((await r.timelineEvents({}, never)).length, 1);
    r.close();
    const v5 = await encodeBlock(BlockKind.Header, [{ k: 'H', version: 5, startedAt: t, t, segment: 0 }]);
    await assert.rejects(Recording.fromBuffer(v5, never), /recording format version 5 is not one this KubeLoop reads/);
  });
});
