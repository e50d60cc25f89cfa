/**
 * The loader as a citizen of API Priority and Fairness, against real node:http servers that answer
 * as kube-apiserver does: every answer names a flow schema and priority level (PF headers), the
 * flowcontrol.apiserver.k8s.io/v1 objects are readable or refused (403), and lists may get 429.
 * And the pure parts: the level's seat estimate, the lane throttle (AIMD) and the seat accounting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { FakeClock } from '../../src/core/clock';
import { ClusterLoader } from '../../src/core/loader';
import { DEFAULT_LIST_SEATS, factsFrom, guessedFacts, levelEstimate, listsAtServer, pageSeats } from '../../src/core/loader/apf';
import { autoConcurrency } from '../../src/core/loader/autoConcurrency';
import { HALVE_GUARD_MS, LaneThrottle, RECOVER_MS } from '../../src/core/loader/laneThrottle';
import { seatUsage } from '../../src/core/loader/loadCost';
import type { LoaderTaskEvent } from '../../src/core/timeline/events';
import { eventually } from '../support/eventually';
import { json, serverAndClient, status } from './kube-helpers';

const serve = serverAndClient({ qps: 0 });
const FS_UID = 'fs-global-default';
const PL_UID = 'pl-global-default';
const PF = { 'X-Kubernetes-PF-FlowSchema-UID': FS_UID, 'X-Kubernetes-PF-PriorityLevel-UID': PL_UID };

/** The bootstrap levels of kube-apiserver v1 (name, shares, hand size; exempt has 0 and no queues). */
const BOOTSTRAP: [string, number, number][] = [
  ['exempt', 0, 0],
  ['catch-all', 5, 1],
  ['system', 30, 6],
  ['node-high', 40, 6],
  ['leader-election', 10, 4],
  ['workload-high', 40, 6],
  ['workload-low', 100, 6],
  ['global-default', 20, 6],
];
function levels(uidOf: (name: string) => string = (n) => `pl-${n}`) {
  return BOOTSTRAP.map(([name, shares, handSize]) => ({
    metadata: { name, uid: uidOf(name) },
    spec:
      name === 'exempt'
        ? { type: 'Exempt', exempt: { nominalConcurrencyShares: 0 } }
        : {
            type: 'Limited',
            limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { handSize, queues: 64, queueLengthLimit: 50 } } },
          },
  }));
}

/**
 * A server of `types` cluster-scoped types things0.. (one page each, PF headers on every answer);
 * `flowcontrol`: how it answers the flowcontrol objects; `list`: how it answers a list (default: at once).
 */
function apiServer(opts: {
  types: number;
  flowcontrol: 'forbidden' | 'held' | { levels: unknown[]; schemas: unknown[] };
  pf?: Record<string, string>;
  list?: (type: number, req: http.IncomingMessage, res: http.ServerResponse) => void;
}) {
  const seen = { flowcontrol: 0, held: [] as http.ServerResponse[] };
  const pf = opts.pf ?? PF;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path === '/api') return json(res, { kind: 'APIVersions', versions: ['v1'] }, pf);
    if (path === '/apis') return json(res, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] }, pf);
    if (path === '/api/v1')
      return json(
        res,
        {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: Array.from({ length: opts.types }, (_, i) => ({
            name: `things${i}`,
            namespaced: false,
            kind: `Thing${i}`,
            verbs: ['list', 'get', 'watch'],
          })),
        },
        pf,
      );
    if (path.startsWith('/apis/flowcontrol.apiserver.k8s.io/v1/')) {
      seen.flowcontrol++;
      const fc = opts.flowcontrol;
      if (fc === 'held') return void seen.held.push(res);
      if (fc === 'forbidden') return status(res, 403, 'Forbidden', 'prioritylevelconfigurations is forbidden', pf);
      return json(res, { kind: 'List', items: path.endsWith('/flowschemas') ? fc.schemas : fc.levels }, pf);
    }
    const m = /^\/api\/v1\/things(\d+)$/.exec(path);
    if (m) {
      if (opts.list) return opts.list(Number(m[1]), req, res);
      return json(res, { kind: 'ThingList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [{ metadata: { name: 'a', uid: `u${m[1]}` } }] }, pf);
    }
    status(res, 404, 'NotFound', 'not here', pf);
  };
  return { handler, seen };
}

