/**
 * Is this current, after the fact (issue 44, story 4): a watch event missed on ConfigMaps (the
 * demo's drop-events fault) puts on the timeline, lane 'freshness', the consistency check's verdict
 * "diverged 1", the relist "consistency repair: 1 missed event" and a stale spell that ends; and a
 * recording made by the loop while it happened reads the same events back. Over a real socket to
 * the demo cluster; the consistency period is shortened from its 5 minutes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTrace, type TraceEvent } from '../../src/core/recorder/export';
import { Recording } from '../../src/core/recorder/reader';
import { startRecording, type RecordingSession } from '../../src/core/recorder/session';
import type { SyncIterationEvent, TimelineEvent } from '../../src/core/timeline/events';
import { TimelineStore } from '../../src/core/timeline/store';
import { api, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';
import { startSync, type RunningSync } from '../support/syncLoop';

const never = new AbortController().signal;

function freshnessMarks(events: readonly TimelineEvent[]): SyncIterationEvent[] {
  return events.filter((e): e is SyncIterationEvent => e.kind === 'iteration' && e.source === 'freshness');
}

describe('the freshness lane: a missed ConfigMaps event, live and from a recording (demo cluster)', () => {
  let t: TestCluster;
  let s: RunningSync;
  let dir: string;
  let path: string;
  const timeline = new TimelineStore();
  const recording = new AbortController();
  let rec: RecordingSession;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-freshrec-'));
    path = join(dir, 'fresh.klr');
    t = await startTestCluster({ kubelet: false });
    t.cluster.faults.add({ kind: 'drop-events', verb: 'watch', resource: 'configmaps', dropCount: 1, times: 1 });
    rec = await startRecording({ path, context: 'kubeloop-demo', timeline, flushEveryMs: 100 }, recording.signal);
    s = await startSync(t.kubeconfig, {
      timeline,
      observer: rec.recorder,
      types: [{ group: '', version: 'v1', resource: 'configmaps', metadataOnly: true, kind: 'ConfigMap' }],
      consistencyPeriodMs: 1500,
      consistencyConfirmMs: 1000,
    });
    await eventually(() => s.sync.allWatching(), { description: 'every source watching', timeoutMs: 20_000 });
  });
  after(async () => {
    recording.abort();
    await rec?.done;
    await s?.stop();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The ConfigMaps marks: the check that diverged on a second list, the repair's relist, the stale spell that ended. */
  function story(events: readonly TimelineEvent[]) {
    const cms = freshnessMarks(events).filter((e) => e.key === 'configmaps:*');
    return {
      initial: cms.find((e) => e.op === 'relist' && e.message === 'initial list'),
      diverged: cms.find((e) => e.op === 'consistency check' && e.data === 'diverged 1' && /second list/.test(e.message ?? '')),
      repair: cms.find((e) => e.op === 'relist' && e.message === 'consistency repair: 1 missed event'),
      staleAt: cms.find((e) => e.op === 'stale' && e.message === 'missed an event, relisting'),
      spell: cms.find((e) => e.op === 'stale spell'),
    };
  }

  it('live: the verdict, the relist and a stale spell that ends, in that order', async () => {
    assert.ok(story(timeline.toArray()).initial, 'the initial list is a relist span');
    const created = await api(t.cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      json: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'missed', namespace: 'default' } },
    });
    assert.equal(created.status, 201);
    const { diverged, repair, staleAt, spell } = await eventually(
      () => {
        const st = story(timeline.toArray());
        return st.diverged && st.repair && st.staleAt && st.spell
          ? { diverged: st.diverged, repair: st.repair, staleAt: st.staleAt, spell: st.spell }
          : undefined;
      },
      { description: 'the diverged check, the repair relist and the ended stale spell on the timeline', timeoutMs: 20_000 },
    );
    assert.equal(diverged.outcome, 'error');
    assert.equal(staleAt.t, diverged.t, 'stale from the confirmed divergence');
    assert.equal(spell.t, staleAt.t);
    assert.ok(spell.durationMs > 0, 'the spell has a length');
    assert.ok(repair.t >= diverged.t, 'the repair relist starts at or after the verdict');
    assert.ok(Math.abs(spell.t + spell.durationMs - (repair.t + repair.durationMs)) < 1, 'the spell ends as the relist is in');
    assert.equal(
      s.sync
        .freshness()
        .find((f) => f.gvr.resource === 'configmaps')
        ?.freshness.verdict().stale,
      false,
    );
    // pods are checked too, and found consistent
    await eventually(() => freshnessMarks(timeline.toArray()).some((e) => e.key === 'pods:*' && e.op === 'consistency check' && e.data === 'consistent'), {
      description: 'a consistent pods check',
      timeoutMs: 10_000,
    });
  });

  it('from the recording: the same marks read back', async () => {
    const live = freshnessMarks(timeline.toArray());
    recording.abort();
    await rec.done;
    const r = await Recording.open(path, never);
    try {
      const recorded = freshnessMarks((await r.timelineEvents({}, never)).map((x) => x.e));
      assert.deepEqual(recorded.slice(0, live.length), live);
      const st = story(recorded);
      assert.ok(st.diverged && st.repair && st.staleAt && st.spell, 'the recording tells the story');
      // kubeloop export --format trace: the same story as spans on the sync loop's 'freshness' thread
      const chunks: string[] = [];
      await writeTrace(r.records(never), async (c) => void chunks.push(c));
      const trace = JSON.parse(chunks.join('')) as { traceEvents: TraceEvent[] } | TraceEvent[];
      const names = (Array.isArray(trace) ? trace : trace.traceEvents).filter((e) => e.ph === 'X' && e.cat === 'freshness').map((e) => e.name);
      for (const n of ['relist configmaps:*', 'consistency check configmaps:*', 'stale configmaps:*', 'stale spell configmaps:*']) {
        assert.ok(names.includes(n), `${n} in the trace: ${names.join(', ')}`);
      }
    } finally {
      r.close();
    }
  });
});
