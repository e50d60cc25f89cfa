/**
 * The VS Code side of the writers story without VS Code: the Top Writers view's rows made from the
 * model (src/app/writers/rows.ts) and the writer lanes' events (src/app/writers/lane.ts), from a
 * WriterStats fed objects whose managedFields the demo's API server code wrote, on a FakeClock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { WriterStats } from '../../src/core/writers/stats';
import { writerRows, type WriterRow } from '../../src/app/writers/rows';
import { WritesLane } from '../../src/app/writers/lane';
import { withUpdateEntry } from '../../src/demo/server/managed-fields';
import type { DemoObject } from '../../src/demo/store';
import type { WritesEvent } from '../../src/core/timeline/events';
import type { RecordingRecord } from '../../src/core/recorder/records';
import { writeTrace } from '../../src/core/recorder/export';
import { eventDetailRows } from '../../src/shared/details';
import { itemEnd, SEVERITY, sourceOf, TimelineModel } from '../../src/vscode/timeline/webview/model';
import { makePredicate, sanitizeFilter } from '../../src/vscode/timeline/webview/filter';
import { describeItem, eventLabel } from '../../src/vscode/timeline/webview/format';
import { traceViolations } from '../support/traceRules';

const CONFIGMAPS = { group: '', resource: 'configmaps' };
const DEPLOYMENTS = { group: 'apps', resource: 'deployments' };

let rv = 1;
const timeOf = (clock: FakeClock) => new Date(Date.UTC(2026, 0, 1) + clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');

function configMap(name: string, ns: string, annotations: Record<string, string>): DemoObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, annotations }, data: {} } as unknown as DemoObject;
}

function deployment(name: string, ns: string, replicas: number): DemoObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, uid: `uid-${ns}-${name}` },
    spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
    status: {},
  } as unknown as DemoObject;
}

/** `next` as the API server stores it after `manager` wrote it over `old`. */
function written(clock: FakeClock, old: DemoObject | undefined, next: DemoObject, manager: string): DemoObject {
  const withMeta = { ...next, metadata: { ...next.metadata, managedFields: old?.metadata.managedFields, resourceVersion: String(rv++) } } as DemoObject;
  return withUpdateEntry(old, withMeta, { manager, apiVersion: next.apiVersion as string, time: timeOf(clock) }, true);
}

/** Two managers fighting over an annotation of `writers/contested` (one write every 500 ms), a scaler writing six deployments in `shop` (each once a second: no hot loop). */
async function fightAndScaler(clock: FakeClock, s: WriterStats, seconds: number, onSecond?: () => void): Promise<void> {
  let cm = written(clock, undefined, configMap('contested', 'writers', { owner: 'none' }), 'kubectl-create');
  s.observe('ADDED', CONFIGMAPS, cm);
  const deps = [0, 1, 2, 3, 4, 5].map((i) => written(clock, undefined, deployment(`web-${i}`, 'shop', 1), 'helm'));
  for (const d of deps) s.observe('ADDED', DEPLOYMENTS, d);
  for (let i = 0; i < seconds * 2; i++) {
    await clock.advance(500);
    const manager = i % 2 ? 'fight-b' : 'fight-a';
    cm = written(clock, cm, configMap('contested', 'writers', { owner: manager }), manager);
    s.observe('MODIFIED', CONFIGMAPS, cm);
    for (let j = 0; j < 3; j++) {
      const d = (i % 2) * 3 + j;
      deps[d] = written(clock, deps[d], deployment(`web-${d}`, 'shop', 2 + ((i + j) % 4)), 'scaler');
      s.observe('MODIFIED', DEPLOYMENTS, deps[d]!);
    }
    if (i % 2) onSecond?.();
  }
}

const child = (r: WriterRow, label: string) => r.children?.find((c) => c.label === label);

