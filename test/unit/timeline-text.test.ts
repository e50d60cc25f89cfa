// What the timeline webview says: the details of a bar or mark (every field, durations, outcome,
// message), labels, saved-state restore, and theme colours from the VS Code variables.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TimelineModel, type Bar, type Mark } from '../../src/vscode/timeline/webview/model';
import { describeItem, itemLabel } from '../../src/vscode/timeline/webview/format';
import { restoreState, saveableState } from '../../src/vscode/timeline/webview/state';
import { readPalette, themeClassOf } from '../../src/vscode/timeline/webview/theme';
import { fitText } from '../../src/vscode/timeline/webview/draw';
import { STYLES } from '../../src/vscode/timeline/webview/layout';
import { formatDuration } from '../../src/shared/details';
import type { LoaderTaskEvent, SyncIterationEvent } from '../../src/core/timeline/events';

const hostile = '<img src=x onerror=alert(1)>';
const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };
const base = { kind: 'task' as const, loadId: 'l1', taskId: 4, worker: 1, gvr, namespace: hostile };
const phases: LoaderTaskEvent[] = [
  { ...base, phase: 'start', t: 1000 },
  { ...base, phase: 'page', t: 1040, count: 500 },
  { ...base, phase: 'retry', t: 1100, status: 429, message: 'Too Many Requests' },
  { ...base, phase: 'page', t: 1300, count: 20 },
  { ...base, phase: 'finish', t: 1301.5, count: 520, pages: 2, retries: 1, durationMs: 301.5, outcome: 'error', status: 403, message: `forbidden: ${hostile}` },
];
const iteration: SyncIterationEvent = {
  kind: 'iteration',
  t: 2500.25,
  source: 'probe',
  op: 'liveness',
  key: `default/${hostile}`,
  handler: 'HandlePodSyncs',
  durationMs: 0.42,
  outcome: 'error',
  message: 'probe failed',
};

function model(): TimelineModel {
  const m = new TimelineModel();
  m.add([...phases, iteration].map((event, id) => ({ id, event })));
  return m;
}

describe('details of a bar (a loader task)', () => {
  it('has every field, with durations, outcome, pages, retries and message; cluster names verbatim as text', () => {
    const m = model();
    const bar = m.byId(0) as Bar;
    const d = describeItem(bar, m.maxT!);
    const rows = Object.fromEntries(d.rows);
    assert.equal(d.title, `list deployments.apps in ${hostile}`);
    assert.equal(rows['Loader task'], '#4 (load l1)');
    assert.equal(rows.Resource, 'deployments.apps/v1');
    assert.equal(rows.Namespace, hostile);
    assert.equal(rows.Worker, '1');
    assert.equal(rows.Started, '1.000 s');
    assert.equal(rows.Finished, '1.302 s');
    assert.equal(rows.Duration, '302 ms');
    assert.equal(rows.Outcome, 'error');
    assert.equal(rows.Items, '520');
    assert.equal(rows.Pages, '2 (500, 20 items)');
    assert.equal(rows.Retries, '1: 1.100 s Too Many Requests');
    assert.equal(rows['HTTP status'], '403');
    assert.equal(rows.Message, `forbidden: ${hostile}`);
  });

  it('says a running task is still running, with its duration so far', () => {
    const m = new TimelineModel();
    m.add([
      { id: 0, event: phases[0]! },
      { id: 1, event: { ...iteration, t: 1500 } },
    ]);
    const rows = Object.fromEntries(describeItem(m.byId(0)!, m.maxT!).rows);
    assert.equal(rows.Finished, '(still running)');
    assert.equal(rows.Outcome, 'running');
    assert.match(rows.Duration!, /so far$/);
    assert.match(itemLabel(m.byId(0)!), /worker 1 {2}list deployments\.apps in .*: running$/);
  });
});

describe('details of a mark (a sync-loop iteration)', () => {
  it('shows source, op, pod, handler, time, duration, outcome and message', () => {
    const m = model();
    const mark = m.byId(5) as Mark;
    const d = describeItem(mark, m.maxT!);
    assert.equal(d.title, `probe · liveness · default/${hostile}`);
    assert.deepEqual(d.rows, [
      ['Sync loop iteration', 'probe / liveness'],
      ['Objects', `default/${hostile}`],
      ['Handler', 'HandlePodSyncs'],
      ['At', '2.500 s'],
      ['Duration', '420 µs'],
      ['Outcome', 'error'],
      ['Message', 'probe failed'],
    ]);
    assert.ok(itemLabel(mark).includes(hostile), 'itemLabel(mark).includes(hostile)');
  });

  it('formats durations as people read them', () => {
    assert.deepEqual([0.42, 3.14159, 42.25, 420, 4200, 42_000].map(formatDuration), ['420 µs', '3.14 ms', '42.3 ms', '420 ms', '4.20 s', '42.0 s']);
  });
});

