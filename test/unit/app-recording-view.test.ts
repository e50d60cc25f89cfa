// Open Recording... without VS Code: a recording's timeline on its own axis, the instant an event
// stands for, the banner, Go to Time's parsing, the Recording tree's rows, the recorded YAML (Secrets
// masked, marked as a recording), the virtual documents' addresses, and an object's history list,
// read from a real recording written by the recorder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  changedFields,
  historyDiffTitle,
  historyItems,
  objectLabel,
  parseRecordingDocPath,
  recordedTypes,
  recordedPage,
  RECORDED_PAGE,
  sortedKeys,
  recordingDocPath,
  renderRecordedYaml,
  type RecordingDoc,
} from '../../src/app/recording/recordedObjects';
import { instantOf, parseInstant, recordedTimeline, recordingBanner } from '../../src/app/recording/recordedTimeline';
import { Recorder } from '../../src/core/recorder/recorder';
import { Recording } from '../../src/core/recorder/reader';
import type { TimelineRecord } from '../../src/core/recorder/records';
import { RecordingWriter } from '../../src/core/recorder/writer';
import type { SyncIterationEvent } from '../../src/core/timeline/events';

const never = new AbortController().signal;
const at = (h: number, m: number, s: number, ms = 0) => new Date(2024, 2, 3, h, m, s, ms).getTime();
const iteration = (t: number, durationMs: number): SyncIterationEvent => ({
  kind: 'iteration',
  t,
  source: 'config',
  op: 'UPDATE',
  key: 'default/web-0',
  handler: 'HandlePodUpdates',
  durationMs,
  outcome: 'ok',
});

describe('a recording in the timeline', () => {
  it("puts events on the recording's axis (ms since its start) from the earliest-recorded origin", () => {
    const start = at(10, 0, 0);
    const origin = start - 5000; // the timeline's origin was 5 s before the recording started
    const records: TimelineRecord[] = [
      { k: 'T', t: origin + 6000 + 2, e: iteration(6000, 2) }, // recorded at its end
      { k: 'T', t: origin + 7000, e: { ...iteration(7000, 0), worker: { state: 'syncing' as const, coalesced: 0, nextDueT: 17000 } } },
      { k: 'T', t: origin + 9000 + 40, e: iteration(9000, 1) }, // recorded late
    ];
    const events = recordedTimeline(records, start);
    assert.deepEqual(
      events.map((e) => e.t),
      [1000, 2000, 4000],
    );
    assert.equal((events[1] as SyncIterationEvent).worker?.nextDueT, 12000);
    assert.equal(records[0]!.e.t, 6000, 'the records are not changed');
    assert.deepEqual(recordedTimeline([], start), []);
    assert.equal(instantOf(events[0]!, start), start + 1002, 'an iteration stands for the instant it ended');
  });

  it('says which recording, its span and read-only in the banner, and the instant shown once chosen', () => {
    const range = { start: at(9, 1, 2), end: at(9, 30, 0) };
    assert.equal(recordingBanner('night.klr', range), 'Recording night.klr — 09:01:02..09:30:00 (read-only)');
    assert.equal(
      recordingBanner('night.klr', range, at(9, 15, 7)),
      'Recording night.klr — 09:01:02..09:30:00 (read-only) · the Recording view shows the cluster at 09:15:07',
    );
  });

  it('reads Go to Time as a clock time within the recording, or +seconds from its start', () => {
    const range = { start: at(23, 59, 30, 500), end: at(23, 59, 30, 500) + 120_000 };
    assert.equal(parseInstant('+10', range), range.start + 10_000);
    assert.equal(parseInstant('+0.25', range), range.start + 250);
    assert.equal(parseInstant('23:59:40', range), at(23, 59, 40));
    assert.equal(parseInstant('23:59:30', range), range.start, "the start's own second is in");
    assert.equal(parseInstant('00:00:10', range), at(23, 59, 30) + 40_000, 'after midnight: the next day');
    assert.equal(parseInstant('00:01:31', range), undefined, 'after the end');
    assert.equal(parseInstant('23:58', range), undefined, 'before the start');
    assert.equal(parseInstant('25:00', range), undefined);
    assert.equal(parseInstant('soon', range), undefined);
  });
});

