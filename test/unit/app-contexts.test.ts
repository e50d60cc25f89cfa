// Several contexts in the tree, without VS Code: the retry back-off on a FakeClock, the listed set
// (lazy: nothing is loaded until opened), each context's state through its loads and retries, and
// the text of its row.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { emptySummary } from '../../src/core/loader/clusterLoader';
import { Backoff, RetryTimer, type BackoffSpec } from '../../src/app/contexts/backoff';
import { contextRow, extraContexts, withContext, withoutContext } from '../../src/app/contexts/contextSet';
import { ListedContexts, type ContextLoad } from '../../src/app/contexts/listedContexts';
import type { LoadResult } from '../../src/app/load/loadRunner';
import type { LoadTaskResult } from '../../src/core/loader/types';

const SPEC: BackoffSpec = { duration: 1000, factor: 2, jitter: 0, cap: 5000 };

describe('context retry back-off', () => {
  it('doubles from Duration up to Cap, and starts over after reset', () => {
    const b = new Backoff(SPEC);
    assert.deepEqual([b.step(), b.step(), b.step(), b.step(), b.step()], [1000, 2000, 4000, 5000, 5000]);
    b.reset();
    assert.equal(b.step(), 1000);
  });

  it('adds at most Jitter of each delay', () => {
    const hi = new Backoff({ ...SPEC, jitter: 0.5 }, () => 0.999);
    const lo = new Backoff({ ...SPEC, jitter: 0.5 }, () => 0);
    assert.equal(lo.step(), 1000);
    const d = hi.step();
    assert.ok(d > 1000 && d <= 1500, String(d));
  });

  it('runs one retry after each delay on the clock, never early, and a cancelled one never', async () => {
    const clock = new FakeClock();
    const runs: number[] = [];
    const t = new RetryTimer(clock, SPEC, () => runs.push(clock.now()));
    assert.equal(t.schedule(), 1000);
    assert.equal(t.dueAt, 1000);
    await clock.advance(999);
    assert.deepEqual(runs, []);
    await clock.advance(1);
    assert.deepEqual(runs, [1000]);
    assert.equal(t.dueAt, undefined);
    assert.equal(t.schedule(), 2000);
    t.schedule(); // replaces the pending one: one retry, after the next delay (4 s)
    await clock.advance(10_000);
    assert.deepEqual(runs, [1000, 1000 + 4000]);
    t.schedule();
    t.cancel();
    await clock.advance(60_000);
    assert.equal(runs.length, 2);
    assert.equal(clock.pendingTimers(), 0);
    t.succeeded();
    assert.equal(t.schedule(), 1000, 'after a success the first delay again');
    t.cancel();
  });
});

describe('the listed contexts setting', () => {
  it('shows each listed context once, never the current one', () => {
    assert.deepEqual(extraContexts(['a', 'b', 'a', 'cur', ''], 'cur'), ['a', 'b']);
    assert.deepEqual(extraContexts(['a'], undefined), ['a']);
  });
  it('adds at the end once, removes by name', () => {
    assert.deepEqual(withContext(['a'], 'b'), ['a', 'b']);
    assert.deepEqual(withContext(['a', 'b'], 'a'), ['a', 'b']);
    assert.deepEqual(withoutContext(['a', 'b'], 'a'), ['b']);
  });
});

describe('a context row', () => {
  it('says each state in words', () => {
    assert.equal(contextRow('a', undefined, { phase: 'idle' }, 0).description, 'not loaded');
    assert.equal(contextRow('a', undefined, { phase: 'loading', objects: 0 }, 0).description, 'loading…');
    assert.equal(contextRow('a', undefined, { phase: 'loading', objects: 1234 }, 0).description, 'loading… 1,234 objects');
    assert.equal(contextRow('a', undefined, { phase: 'loading', objects: 0 }, 0).icon, 'cloud-download', 'a still icon, as the status bar shows while loading');
    const loaded = contextRow('a', 'https://h:1', { phase: 'loaded', objects: 1, namespaces: 3, failedTypes: 0 }, 0);
    assert.equal(loaded.description, '1 object');
    assert.equal(loaded.tooltip, 'a (https://h:1): loaded 1 object in 3 namespaces');
    assert.equal(contextRow('a', undefined, { phase: 'loaded', objects: 20, namespaces: 1, failedTypes: 2 }, 0).description, '20 objects, 2 types failed');
    const dead = contextRow('a', undefined, { phase: 'unreachable', reason: 'no answer within 4 s', retryAt: 9000 }, 1000);
    assert.equal(dead.description, 'unreachable: no answer within 4 s');
    assert.match(dead.tooltip, /Trying again in 8 s\./);
    assert.equal(dead.tone, 'error');
    assert.match(contextRow('a', undefined, { phase: 'unreachable', reason: 'x', retrying: true }, 0).tooltip, /Trying again now\./);
    assert.equal(contextRow('a', undefined, { phase: 'failed', reason: '401 Unauthorized' }, 0).description, 'failed: 401 Unauthorized');
  });
});

