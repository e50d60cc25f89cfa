// The trace export follows the Trace Event format's rules (checked by test/support/traceRules.ts,
// itself tested here on traces that break each rule), overlapping spans of one lane are split into
// sub-tracks, and the JSON lines export has one line per record.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeTrace, jsonLine } from '../../src/core/recorder/export';
import type { RecordingRecord } from '../../src/core/recorder/records';
import { traceViolations } from '../support/traceRules';

async function* from(records: RecordingRecord[]): AsyncGenerator<RecordingRecord> {
  yield* records;
}

async function trace(records: RecordingRecord[]): Promise<string> {
  let s = '';
  await writeTrace(from(records), async (c) => void (s += c));
  return s;
}

const T0 = 1_800_000_000_000;
const it0 = (t: number, durationMs: number, source: 'config' | 'sync' = 'config'): RecordingRecord => ({
  k: 'T',
  t,
  e: { kind: 'iteration', t: 0, source, op: 'UPDATE', key: 'default/web-0', handler: 'HandlePodUpdates', durationMs, outcome: 'ok' },
});

describe('trace rules checker', () => {
  it('accepts a well-formed trace and names each broken rule', () => {
    const ok = {
      traceEvents: [
        { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'a' } },
        { name: 'x', ph: 'X', pid: 1, tid: 1, ts: 0, dur: 5 },
        { name: 'y', ph: 'X', pid: 1, tid: 1, ts: 1, dur: 2 },
        { name: 'b', ph: 'B', pid: 1, tid: 2, ts: 3 },
        { name: 'b', ph: 'E', pid: 1, tid: 2, ts: 4 },
      ],
    };
    assert.deepEqual(traceViolations(JSON.stringify(ok)), []);
    const cases: [unknown, RegExp][] = [
      ['{"traceEvents": [', /well-formed/],
      [{ traceEvents: [{ name: 'a', ph: 'Q', pid: 1, tid: 1, ts: 0 }] }, /ph "Q"/],
      [{ traceEvents: [{ name: 'a', ph: 'X', pid: 1, tid: 1, ts: 0 }] }, /dur >= 0/],
      [{ traceEvents: [{ name: 'a', ph: 'X', pid: 1, tid: 1, ts: '5', dur: 1 }] }, /microseconds/],
      [{ traceEvents: [{ name: 'a', ph: 'B', pid: 1, tid: 1, ts: 0 }] }, /never ended/],
      [{ traceEvents: [{ name: 'a', ph: 'E', pid: 1, tid: 1, ts: 0 }] }, /no open B/],
      [
        {
          traceEvents: [
            { name: 'a', ph: 'X', pid: 1, tid: 1, ts: 0, dur: 5 },
            { name: 'b', ph: 'X', pid: 1, tid: 1, ts: 3, dur: 5 },
          ],
        },
        /overlaps/,
      ],
      [
        {
          traceEvents: [
            { name: 'a', ph: 'B', pid: 1, tid: 1, ts: 0 },
            { name: 'b', ph: 'B', pid: 1, tid: 1, ts: 1 },
            { name: 'a', ph: 'E', pid: 1, tid: 1, ts: 2 },
            { name: 'b', ph: 'E', pid: 1, tid: 1, ts: 3 },
          ],
        },
        /not nested/,
      ],
      [{ traceEvents: [{ name: 'bogus', ph: 'M', pid: 1, tid: 1, args: {} }] }, /unknown metadata/],
    ];
    for (const [doc, re] of cases) {
      const v = traceViolations(typeof doc === 'string' ? doc : JSON.stringify(doc));
      assert.ok(
        v.some((m) => re.test(m)),
        `${JSON.stringify(doc)}: ${v.join('; ')}`,
      );
    }
  });
});