describe('apf: the priority level and its seats (estimated)', () => {
  it('global-default of a default-sized server: 49 seats, 8 per LIST, so 3 LISTs keep within half of them', () => {
    assert.deepEqual(levelEstimate(20, 245, 6), { levelSeats: 49, listSeats: 8 });
    assert.equal(DEFAULT_LIST_SEATS, 8);
    const guess = guessedFacts({ flowSchemaUID: 'f', priorityLevelUID: 'p' }, '403 Forbidden');
    assert.deepEqual([guess.levelSeats, guess.listSeats, guess.source, listsAtServer(guess)], [49, 8, 'guess', 3]);
    // workload-low (100 shares): 245 seats, a LIST at most ceil(0.15 * 245) = 37 > 245 / 6 = 40? no: min(37, 40) = 37
    assert.deepEqual(levelEstimate(100, 245, 6), { levelSeats: 245, listSeats: 37 });
  });

  it('the level named by UID is read from the objects; exempt has no bound; an unknown UID is the guess', () => {
    const uid = (n: string) => `uid-${n}`;
    const read = factsFrom({ flowSchemaUID: 'fs', priorityLevelUID: 'uid-global-default' }, levels(uid), [{ metadata: { name: 'global-default', uid: 'fs' } }]);
    assert.deepEqual(
      [read.priorityLevel.name, read.flowSchema.name, read.levelSeats, read.listSeats, read.source, listsAtServer(read)],
      ['global-default', 'global-default', 49, 8, 'read', 3],
    );
    const exempt = factsFrom({ flowSchemaUID: 'x', priorityLevelUID: 'uid-exempt' }, levels(uid), []);
    assert.deepEqual([exempt.exempt, listsAtServer(exempt)], [true, undefined]);
    assert.equal(factsFrom({ flowSchemaUID: 'x', priorityLevelUID: 'other' }, levels(uid), []).source, 'guess');
    assert.equal(listsAtServer(undefined), undefined, 'no headers: no bound');
  });

  it('a page costs a seat per 100 kB, at least 1, at most 1 MB charged and the level’s bound', () => {
    assert.deepEqual([pageSeats(0, 8), pageSeats(99_999, 8), pageSeats(250_000, 8), pageSeats(5_000_000, 8), pageSeats(5_000_000, 40)], [1, 1, 3, 8, 10]);
  });

  it('seat usage: the most held at once and seat-seconds; an end frees before a start at the same time', () => {
    const u = seatUsage([
      { start: 0, end: 1000, seats: 8 },
      { start: 500, end: 1500, seats: 2 },
      { start: 1000, end: 2000, seats: 8 },
    ]);
    assert.deepEqual(u, { peak: 10, seatSeconds: 18 });
  });
});

describe('LaneThrottle: AIMD on 429', () => {
  it('halves once per storm, gives a lane back per quiet period, never below 1 nor above the pool', async () => {
    const clock = new FakeClock();
    const t = new LaneThrottle(16, clock);
    for (let i = 0; i < 16; i++) t.throttled(1000); // every lane throttled at once
    assert.deepEqual([t.lanes, t.halvings], [8, 1]);
    await clock.advance(HALVE_GUARD_MS);
    t.throttled(0);
    assert.equal(t.lanes, 4);
    for (let i = 0; i < 5; i++) {
      await clock.advance(HALVE_GUARD_MS);
      t.throttled(0);
    }
    assert.deepEqual([t.lanes, t.lowest], [1, 1]);
    for (let i = 2; i <= 16; i++) {
      await clock.advance(RECOVER_MS);
      assert.equal(t.lanes, i);
    }
    await clock.advance(10 * RECOVER_MS);
    assert.equal(t.lanes, 16);
    assert.equal(clock.pendingTimers(), 0, 'no timer once recovered');
    t.close();
  });

  it('a halving holds back new turns until enough running lists end; an aborted waiter takes none', async () => {
    const clock = new FakeClock();
    const t = new LaneThrottle(4, clock);
    const ac = new AbortController();
    for (let i = 0; i < 4; i++) await t.acquire(ac.signal);
    t.throttled(0); // 2 lanes now, 4 running
    let started = 0;
    const waiting = new AbortController();
    const aborted = t.acquire(waiting.signal).then(
      () => 'started',
      () => 'aborted',
    );
    const next = t.acquire(ac.signal).then(() => started++);
    waiting.abort();
    assert.equal(await aborted, 'aborted');
    t.release();
    t.release();
    await Promise.resolve();
    assert.equal(started, 0, '2 still running of 2 lanes');
    t.release();
    await next;
    assert.equal(started, 1);
    t.close();
  });
});

/**
 * 16 types whose first 8 lists each get one 429 (Retry-After 1 s) and whose other lists are held
 * until the test answers them (`answer`), in arrival order in `held`; `onHeld` sees each arrival.
 */