describe('Top Writers rows', () => {
  it('lists managers by writes/s, each with its own kinds, namespaces and objects, and flags the fight on both fighters', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    await fightAndScaler(clock, s, 10);
    const rows = writerRows(s.snapshot(10, 5));
    // the creates of the first second (helm, kubectl-create) have decayed below the fighters
    assert.deepEqual(
      rows.slice(0, 3).map((r) => r.label),
      ['scaler', 'fight-b', 'fight-a'],
    );
    const [scaler, b, a] = rows as [WriterRow, WriterRow, WriterRow];
    assert.match(scaler.description!, /^6\.\d\/s/);
    assert.equal(scaler.warning, undefined, 'the scaler fights nobody');
    assert.deepEqual(
      child(scaler, 'Kinds')!.children!.map((c) => c.label),
      ['Deployment'],
    );
    assert.deepEqual(
      child(scaler, 'Namespaces')!.children!.map((c) => c.label),
      ['shop'],
    );
    const objects = child(scaler, 'Objects')!.children!.map((c) => c.label);
    assert.equal(objects.length, 5, 'the breakdown asked for');
    for (const o of objects) assert.match(o, /^deployments\.apps:shop\/web-[0-5]$/);
    for (const [row, other] of [
      [a, 'fight-b'],
      [b, 'fight-a'],
    ] as const) {
      assert.equal(row.warning, true, `${row.label} is flagged`);
      assert.match(row.description!, /^FIGHT · \d+\.\d\/s/);
      const fight = row.children![0]!;
      assert.equal(fight.label, 'Fight over metadata.annotations.owner');
      assert.equal(fight.description, `configmaps:writers/contested with ${other}`);
      assert.equal(fight.warning, true);
      assert.deepEqual(
        child(row, 'Kinds')!.children!.map((c) => c.label),
        ['ConfigMap'],
      );
    }
  });

  it('keeps a row id while its rate changes (the tree keeps what was expanded)', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    await fightAndScaler(clock, s, 3);
    const first = writerRows(s.snapshot(10, 5));
    await fightAndScaler(clock, s, 3);
    const second = writerRows(s.snapshot(10, 5));
    const ids = (rows: WriterRow[]) => new Set(rows.flatMap((r) => [r.id, ...(r.children ?? []).map((c) => c.id)]));
    for (const id of ids(first)) if (!id.includes('/fight/')) assert.ok(ids(second).has(id), id);
    assert.notDeepEqual(
      first.map((r) => r.description),
      second.map((r) => r.description),
    );
  });

  it('says why it is empty: no sync loop, starting, or nobody writing', () => {
    assert.match(writerRows('no-sync')[0]!.label, /Start the sync loop/);
    assert.match(writerRows('starting')[0]!.label, /Watching/);
    assert.match(writerRows(new WriterStats({ clock: new FakeClock() }).snapshot(10, 5))[0]!.label, /No writes/);
  });

  it('flags a hot loop under its manager with the object and rate', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    let cm = written(clock, undefined, configMap('hot', 'writers', { n: '0' }), 'create');
    for (let i = 1; i < 130; i++) {
      await clock.advance(77);
      cm = written(clock, cm, configMap('hot', 'writers', { n: String(i) }), 'looping-operator');
      s.observe('MODIFIED', CONFIGMAPS, cm);
    }
    const row = writerRows(s.snapshot(10, 5)).find((r) => r.label === 'looping-operator')!;
    assert.equal(row.warning, true);
    assert.match(row.description!, /^HOT LOOP · 1[2-4]\.\d\/s \(1[2-4]\.\d unseen\)$/);
    const hot = row.children![0]!;
    assert.match(hot.label, /^Hot loop at 1[2-4]\.\d\/s$/);
    assert.equal(hot.description, 'configmaps:writers/hot');
  });
});

describe('writer lanes', () => {
  it('one event per busy manager per window, busiest first, the fight flagged on both fighters', async () => {
    const clock = new FakeClock();
    const s = new WriterStats({ clock });
    const lane = new WritesLane(0);
    const counted = {
      observe: (...a: Parameters<WriterStats['observe']>) => {
        const w = s.observe(...a);
        if (w) lane.count(w.manager, w.kind);
        return w;
      },
    } as unknown as WriterStats;
    const windows: ReturnType<WritesLane['flush']>[] = [];
    await fightAndScaler(clock, counted, 10, () => windows.push(lane.flush(clock.now(), s.snapshot(10))));
    assert.equal(windows.length, 10);
    const last = windows.at(-1)!;
    assert.deepEqual(
      last.map((e) => [e.manager, e.writes, e.kinds]),
      [
        ['scaler', 6, ['Deployment']],
        ['fight-a', 1, ['ConfigMap']],
        ['fight-b', 1, ['ConfigMap']],
      ],
    );
    assert.deepEqual(
      last.map((e) => [e.t, e.durationMs]),
      [
        [9000, 1000],
        [9000, 1000],
        [9000, 1000],
      ],
    );
    assert.equal(last[0]!.fight, undefined);
    assert.equal(last[1]!.fight, 'configmaps:writers/contested metadata.annotations.owner with fight-b');
    assert.equal(last[2]!.fight, 'configmaps:writers/contested metadata.annotations.owner with fight-a');
    // before the fight is found, one write a window is under the threshold: the fighters have no mark yet
    assert.deepEqual(
      windows[0]!.map((e) => [e.manager, e.writes]),
      [
        ['helm', 6],
        ['scaler', 6],
      ],
    );
    const firstFlagged = windows.findIndex((w) => w.some((e) => e.fight));
    assert.ok(firstFlagged >= 1 && firstFlagged <= 4, `fight on the lane in window ${firstFlagged}`);
  });

  it('at most maxLanes events a window, and none for a quiet window', () => {
    const lane = new WritesLane(0, { maxLanes: 3 });
    for (let m = 0; m < 10; m++) for (let i = 0; i <= m; i++) lane.count(`m${m}`, 'Pod');
    const snap = { managers: [], fights: [], hotLoops: [] };
    assert.deepEqual(
      lane.flush(1000, snap).map((e) => e.manager),
      ['m9', 'm8', 'm7'],
    );
    assert.deepEqual(lane.flush(2000, snap), []);
  });
});