/** A load that waits for the test to settle it: one pending load per context name. */
function scriptedLoads() {
  const pending = new Map<string, { settle: (r: LoadResult) => void; signal: AbortSignal; model: Parameters<ContextLoad>[0]['model'] }>();
  const calls: string[] = [];
  const load: ContextLoad = (req) => {
    calls.push(req.name);
    return new Promise((resolve) => {
      pending.set(req.name, { settle: resolve, signal: req.signal, model: req.model });
      req.signal.addEventListener('abort', () => resolve({ summary: { ...emptySummary(), outcome: 'cancelled' } }), { once: true });
    });
  };
  return { load, calls, pending };
}

const namespaceResult = (names: string[]): LoadTaskResult =>
  ({
    task: { id: 1, gvr: { group: '', version: 'v1', resource: 'namespaces' }, kind: 'Namespace', namespaced: false },
    outcome: 'ok',
    items: names.map((n) => ({ metadata: { name: n, uid: n } })),
    count: names.length,
  }) as unknown as LoadTaskResult;

describe('ListedContexts', () => {
  it('loads nothing until a context is opened, then only that one', async () => {
    const clock = new FakeClock();
    const l = scriptedLoads();
    const set = new ListedContexts({ clock, load: l.load });
    set.setNames(['a', 'b']);
    assert.deepEqual(set.names(), ['a', 'b']);
    assert.deepEqual([set.get('a')!.state, set.get('b')!.state], [{ phase: 'idle' }, { phase: 'idle' }]);
    await set.loadOpened();
    assert.deepEqual(l.calls, [], 'a palette load leaves never-opened contexts alone');
    set.open('a');
    assert.deepEqual(l.calls, ['a']);
    assert.deepEqual(set.get('a')!.state, { phase: 'loading', objects: 0 });
    assert.deepEqual(set.get('b')!.state, { phase: 'idle' });
    const p = l.pending.get('a')!;
    p.model.applyResult(namespaceResult(['default', 'kube-system']));
    p.settle({ summary: { ...emptySummary(), outcome: 'ok' }, server: 'https://a:6443' } as LoadResult);
    await clock.advance(0);
    assert.deepEqual(set.get('a')!.state, { phase: 'loaded', objects: 2, namespaces: 2, failedTypes: 0 });
    assert.equal(set.get('a')!.server, 'https://a:6443');
    set.open('a'); // opening a loaded one again does not reload it
    assert.deepEqual(l.calls, ['a']);
    set.dispose();
  });

  it('an unreachable context does not hold the others, and is retried by itself until it answers', async () => {
    const clock = new FakeClock();
    const l = scriptedLoads();
    const set = new ListedContexts({ clock, load: l.load, backoff: SPEC });
    const changes: (string | undefined)[] = [];
    set.onChange((n) => changes.push(n));
    set.setNames(['dead', 'live']);
    set.open('dead');
    set.open('live');
    l.pending.get('live')!.settle({ summary: { ...emptySummary(), outcome: 'ok' } });
    await clock.advance(0);
    assert.equal(set.get('live')!.state.phase, 'loaded', 'the live one settles while the dead one still hangs');
    assert.equal(set.get('dead')!.state.phase, 'loading');
    l.pending.get('dead')!.settle({ summary: { ...emptySummary(), outcome: 'failed' }, unreachable: 'no answer from context "dead" within 4 s' });
    await clock.advance(0);
    assert.deepEqual(set.get('dead')!.state, { phase: 'unreachable', reason: 'no answer from context "dead" within 4 s', retryAt: 1000 });
    assert.ok(changes.includes('dead'));
    await clock.advance(999);
    assert.deepEqual(l.calls, ['dead', 'live']);
    await clock.advance(1);
    assert.deepEqual(l.calls, ['dead', 'live', 'dead'], 'retried after the first delay');
    assert.deepEqual(
      set.get('dead')!.state,
      { phase: 'unreachable', reason: 'no answer from context "dead" within 4 s', retrying: true },
      'while the retry runs the row still says unreachable',
    );
    l.pending.get('dead')!.settle({ summary: { ...emptySummary(), outcome: 'failed' }, unreachable: 'still nothing' });
    await clock.advance(0);
    assert.equal((set.get('dead')!.state as { retryAt: number }).retryAt, 1000 + 2000, 'the next delay doubles');
    await clock.advance(2000);
    l.pending.get('dead')!.settle({ summary: { ...emptySummary(), outcome: 'ok' } });
    await clock.advance(0);
    assert.equal(set.get('dead')!.state.phase, 'loaded', 'it came back by itself');
    await clock.advance(60_000);
    assert.equal(l.calls.length, 4, 'no retry after it answered');
    assert.equal(clock.pendingTimers(), 0);
    set.dispose();
  });

  it('a failure that is not unreachable (credentials) is not retried', async () => {
    const clock = new FakeClock();
    const l = scriptedLoads();
    const set = new ListedContexts({ clock, load: l.load, backoff: SPEC });
    set.setNames(['x']);
    set.open('x');
    l.pending.get('x')!.settle({ summary: { ...emptySummary(), outcome: 'failed', error: new Error('401 Unauthorized') } });
    await clock.advance(60_000);
    assert.deepEqual(set.get('x')!.state, { phase: 'failed', reason: '401 Unauthorized' });
    assert.deepEqual(l.calls, ['x']);
    set.dispose();
  });

  it('removing a context aborts its load, drops its retry and closes it; nothing writes its state after', async () => {
    const clock = new FakeClock();
    const l = scriptedLoads();
    const closed: string[] = [];
    const set = new ListedContexts({ clock, load: l.load, backoff: SPEC, closed: (n) => closed.push(n) });
    set.setNames(['a', 'b']);
    set.open('a');
    set.open('b');
    const aSignal = l.pending.get('a')!.signal;
    l.pending.get('b')!.settle({ summary: { ...emptySummary(), outcome: 'failed' }, unreachable: 'down' });
    await clock.advance(0);
    set.setNames(['c']);
    assert.ok(aSignal.aborted, "a's load was aborted");
    assert.deepEqual(closed.sort(), ['a', 'b']);
    assert.deepEqual(set.names(), ['c']);
    await clock.advance(60_000);
    assert.deepEqual(l.calls, ['a', 'b'], "b's retry never ran");
    assert.equal(clock.pendingTimers(), 0);
    set.dispose();
  });

  it("the caller's signal cancels a load", async () => {
    const clock = new FakeClock();
    const l = scriptedLoads();
    const set = new ListedContexts({ clock, load: l.load, backoff: SPEC });
    set.setNames(['a']);
    const ac = new AbortController();
    const done = set.load('a', { signal: ac.signal });
    ac.abort(new Error('stop'));
    assert.ok(l.pending.get('a')!.signal.aborted);
    await done;
    assert.deepEqual(set.get('a')!.state, { phase: 'cancelled', objects: 0 });
    set.dispose();
  });

  it('a load by hand replaces the running one and the pending retry', async () => {
    const clock = new FakeClock();
    const l = scriptedLoads();
    const set = new ListedContexts({ clock, load: l.load, backoff: SPEC });
    set.setNames(['a']);
    set.open('a');
    l.pending.get('a')!.settle({ summary: { ...emptySummary(), outcome: 'failed' }, unreachable: 'down' });
    await clock.advance(0);
    const first = set.load('a');
    const running = l.pending.get('a')!;
    const second = set.load('a');
    assert.ok(running.signal.aborted, 'the first manual load was superseded');
    await first;
    assert.equal(set.get('a')!.state.phase, 'loading', 'the superseded load leaves the state to the newer one');
    l.pending.get('a')!.settle({ summary: { ...emptySummary(), outcome: 'ok' } });
    await second;
    await clock.advance(60_000);
    assert.deepEqual(l.calls, ['a', 'a', 'a'], 'no retry ran besides the two by hand');
    set.dispose();
  });
});
