/**
 * The flight recorder and its reader with objects nested deeper than any walk can take (kube-apiserver
 * stores custom resources nested up to 10,000 levels): the recorder writes such an object cut at
 * MAX_OBJECT_DEPTH, never failing (which would stop the recording for everyone); a recording that
 * holds one anyway (written by something else) reads back cut, so history, export and replay work.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_OBJECT_DEPTH, TRUNCATED } from '../../src/core/kube/objects/depth';
import { jsonLine } from '../../src/core/recorder/export';
import { Recorder } from '../../src/core/recorder/recorder';
import { Recording } from '../../src/core/recorder/reader';
import type { Obj } from '../../src/core/recorder/records';
import { RecordingWriter } from '../../src/core/recorder/writer';
import { chain, nestedText } from '../support/deep';

const never = new AbortController().signal;
const WIDGETS = { group: 'example.com', resource: 'widgets' };

const widget = (name: string, spec: unknown, rv: string): Obj => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'team-a', uid: `uid-${name}`, resourceVersion: rv },
  spec,
});

async function recorderIn(dir: string) {
  let now = 1_700_000_000_000;
  let rec: Recorder | undefined;
  const path = join(dir, 'rec.klr');
  const writer = new RecordingWriter({ path, now: () => now, snapshot: Recorder.snapshotOf(() => rec), keyframeChanges: 3, keyframeChangesPerObject: 0 });
  await writer.open(never);
  rec = new Recorder(writer, { now: () => now });
  return { rec, writer, path, advance: (ms: number) => (now += ms) };
}

describe('recorder: objects nested 9,999 levels', () => {
  it('records them cut at 1,000 levels (never failing), and every other object as it came', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-deep-'));
    try {
      const s = await recorderIn(dir);
      s.rec.replace('w', WIDGETS, [widget('deep', JSON.parse(nestedText(9_999, '0')), '1'), widget('flat', { n: 0 }, '2')]);
      for (let i = 1; i <= 4; i++) {
        s.advance(1000);
        s.rec.apply('w', WIDGETS, 'MODIFIED', widget('deep', JSON.parse(nestedText(9_999, String(i))), String(10 + i)));
        s.rec.apply('w', WIDGETS, 'MODIFIED', widget('flat', { n: i }, String(20 + i)));
        await s.writer.flush(never);
      }
      await s.writer.close(never);
      assert.equal(s.writer.failed, undefined, String(s.writer.failed));
      assert.ok(s.writer.stats.keyframes >= 2, 'keyframes hold the deep object too');

      const r = await Recording.open(s.path, never);
      const objs = await r.objectsAt(Infinity, never);
      assert.deepEqual((objs.get('widgets.example.com/team-a/flat')!.spec as Obj).n, 4);
      // The object is level 1, spec level 2, the last object level 1,000: 999 steps of `a` from spec, the last to the marker.
      const deep = chain(objs.get('widgets.example.com/team-a/deep')!.spec);
      assert.deepEqual(deep, { levels: MAX_OBJECT_DEPTH - 1, end: TRUNCATED });
      const history = await r.historyOf('widgets.example.com/team-a/deep', never);
      assert.deepEqual(
        history.map((c) => `${c.op}@${(c.after!.metadata as Obj).resourceVersion}`),
        ['A@1', 'M@11', 'M@12', 'M@13', 'M@14'],
      );
      r.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a recording written elsewhere that holds them whole reads back cut: objects at an instant, history, export lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-deep-'));
    try {
      const s = await recorderIn(dir);
      // What another writer could put in a file: the object's JSON text as it is, 9,999 levels.
      const text = (leaf: number) =>
        `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"deep","namespace":"team-a"},"spec":${nestedText(9_999, String(leaf))}}`;
      s.writer.delta(s.advance(10), 'A', 'widgets.example.com/team-a/deep', 1, text(0));
      s.writer.delta(s.advance(10), 'M', 'widgets.example.com/team-a/deep', 2, `{"spec":${nestedText(9_999, '1')}}`);
      await s.writer.close(never);

      const r = await Recording.open(s.path, never);
      const at = await r.objectsAt(Infinity, never);
      assert.deepEqual(chain(at.get('widgets.example.com/team-a/deep')!.spec), { levels: MAX_OBJECT_DEPTH - 1, end: TRUNCATED });
      const history = await r.historyOf('widgets.example.com/team-a/deep', never);
      assert.equal(history.length, 2);
      assert.equal(chain(history[1]!.after!.spec).end, TRUNCATED);
      let lines = 0;
      for await (const rec of r.records(never)) {
        jsonLine(rec); // the export serializes every record
        lines++;
      }
      assert.ok(lines >= 4);
      r.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