describe('the cluster as recorded', () => {
  it('lists types then objects, sorted, pods first and Events last; labels namespace/name or name', () => {
    const types = recordedTypes(['pods/b/x', 'events/b/x.1', 'deployments.apps/a/d', 'pods/a/y', 'nodes//n1', 'not-a-key', 'pods/a/']);
    assert.deepEqual(types, [
      { type: 'pods', keys: ['pods/b/x', 'pods/a/y'] },
      { type: 'deployments.apps', keys: ['deployments.apps/a/d'] },
      { type: 'nodes', keys: ['nodes//n1'] },
      { type: 'events', keys: ['events/b/x.1'] },
    ]);
    // sorted when shown, once
    assert.deepEqual(sortedKeys(types[0]!), ['pods/a/y', 'pods/b/x']);
    assert.deepEqual(types[0]!.keys, ['pods/a/y', 'pods/b/x']);
    assert.equal(objectLabel('pods/a/y'), 'a/y');
    assert.equal(objectLabel('nodes//n1'), 'n1');
  });

  it('pages a type of many objects: 500 rows, then where the next page starts, the last page with none after it', () => {
    const keys = Array.from({ length: 1203 }, (_, i) => `pods/ns/p${String(i).padStart(4, '0')}`);
    const first = recordedPage(keys, 0);
    assert.equal(first.keys.length, RECORDED_PAGE);
    assert.equal(first.keys[0], 'pods/ns/p0000');
    assert.equal(first.next, 500);
    const second = recordedPage(keys, first.next!);
    assert.equal(second.keys[0], 'pods/ns/p0500');
    const last = recordedPage(keys, 1000);
    assert.deepEqual([last.keys.length, last.next, last.keys.at(-1)], [203, undefined, 'pods/ns/p1202']);
    assert.deepEqual(recordedPage(keys.slice(0, 500), 0).next, undefined, 'exactly one page: no "more" row');
  });

  it('addresses documents so that any name round-trips, and rejects what is not one', () => {
    const docs: RecordingDoc[] = [
      { recording: 3, key: 'pods/default/web-0', kind: 'at', t: 1700000000123 },
      { recording: 3, key: 'nodes//node-1', kind: 'before', change: 0 },
      { recording: 4, key: 'configmaps.example.io/ns/a%b#c?d\\e', kind: 'after', change: 12 },
    ];
    for (const d of docs) assert.deepEqual(parseRecordingDocPath(recordingDocPath(d)), d);
    assert.match(recordingDocPath(docs[0]!), /\/web-0\.yaml$/, 'the tab reads the object name');
    for (const bad of ['/x/at/1/pods/a/b.yaml', '/1/sometime/1/pods/a/b.yaml', '/1/at/1/pods/a/b.json', '/1/at/1/pods/a', '/1/at/1/pods/a/%E0.yaml'])
      assert.equal(parseRecordingDocPath(bad), undefined, bad);
  });

  it('renders an object as recorded, marked read-only with its instant, Secret values masked', () => {
    const t = at(12, 0, 1);
    const yaml = renderRecordedYaml('r.klr', 'secrets/default/s', { kind: 'Secret', metadata: { name: 's' }, data: { password: 'aHVudGVyMg==' } }, t);
    assert.match(
      yaml,
      /^# secrets default\/s as recorded at .* \(12:00:01\), from the recording r\.klr\.\n# A recording: read-only, not the cluster now\. Secret values are masked\.\n/,
    );
    assert.doesNotMatch(yaml, /aHVudGVyMg==/);
    assert.match(yaml, /password: '<masked: 7 bytes>'/);
    assert.match(
      renderRecordedYaml('r.klr', 'pods/a/b', undefined, t, 'before the change'),
      /before the change at .*\n.*\n# The object did not exist then\.\n$/,
    );
  });

  it("lists an object's recorded changes newest first with the fields each touched, from a real recording", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-view-'));
    try {
      const path = join(dir, 'r.klr');
      let rec: Recorder | undefined;
      let now = at(8, 0, 0);
      const w = new RecordingWriter({ path, snapshot: Recorder.snapshotOf(() => rec) });
      await w.open(never);
      rec = new Recorder(w, { now: () => now });
      const pods = { group: '', resource: 'pods' };
      const pod = (phase: string, labels: Record<string, string> = {}) => ({
        kind: 'Pod',
        metadata: { name: 'web-0', namespace: 'default', labels },
        status: { phase },
      });
      rec.replace('api', pods, [pod('Pending')]);
      now += 1500;
      rec.apply('api', pods, 'MODIFIED', pod('Running', { app: 'web' }));
      now += 1;
      rec.apply('api', pods, 'DELETED', pod('Running', { app: 'web' }));
      await w.close(never);
      const r = await Recording.open(path, never);
      try {
        const history = await r.historyOf('pods/default/web-0', never);
        const items = historyItems(history);
        assert.deepEqual(
          items.map((i) => [i.change, i.label, i.description]),
          [
            [2, '08:00:01.501 deleted', ''],
            [1, '08:00:01.500 modified', 'metadata.labels.app, status.phase'],
            [0, '08:00:00.000 added', ''],
          ],
        );
        assert.equal(historyDiffTitle('pods/default/web-0', history[1]!), 'default/web-0: modified at 08:00:01.500 (recording)');
      } finally {
        r.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the leaves a change touched, nothing for an add or a delete', () => {
    assert.deepEqual(changedFields({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: 1, c: 3 }, d: [2], e: 'x' }), ['a.c', 'd', 'e']);
    assert.deepEqual(changedFields({ a: 1, gone: 2 }, { a: 1 }), ['gone']);
    assert.deepEqual(changedFields(undefined, { a: 1 }), []);
  });
});