describe('trace export', () => {
  it('splits overlapping spans of one lane into sub-tracks and follows the rules', async () => {
    const records: RecordingRecord[] = [
      { k: 'H', t: T0, version: 1, startedAt: T0, segment: 0, context: 'c' },
      it0(T0 + 10, 8), // 2..10
      it0(T0 + 12, 6), // 6..12: overlaps the first
      it0(T0 + 11, 1), // 10..11: fits after the first
      it0(T0 + 20, 3, 'sync'),
      {
        k: 'T',
        t: T0 + 30,
        e: {
          kind: 'task',
          loadId: 'l',
          taskId: 1,
          worker: 0,
          phase: 'finish',
          t: 0,
          gvr: { group: '', version: 'v1', resource: 'pods' },
          durationMs: 25,
          outcome: 'ok',
          count: 3,
        },
      },
      { k: 'D', t: T0 + 5, op: 'A', key: 'pods/default/web-0', o: { metadata: { name: 'web-0' } } },
      { k: 'D', t: T0 + 6, op: 'A', key: 'events/default/web-0.1', o: { reason: 'Unhealthy', message: 'Liveness probe failed' } },
    ];
    const text = await trace(records);
    assert.deepEqual(traceViolations(text), []);
    const doc = JSON.parse(text) as {
      traceEvents: { ph: string; name: string; pid: number; tid: number; ts?: number; dur?: number; args?: { name?: string } }[];
    };
    const xs = doc.traceEvents.filter((e) => e.ph === 'X' && e.pid === 1);
    const config = xs.filter((e) => e.ts! < 15_000 && e.dur !== 3000);
    assert.equal(new Set(config.map((e) => e.tid)).size, 2, 'two sub-tracks for the overlapping config spans');
    assert.deepEqual(
      config.map((e) => [e.ts, e.dur]).sort((a, b) => a[0]! - b[0]!),
      [
        [2000, 8000],
        [6000, 6000],
        [10_000, 1000],
      ],
    );
    const names = doc.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args!.name);
    assert.ok(
      names.includes('config') &&
        names.includes('config #2') &&
        names.includes('sync') &&
        names.includes('worker 0') &&
        names.includes('pods') &&
        names.includes('Events'),
      names.join(','),
    );
    const task = doc.traceEvents.find((e) => e.pid === 2 && e.ph === 'X')!;
    assert.deepEqual([task.ts, task.dur], [5000, 25_000]);
    assert.ok(doc.traceEvents.some((e) => e.ph === 'i' && e.name === 'Unhealthy'));
  });

  it("a demo controller's reconciles are spans on its own lane, under a controllers process", async () => {
    const reconcile = (t: number, durationMs: number): RecordingRecord => ({
      k: 'T',
      t,
      e: {
        kind: 'reconcile',
        t: 0,
        controller: 'deployment',
        key: 'deployments.apps:story/shop',
        handler: 'syncDeployment',
        durationMs,
        outcome: 'ok',
        created: ['replicasets.apps:story/shop-1'],
      },
    });
    const text = await trace([{ k: 'H', t: T0, version: 1, startedAt: T0, segment: 0, context: 'c' }, reconcile(T0 + 10, 4), reconcile(T0 + 30, 2)]);
    assert.deepEqual(traceViolations(text), []);
    const doc = JSON.parse(text) as { traceEvents: { ph: string; name: string; pid: number; ts?: number; dur?: number; args?: { name?: string } }[] };
    const spans = doc.traceEvents.filter((e) => e.ph === 'X');
    assert.deepEqual(
      spans.map((e) => [e.name, e.ts, e.dur]),
      [
        ['syncDeployment deployments.apps:story/shop', 6000, 4000],
        ['syncDeployment deployments.apps:story/shop', 28_000, 2000],
      ],
    );
    const names = doc.traceEvents.filter((e) => e.ph === 'M').map((e) => e.args!.name);
    assert.ok(names.includes('controller/deployment') && names.includes('controllers'), names.join(','));
  });

  it('jsonl: one line per record with an ISO time', () => {
    const line = jsonLine({ k: 'D', t: T0, op: 'D', key: 'pods/a/b' });
    assert.deepEqual(JSON.parse(line), { time: new Date(T0).toISOString(), k: 'D', t: T0, op: 'D', key: 'pods/a/b' });
  });
});