async function stormServer(clock: FakeClock, onHeld?: (held: http.ServerResponse[]) => void) {
  const held: http.ServerResponse[] = [];
  const throttledOnce = new Set<number>();
  const api = apiServer({
    types: 16,
    flowcontrol: 'forbidden',
    list: (i, _req, res) => {
      if (i < 8 && !throttledOnce.has(i)) {
        throttledOnce.add(i);
        return status(res, 429, 'TooManyRequests', 'too many requests, please try again later', { 'retry-after': '1', ...PF });
      }
      held.push(res);
      onHeld?.(held);
    },
  });
  const { c } = await serve(api.handler, { clock });
  return { c, held, throttledOnce };
}

/** Answers a held list with an empty page. */
const answer = (res: http.ServerResponse) => json(res, { kind: 'ThingList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }, PF);

describe('ClusterLoader under APF, on a real server', () => {
  it('a user whose level cannot be read (403): the UIDs are shown, the pool is held to the guess (3 LISTs), read once per transport', async () => {
    const api = apiServer({ types: 12, flowcontrol: 'forbidden' });
    const { c } = await serve(api.handler);
    const loader = new ClusterLoader(c, { accessReview: false });
    const { summary } = await loader.load();
    assert.equal(summary.outcome, 'ok');
    // The base is APF's 3 LISTs; the lanes are the RTT rule from that base. On a quiet loopback that
    // is 3; on a loaded 2-core machine a request sample can read as far (seen: 5 lanes), and the
    // rule then widens from the same base, so the lanes are checked against the rule, not a number.
    const auto = summary.concurrencyAuto!;
    assert.equal(auto.apfBase, 3);
    assert.equal(auto.lanes, autoConcurrency(auto.rttMs ?? undefined, { loopback: true, apfBase: 3 }).lanes);
    const cost = summary.apiCost!;
    assert.equal(cost.flowControl?.priorityLevel.uid, PL_UID);
    assert.equal(cost.flowControl?.flowSchema.uid, FS_UID);
    assert.equal(cost.flowControl?.priorityLevel.name, undefined);
    assert.deepEqual([cost.flowControl?.source, cost.flowControl?.unreadable, cost.flowControl?.levelSeats], ['guess', '403 Forbidden', 49]);
    assert.equal(cost.requests, summary.requests);
    assert.ok(cost.bytes > 0);
    assert.ok(cost.seatsPeak >= 1 && cost.seatsPeak <= auto.lanes, `at most ${auto.lanes} one-seat lists at once, got ${cost.seatsPeak}`);
    assert.equal(api.seen.flowcontrol, 2, 'levels and schemas, once');
    await new ClusterLoader(c, { accessReview: false }).load();
    assert.equal(api.seen.flowcontrol, 2, 'a second load of the same transport does not ask again');
  });

  it('a level read from the server sizes the pool; exempt (system:masters) and no headers (APF off) keep the RTT rule', async () => {
    const uid = (n: string) => `pl-${n}`;
    const small = levels(uid).map((l) =>
      l.metadata.name === 'global-default' ? { ...l, spec: { ...l.spec, limited: { ...l.spec.limited!, nominalConcurrencyShares: 5 } } } : l,
    );
    const cases = [
      {
        pf: PF,
        fc: { levels: levels((n) => (n === 'global-default' ? PL_UID : uid(n))), schemas: [{ metadata: { name: 'global-default', uid: FS_UID } }] },
        lanes: 3,
        name: 'global-default',
      },
      // 5 shares of 230: ceil(600 * 5 / 230) = 14 seats, a LIST at most min(ceil(2.1), 14 / 6) = 2: 3 LISTs in 7 seats
      {
        pf: PF,
        fc: { levels: small.map((l) => (l.metadata.name === 'global-default' ? { ...l, metadata: { ...l.metadata, uid: PL_UID } } : l)), schemas: [] },
        lanes: 3,
        name: 'global-default',
      },
      { pf: { ...PF, 'X-Kubernetes-PF-PriorityLevel-UID': uid('exempt') }, fc: { levels: levels(uid), schemas: [] }, lanes: 4, name: 'exempt' },
      { pf: {}, fc: 'forbidden' as const, lanes: 4, name: undefined },
    ];
    for (const k of cases) {
      const api = apiServer({ types: 12, flowcontrol: k.fc, pf: k.pf });
      const { c } = await serve(api.handler);
      const { summary } = await new ClusterLoader(c, { accessReview: false }).load();
      assert.equal(summary.concurrency, k.lanes, `lanes for ${k.name ?? 'no headers'}`);
      assert.equal(summary.apiCost?.flowControl?.priorityLevel.name, k.name);
      if (k.pf === PF) assert.equal(summary.apiCost?.flowControl?.source, 'read');
    }
  });

  it("a load cancelled while the level is being read ends at once; the read goes on for the transport's next load", async () => {
    const api = apiServer({ types: 6, flowcontrol: 'held' });
    const { c } = await serve(api.handler);
    const run = new ClusterLoader(c, { accessReview: false }).start({ onResult: () => undefined });
    await eventually(() => api.seen.held.length === 2, { description: 'both flowcontrol reads held by the server' });
    run.cancel();
    assert.equal((await run.done).outcome, 'cancelled');
    const next = new ClusterLoader(c, { accessReview: false }).load();
    for (const res of api.seen.held.splice(0)) status(res, 403, 'Forbidden', 'no', PF);
    const { summary } = await next;
    assert.equal(summary.outcome, 'ok');
    assert.equal(summary.apiCost?.flowControl?.unreadable, '403 Forbidden');
    assert.equal(api.seen.flowcontrol, 2, 'the one read served both loads');
  });

  it('a 429 storm halves the lanes: the lists that start after it run at most half the pool at once', async () => {
    const clock = new FakeClock();
    let afterStorm = false;
    let peak = 0;
    const { c, held, throttledOnce } = await stormServer(clock, (held) => {
      if (afterStorm) peak = Math.max(peak, held.length);
    });
    const run = new ClusterLoader(c, { accessReview: false, concurrency: 8, taskTimeoutMs: 0 }).start({ onResult: () => undefined });
    // the first 8 lists all get a 429 and wait their Retry-After on the clock
    await eventually(() => throttledOnce.size === 8 && clock.pendingTimers() >= 8, { description: 'eight 429s, each waiting its Retry-After' });
    await clock.advance(1000);
    await eventually(() => held.length === 8, { description: 'the eight retries' });
    afterStorm = true;
    held.splice(0).forEach(answer);
    // the other 8 types: at most 4 at once (the pool has 8 lanes)
    let answered = 0;
    while (answered < 8) {
      await eventually(() => held.length > 0 && (held.length === 4 || answered + held.length === 8), { description: 'the next lists to arrive' });
      answer(held.shift()!);
      answered++;
    }
    const summary = await run.done;
    assert.equal(summary.outcome, 'ok');
    assert.equal(peak, 4, 'after the storm, half of the 8 lanes at once');
    const cost = summary.apiCost!;
    assert.deepEqual([cost.throttled, cost.retryAfterSeconds, cost.halvings, cost.lanesLowest], [8, 8, 1, 4]);
  });
});

describe('ClusterLoader under APF: the timeline of a throttled load', () => {
  it('a list held back by a halving starts on the timeline when it gets its turn: the bars never overlap more than the lanes allowed', async () => {
    const clock = new FakeClock();
    const { c, held, throttledOnce } = await stormServer(clock);
    const events: LoaderTaskEvent[] = [];
    const run = new ClusterLoader(c, { accessReview: false, concurrency: 8, taskTimeoutMs: 0, clock, onEvent: (e) => events.push(e) }).start({
      onResult: () => undefined,
    });
    await eventually(() => throttledOnce.size === 8 && clock.pendingTimers() >= 8, { description: 'eight 429s, each waiting its Retry-After' });
    await clock.advance(1000);
    await eventually(() => held.length === 8, { description: 'the eight retries' });
    // Answer one list at a time with time passing between answers (well inside RECOVER_MS), so a
    // list that waits for a turn waits a measurable while.
    let answered = 0;
    while (answered < 16) {
      await eventually(() => held.length > 0, { description: 'the next list to arrive' });
      await clock.advance(50);
      answer(held.shift()!);
      answered++;
      await eventually(() => events.filter((e) => e.phase === 'finish').length === answered, { description: `finish ${answered}` });
    }
    assert.equal((await run.done).outcome, 'ok');
    const bars = new Map<number, { start?: number; end?: number }>();
    for (const e of events) {
      const b = bars.get(e.taskId) ?? {};
      if (e.phase === 'start') b.start = e.t;
      if (e.phase === 'finish') b.end = e.t;
      bars.set(e.taskId, b);
    }
    assert.equal(bars.size, 16);
    // Where a list began after the storm, at most 4 bars on the timeline (an end at the same instant
    // as a start is not an overlap): the lanes the throttle allowed, as the server saw them.
    const all = [...bars.values()];
    const late = all.filter((b) => b.start! > 1000);
    assert.equal(late.length, 8, 'the eight lists that waited for a turn');
    const overlap = Math.max(...late.map((b) => all.filter((o) => o.start! <= b.start! && o.end! > b.start!).length));
    assert.ok(overlap <= 4, `at most 4 bars at once after the storm, saw ${overlap}`);
  });
});
