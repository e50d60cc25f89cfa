// Show Relations on a recorded object, at the app layer (no VS Code): a custom resource's owner and
// what it owns as the recording held them, and its Events, one of them expired by the API server
// two hours before the instant shown, with the warnings filter; an Event recorded after the instant
// is not shown; an object the recording does not hold then is an error value.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recorder } from '../../src/core/recorder/recorder';
import { RecordingWriter } from '../../src/core/recorder/writer';
import { Recording } from '../../src/core/recorder/reader';
import type { Obj } from '../../src/core/recorder/records';
import { recordedRelations } from '../../src/app/relations/recordedRelations';
import { relationRows } from '../../src/app/relations/relationRows';

const never = new AbortController().signal;
const HOUR = 3_600_000;
const WIDGETS = { group: 'example.com', resource: 'widgets' };
const CONFIGMAPS = { group: '', resource: 'configmaps' };
const EVENTS = { group: '', resource: 'events' };

const widget: Obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'shop', uid: 'u-w1' } };
const owned: Obj = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'w1-config',
    namespace: 'shop',
    uid: 'u-cm',
    ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w1', uid: 'u-w1', controller: true }],
  },
};
function event(name: string, type: string, reason: string, at: number, uid = 'u-w1'): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'shop', uid: `u-${name}` },
    involvedObject: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w1', namespace: 'shop', uid },
    type,
    reason,
    message: `${reason} for w1`,
    count: 1,
    lastTimestamp: new Date(at).toISOString(),
    source: { component: 'widget-operator' },
  };
}

describe('relations from a recording (app layer)', () => {
  it('shows owners, owned and Events, one expired two hours before, warnings filterable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-rel-'));
    const path = join(dir, 'r.klr');
    const start = Date.parse('2026-03-04T05:00:00Z');
    let now = start;
    let rec: Recorder | undefined;
    const w = new RecordingWriter({ path, now: () => now, snapshot: Recorder.snapshotOf(() => rec), keyframeEveryMs: HOUR / 2 });
    await w.open(never);
    rec = new Recorder(w, { now: () => now });
    rec.replace('widgets.example.com', WIDGETS, [widget]);
    rec.replace('configmaps', CONFIGMAPS, [owned]);
    const failed = event('w1.fail', 'Warning', 'SyncFailed', now);
    rec.apply('events', EVENTS, 'ADDED', failed);
    rec.apply('events', EVENTS, 'ADDED', event('w1.other', 'Warning', 'Stale', now, 'an-older-uid'));
    now += 60_000;
    rec.apply('events', EVENTS, 'ADDED', event('w1.ok', 'Normal', 'Synced', now));
    await w.flush(never);
    // The API server's one-hour TTL: the Events are deleted an hour later, then an hour of other changes.
    now += HOUR;
    rec.apply('events', EVENTS, 'DELETED', failed);
    for (let i = 0; i < 12; i++) {
      now += 10 * 60_000;
      rec.apply('widgets.example.com', WIDGETS, 'MODIFIED', { ...widget, spec: { generation: i } });
      await w.flush(never);
    }
    const at = now;
    now += 1000;
    rec.apply('events', EVENTS, 'ADDED', event('w1.later', 'Warning', 'AfterTheInstant', now));
    await w.close(never);

    const r = await Recording.open(path, never);
    try {
      const all = await recordedRelations(r, at, 'widgets.example.com/shop/w1', false, never);
      assert.ok('input' in all, JSON.stringify(all));
      assert.deepEqual(all.subject, { uid: 'u-w1', kind: 'Widget', name: 'w1', namespace: 'shop' });
      const events = all.input.events as { reason: string; lastSeen: number }[];
      assert.deepEqual(events.map((e) => e.reason).sort(), ['SyncFailed', 'Synced']);
      const expired = events.find((e) => e.reason === 'SyncFailed')!;
      assert.ok(at - expired.lastSeen >= 2 * HOUR, 'an Event two hours older than the instant shown');
      assert.deepEqual(
        all.input.dependents.children.map((c) => `${c.node.kind}/${c.node.name}`),
        ['ConfigMap/w1-config'],
      );
      const rows = relationRows(all.input);
      assert.equal(rows[3]!.label, 'Events (2)');
      assert.match(rows[1]!.description ?? '', /^recorded, at \d\d:\d\d:\d\d$/);

      const warnings = await recordedRelations(r, at, 'widgets.example.com/shop/w1', true, never);
      assert.ok('input' in warnings);
      const wrows = relationRows(warnings.input);
      assert.equal(wrows[3]!.label, 'Warning Events (1)');
      assert.deepEqual(
        wrows[3]!.children!.map((c) => [c.label, c.warning]),
        [['SyncFailed', true]],
      );

      const up = await recordedRelations(r, at, 'configmaps/shop/w1-config', false, never);
      assert.ok('input' in up);
      assert.deepEqual(
        up.input.owners.children.map((c) => [c.node.kind, c.node.name, c.node.virtual]),
        [['Widget', 'w1', false]],
      );

      const missing = await recordedRelations(r, start - 1, 'widgets.example.com/shop/w1', false, never);
      assert.ok('error' in missing && /is not in the recording at/.test(missing.error), JSON.stringify(missing));
    } finally {
      r.close();
      rmSync(dir, { recursive: true });
    }
  });
});
