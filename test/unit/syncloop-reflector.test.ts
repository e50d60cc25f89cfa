/**
 * The reflector's streaming watch-list, driven by a scripted ListWatchClient (the unit tier's
 * stand-in for the API server; the integration and apiserver tiers run it over real HTTP): the
 * initial events up to the initial-events-end bookmark are one SET of the state they describe,
 * the stream then goes on as the watch and resumes from the last resourceVersion, and a stream that
 * ends before the bookmark falls back to LIST (for good after a 422).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { KubeApiError } from '../../src/core/kube/errors';
import type { ListResult } from '../../src/core/kube/listwatch/list';
import type { WatchEnd, WatchEvent, WatchOptions } from '../../src/core/kube/listwatch/watch';
import { INITIAL_EVENTS_END, REFLECTOR_BACKOFF_BASE_MS, Reflector, type ListWatchClient, type ReflectorSink } from '../../src/core/syncloop/sources/reflector';
import type { StoredObject } from '../../src/core/kube/objects/types';

const GVR = { group: '', version: 'v1', resource: 'pods' };
const o = (uid: string, rv: string): StoredObject => ({ metadata: { name: uid, namespace: 'ns', uid, resourceVersion: rv } });
const end = (rv: string) => ({
  type: 'BOOKMARK' as const,
  object: { metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END]: 'true' } } } as never,
});

type Script = (opts: WatchOptions, emit: (e: WatchEvent) => void, signal: AbortSignal) => Promise<WatchEnd>;

class ScriptedClient implements ListWatchClient {
  watches: WatchOptions[] = [];
  lists = 0;
  constructor(
    readonly scripts: Script[],
    private readonly listed: ListResult = { items: [o('l', '1')], resourceVersion: '50', pages: 1, retries: 0, bytes: 0, fellBackToFullList: false },
  ) {}
  async list(): Promise<ListResult> {
    this.lists++;
    return this.listed;
  }
  watch(_gvr: unknown, opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd> {
    this.watches.push(opts);
    const script = this.scripts.shift() ?? hang;
    return script(opts, onEvent, signal!);
  }
}

const hang: Script = (_o, _e, signal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'aborted', events: 0, reason: signal.reason }), { once: true }));

class RecordingSink implements ReflectorSink {
  log: string[] = [];
  async replace(items: StoredObject[], rv: string): Promise<void> {
    this.log.push(
      `SET ${items
        .map((i) => i.metadata.uid)
        .sort()
        .join(',')} @${rv}`,
    );
  }
  async apply(type: string, obj: StoredObject): Promise<void> {
    this.log.push(`${type} ${obj.metadata.uid}@${obj.metadata.resourceVersion}`);
  }
}

async function settle(clock: FakeClock, until: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !until(); i++) await clock.advance(0);
  assert.ok(until(), 'state reached');
}

describe('Reflector: streaming watch-list', () => {
  it('initial events (with a change among them) are one SET at the bookmark; the stream goes on as the watch, then resumes from its resourceVersion', async () => {
    const clock = new FakeClock();
    const client = new ScriptedClient([
      async (_opts, emit) => {
        emit({ type: 'ADDED', object: o('a', '10') as never });
        emit({ type: 'ADDED', object: o('b', '11') as never });
        emit({ type: 'DELETED', object: o('a', '12') as never });
        emit({ type: 'ADDED', object: o('c', '13') as never });
        emit(end('14'));
        emit({ type: 'MODIFIED', object: o('b', '15') as never });
        return { kind: 'closed', events: 6 };
      },
    ]);
    const sink = new RecordingSink();
    const r = new Reflector(client, sink, { gvr: GVR, name: 'api', clock, random: () => 0 });
    const ac = new AbortController();
    const run = r.run(ac.signal);
    await settle(clock, () => client.watches.length === 2);
    assert.deepEqual(sink.log, ['SET b,c @14', 'MODIFIED b@15']);
    const [first, second] = client.watches;
    assert.deepEqual(
      [first!.sendInitialEvents, first!.resourceVersionMatch, first!.resourceVersion, first!.allowWatchBookmarks],
      [true, 'NotOlderThan', '', true],
    );
    assert.deepEqual([second!.sendInitialEvents, second!.resourceVersion], [undefined, '15'], 'resumed as a plain watch');
    assert.deepEqual([r.stats.lists, r.stats.watchLists, r.stats.listRequests, client.lists], [1, 1, 0, 0]);
    assert.equal(r.state, 'watching');
    ac.abort();
    await run;
  });

  it('a stream that ends before the bookmark is not a state: the attempt falls back to LIST + watch, and a 422 stops trying', async () => {
    const clock = new FakeClock();
    const client = new ScriptedClient([
      async (_opts, emit) => {
        emit({ type: 'ADDED', object: o('a', '10') as never });
        return { kind: 'closed', events: 1 };
      },
    ]);
    const sink = new RecordingSink();
    const r = new Reflector(client, sink, { gvr: GVR, name: 'api', clock, random: () => 0 });
    const ac = new AbortController();
    const run = r.run(ac.signal);
    await settle(clock, () => client.watches.length === 2);
    assert.deepEqual(sink.log, ['SET l @50'], 'the partial initial events were never applied');
    assert.deepEqual([r.stats.watchListFallbacks, r.stats.listRequests], [1, 1]);
    assert.equal(client.watches[1]!.resourceVersion, '50');
    // Still supported: the next relist tries a watch-list again, which the server now rejects.
    client.scripts.push(async () => ({ kind: 'error', events: 0, error: new KubeApiError(422, 'Invalid', 'sendInitialEvents is forbidden') }));
    r.relist('test');
    await settle(clock, () => client.watches.length === 4);
    assert.equal(client.watches[2]!.sendInitialEvents, true);
    assert.deepEqual([r.stats.watchListFallbacks, r.stats.listRequests], [2, 2]);
    r.relist('test again');
    await settle(clock, () => client.watches.length === 5);
    assert.equal(client.watches[4]!.sendInitialEvents, undefined, 'after a 422, LIST + watch only');
    assert.deepEqual([r.stats.watchListFallbacks, r.stats.listRequests], [2, 3]);
    ac.abort();
    await run;
    assert.equal(clock.pendingTimers(), 0);
  });

  it('rewatch: a silent watch is reopened from its resourceVersion, no list', async () => {
    const clock = new FakeClock();
    const client = new ScriptedClient([
      async (_opts, emit, signal) => {
        emit(end('20'));
        return hang(_opts, emit, signal);
      },
    ]);
    const r = new Reflector(client, new RecordingSink(), { gvr: GVR, name: 'events', clock, random: () => 0, stallAfterMs: 1000 });
    const ac = new AbortController();
    const run = r.run(ac.signal);
    await settle(clock, () => r.state === 'watching');
    await clock.advance(1001);
    assert.ok(r.stalled());
    r.rewatch('watch silent');
    await settle(clock, () => client.watches.length === 2);
    assert.deepEqual([client.watches[1]!.resourceVersion, client.watches[1]!.sendInitialEvents], ['20', undefined]);
    assert.deepEqual([r.stats.lists, r.stats.relistRequests, r.stats.rewatchRequests, client.lists], [1, 0, 1, 0]);
    assert.equal(r.stalled(), false);
    ac.abort();
    await run;
  });
});

describe('Reflector: 403 Forbidden', () => {
  const forbidden =
    (where: string): Script =>
    async () => ({
      kind: 'error',
      events: 0,
      error: new KubeApiError(403, 'Forbidden', `pods is forbidden: User "alice" cannot watch resource "pods" in API group "" ${where}`),
    });
  const listedIn =
    (ns: string): Script =>
    async (opts, emit, signal) => {
      emit({ type: 'ADDED', object: { metadata: { name: 'p', namespace: ns, uid: 'p', resourceVersion: '7' } } as never });
      emit(end('8'));
      return hang(opts, emit, signal);
    };

  it('a cluster-wide 403 narrows to narrowTo once, at once (no backoff, no LIST), and the watch-list goes on there', async () => {
    const clock = new FakeClock();
    const client = new ScriptedClient([forbidden('at the cluster scope'), listedIn('team-a')]);
    const sink = new RecordingSink();
    const warned: string[] = [];
    const r = new Reflector(client, sink, {
      gvr: GVR,
      name: 'api',
      clock,
      random: () => 0,
      narrowTo: 'team-a',
      logger: { info: () => undefined, warn: (l) => warned.push(l), error: (l) => warned.push(`E ${l}`) },
    });
    const stop = new AbortController();
    const running = r.run(stop.signal);
    await settle(clock, () => r.state === 'watching');
    assert.deepEqual(
      client.watches.map((w) => w.namespace),
      [undefined, 'team-a'],
    );
    assert.equal(client.lists, 0, 'a 403 is not followed by a LIST');
    assert.deepEqual(sink.log, ['SET p @8']);
    assert.equal(r.narrowed, 1);
    assert.equal(r.stats.errors, 0, 'no backoff');
    assert.equal(warned.length, 1);
    assert.match(warned[0]!, /^Reflector forbidden across all namespaces, narrowing to the context namespace reflector="api" namespace="team-a"/);
    stop.abort();
    await running;
  });

  it('a 403 where it may not narrow: reported once, state forbidden, never retried however long we wait', async () => {
    const clock = new FakeClock();
    const client = new ScriptedClient([forbidden('at the cluster scope'), forbidden('in the namespace "team-a"'), listedIn('team-a')]);
    const heard: [string, string | undefined][] = [];
    const r = new Reflector(client, new RecordingSink(), {
      gvr: GVR,
      name: 'api',
      clock,
      random: () => 0,
      narrowTo: 'team-a',
      onForbidden: (m, ns) => heard.push([m, ns]),
    });
    const done = r.run(new AbortController().signal);
    await settle(clock, () => r.state === 'forbidden');
    await done; // run() ends by itself
    await clock.advance(10 * 60_000);
    assert.equal(client.watches.length, 2, 'the cluster-wide watch, the team-a one, nothing more');
    assert.equal(client.lists, 0);
    assert.equal(heard.length, 1);
    assert.equal(heard[0]![1], 'team-a');
    assert.match(heard[0]![0], /cannot watch resource "pods" in API group "" in the namespace "team-a"/);
  });
});

describe('Reflector: a sink that throws', () => {
  it('ends the watch as a failure (backoff, then a relist that goes on), with no unhandled rejection while the watch is still open', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const clock = new FakeClock();
      const client = new ScriptedClient([
        async (opts, emit, signal) => {
          emit({ type: 'ADDED', object: o('a', '10') as never });
          emit(end('11'));
          emit({ type: 'MODIFIED', object: o('a', '12') as never }); // the sink throws on this one
          return hang(opts, emit, signal); // the server keeps the watch open
        },
        async (opts, emit, signal) => {
          emit({ type: 'ADDED', object: o('a', '13') as never });
          emit(end('14'));
          return hang(opts, emit, signal);
        },
      ]);
      let failures = 1;
      const sink = new (class extends RecordingSink {
        override async apply(type: string, obj: StoredObject): Promise<void> {
          if (type === 'MODIFIED' && failures-- > 0) throw new RangeError('Maximum call stack size exceeded');
          return super.apply(type, obj);
        }
      })();
      const errors: string[] = [];
      const r = new Reflector(client, sink, {
        gvr: GVR,
        name: 'api',
        clock,
        random: () => 0,
        logger: { info: () => undefined, warn: () => undefined, error: (l) => errors.push(l) },
      });
      const ac = new AbortController();
      const run = r.run(ac.signal);
      await settle(clock, () => r.state === 'backoff');
      // Let the event loop turn: Node reports an unhandled rejection after the microtasks drain.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
      assert.equal(r.stats.errors, 1);
      assert.match(errors[0]!, /Reflector failed, retrying reflector="api" err="the loop failed to take a watch event: Maximum call stack size exceeded"/);
      await clock.advance(REFLECTOR_BACKOFF_BASE_MS);
      await settle(clock, () => client.watches.length === 2 && r.state === 'watching');
      assert.deepEqual(sink.log, ['SET a @11', 'SET a @14'], 'relisted after the backoff');
      ac.abort();
      await run;
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