describe('saved state', () => {
  it('round-trips what the user set', () => {
    const s = restoreState({
      selectedEventId: 12,
      scrollTop: 40,
      filter: 'web',
      view: { start: 5, end: 50 },
      follow: true,
      hiddenSources: ['pleg'],
      kind: 'pods',
      listOpen: true,
    });
    assert.deepEqual(s, {
      selectedEventId: 12,
      scrollTop: 40,
      filter: { hiddenSources: ['pleg'], kind: 'pods', name: 'web' },
      view: { start: 5, end: 50 },
      follow: true,
      listOpen: true,
    });
    assert.deepEqual(restoreState(saveableState(s)), s);
  });

  it('reads the first version of the state (selection, scroll, filter text)', () => {
    const s = restoreState({ selectedEventId: 3, scrollTop: 10, filter: 'kube-system' });
    assert.deepEqual([s.selectedEventId, s.filter.name, s.view, s.follow], [3, 'kube-system', undefined, false]);
  });

  it('turns anything at all into a usable state (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const s = restoreState(raw);
        assert.ok(
          s.view === undefined || (Number.isFinite(s.view.start) && s.view.end > s.view.start),
          's.view === undefined || (Number.isFinite(s.view.start) && s.view.end > s.view.start)',
        );
        assert.ok(
          s.filter.hiddenSources.every((x) => ['loader', 'config', 'pleg', 'sync', 'probe', 'housekeeping'].includes(x)),
          "s.filter.hiddenSources.every((x) => ['loader', 'config', 'pleg', 'sync', 'probe', 'housekeeping'].includes(x))",
        );
        assert.equal(typeof s.filter.name, 'string');
      }),
    );
    assert.deepEqual(restoreState({ hiddenSources: ['pleg', 'evil', 'pleg'], view: { start: 9, end: 1 } }).filter.hiddenSources, ['pleg']);
  });
});

describe('theme', () => {
  it('knows the theme from the body class VS Code sets', () => {
    assert.equal(themeClassOf('vscode-light'), 'light');
    assert.equal(themeClassOf('vscode-dark foo'), 'dark');
    assert.equal(themeClassOf('vscode-high-contrast'), 'highContrast');
    assert.equal(themeClassOf('vscode-high-contrast-light vscode-high-contrast'), 'highContrastLight');
  });

  it('takes canvas colours from the --vscode-* variables, with the theme defaults when unset', () => {
    const vars: Record<string, string> = { '--vscode-charts-red': '#ff0000', '--vscode-editor-background': '#101010', '--vscode-editor-font-size': '14px' };
    const p = readPalette((n) => vars[n] ?? '', 'dark');
    assert.equal(p.styles['bar-error'], '#ff0000');
    assert.equal(p.background, '#101010');
    assert.equal(p.fontSize, 14);
    assert.equal(p.styles['bar-ok'], '#3794ff', 'unset charts-blue falls back to the dark default');
    for (const s of STYLES) assert.ok(p.styles[s], s);
    assert.equal(p.contrastBorder, undefined);
    assert.ok(readPalette(() => '', 'highContrast').contrastBorder, "readPalette(() => '', 'highContrast').contrastBorder");
    assert.notEqual(readPalette(() => '', 'light').background, readPalette(() => '', 'dark').background);
  });

  it('cuts canvas labels to their bar with an ellipsis', () => {
    assert.equal(fitText('deployments.apps', 200, 7), 'deployments.apps');
    assert.equal(fitText('deployments.apps', 70, 7), 'deploymen…');
    assert.equal(fitText('x', 3, 7), '');
  });
});

describe('details of a pod-worker mark', () => {
  it('shows the UID, the worker state, the coalesced pending slot, the next due time, the probes and the inferred flag', () => {
    const m = new TimelineModel();
    const e: SyncIterationEvent = {
      kind: 'iteration',
      t: 1500,
      source: 'podworker',
      op: 'syncing',
      key: 'default/probe-me',
      uid: 'uid-2',
      handler: 'SyncPod',
      durationMs: 0.2,
      outcome: 'ok',
      inferred: true,
      message: 'syncing; 3 updates coalesced into one sync',
      worker: { state: 'syncing', coalesced: 2, nextDueT: 61_500, probes: ['probe-me liveness: failure 1 of failureThreshold 2'] },
    };
    m.add([{ id: 0, event: e }]);
    const d = describeItem(m.byId(0)! as Mark, 0);
    const rows = Object.fromEntries(d.rows);
    assert.equal(rows['Pod worker sync'], 'podworker / syncing');
    assert.equal(rows.UID, 'uid-2');
    assert.equal(rows['Worker state'], 'syncing');
    assert.equal(rows['Pending slot'], '3 updates coalesced into this sync');
    assert.equal(rows['Next due'], '61.500 s (work queue)');
    assert.equal(rows.Probes, 'probe-me liveness: failure 1 of failureThreshold 2');
    assert.match(rows.Inferred!, /^yes/);
    assert.match(itemLabel(m.byId(0)!), /\(inferred\)/);
  });
});