describe('writer lanes in the timeline', () => {
  const fightEvent = (t: number, manager: string, other: string): WritesEvent => ({
    kind: 'writes',
    t,
    durationMs: 1000,
    manager,
    writes: 2,
    perSecond: 2,
    kinds: ['ConfigMap'],
    fight: `configmaps:writers/contested metadata.annotations.owner with ${other}`,
  });
  const busy: WritesEvent = { kind: 'writes', t: 1000, durationMs: 1000, manager: 'scaler', writes: 6, perSecond: 6, kinds: ['Deployment'] };

  it('draws a lane per manager after every other lane, a fight red, filtered as the "writers" source, by kind and by name', () => {
    const m = new TimelineModel();
    m.add([
      {
        id: 1,
        event: { kind: 'iteration', t: 0, source: 'config', op: 'ADD', key: 'default/web-0', handler: 'HandlePodAdditions', durationMs: 1, outcome: 'ok' },
      },
      { id: 2, event: fightEvent(1000, 'fight-b', 'fight-a') },
      { id: 3, event: fightEvent(1000, 'fight-a', 'fight-b') },
      { id: 4, event: busy },
    ]);
    const lanes = m.lanes();
    assert.deepEqual(
      lanes.slice(-3).map((l) => [l.key, l.label]),
      [
        ['writer:fight-a', 'writer fight-a'],
        ['writer:fight-b', 'writer fight-b'],
        ['writer:scaler', 'writer scaler'],
      ],
    );
    const fight = m.byId(3)!;
    assert.equal(sourceOf(fight), 'writers');
    assert.equal(fight.sev, SEVERITY.error, 'a fight is drawn as an error');
    assert.equal(m.byId(4)!.sev, SEVERITY.markOk);
    assert.deepEqual([fight.start, itemEnd(fight, 0)], [1000, 2000]);
    const shown = (f: Parameters<typeof makePredicate>[0]) => {
      m.applyFilter(makePredicate(f));
      return [1, 2, 3, 4].filter((id) => m.byId(id)!.visible);
    };
    assert.deepEqual(shown({ hiddenSources: ['writers'], kind: '', name: '' }), [1]);
    assert.deepEqual(shown({ hiddenSources: [], kind: 'Deployment', name: '' }), [4]);
    assert.deepEqual(shown({ hiddenSources: [], kind: '', name: 'contested' }), [2, 3]);
    assert.ok(sanitizeFilter({ hiddenSources: ['writers'] }).hiddenSources.includes('writers'), 'the filter survives a reload');
  });

  it('says in its label and details who wrote, how much, and the fight', () => {
    const e = fightEvent(1000, 'fight-a', 'fight-b');
    assert.equal(eventLabel(e), '1.000s  writer fight-a  2 writes (2.0/s) of ConfigMap · FIGHT');
    const m = new TimelineModel();
    m.add([{ id: 7, event: e }]);
    const d = describeItem(m.byId(7)!, 0);
    assert.equal(d.title, 'writer fight-a · 2 writes (2.0/s) of ConfigMap · FIGHT');
    assert.deepEqual(Object.fromEntries(d.rows), {
      'Field manager': 'fight-a',
      Window: '1.000 s to 2.000 s (1.00 s)',
      Writes: '2',
      Rate: '2.0/s (decayed over about 10 s)',
      Kinds: 'ConfigMap',
      Fight: 'configmaps:writers/contested metadata.annotations.owner with fight-b: the field changes hands back and forth',
    });
    assert.deepEqual(eventDetailRows(e), d.rows, 'the host says the same');
  });

  it("is exported to the trace on its manager's lane, within the rules of the format", async () => {
    const T0 = 1_800_000_000_000;
    const records: RecordingRecord[] = [
      { k: 'T', t: T0, e: { kind: 'iteration', t: 0, source: 'sync', op: 'tick', key: '', handler: 'none', durationMs: 0, outcome: 'ok' } },
      { k: 'T', t: T0 + 2000, e: fightEvent(1000, 'fight-a', 'fight-b') },
      { k: 'T', t: T0 + 2000, e: busy },
    ];
    let s = '';
    await writeTrace(
      (async function* () {
        yield* records;
      })(),
      async (c) => void (s += c),
    );
    assert.deepEqual(traceViolations(s), []);
    const trace = JSON.parse(s) as {
      traceEvents: { ph: string; name: string; cat?: string; pid: number; tid: number; dur?: number; args?: Record<string, unknown> }[];
    };
    const spans = trace.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'writers');
    assert.deepEqual(
      spans.map((e) => [e.name, e.dur, e.args?.manager]),
      [
        ['2 writes', 1_000_000, 'fight-a'],
        ['6 writes', 1_000_000, 'scaler'],
      ],
    );
    const names = trace.traceEvents.filter((e) => e.ph === 'M').map((e) => (e.args as { name: string }).name);
    assert.ok(names.includes('writers (field managers)') && names.includes('writer fight-a') && names.includes('writer scaler'), names.join(', '));
  });
});
