/**
 * What a watching reflector keeps of its list, and a consistency check of its list between checks: nothing. The sink keeps what it keeps; the LIST's
 * result (every item as listed) must not live on in the reflector for the watch's life, or every
 * object changed since is held twice. Driven by a scripted ListWatchClient, as the unit tier's other
 * reflector tests; the objects' collection is observed through WeakRefs after a full GC.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FakeClock } from '../../src/core/clock';
import type { ListResult } from '../../src/core/kube/listwatch/list';
import type { WatchEnd, WatchEvent, WatchOptions } from '../../src/core/kube/listwatch/watch';
import { INITIAL_EVENTS_END, Reflector, type ListWatchClient, type ReflectorSink } from '../../src/core/syncloop/sources/reflector';
import { ConsistencyCheck, ConsistencyLister } from '../../src/core/syncloop/sources/consistency';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { eventually } from '../support/eventually';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const GVR = { group: '', version: 'v1', resource: 'configmaps' };
const N = 500;

/** Answers each LIST with N new objects (kept by no one but the caller, and seen through `refs`); watches follow `watch`. */
class OnceListedClient implements ListWatchClient {
  readonly refs: WeakRef<object>[] = [];
  constructor(private readonly watchList: boolean) {}

  async list(): Promise<ListResult> {
    return { items: this.objects(), resourceVersion: '100', pages: 1, retries: 0, bytes: 0, fellBackToFullList: false };
  }

  watch(_gvr: unknown, opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd> {
    if (opts.sendInitialEvents) {
      if (!this.watchList) return Promise.resolve({ kind: 'error', events: 0, error: new Error('no watch-list here') } as WatchEnd);
      for (const object of this.objects()) onEvent({ type: 'ADDED', object });
      onEvent({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '100', annotations: { [INITIAL_EVENTS_END]: 'true' } } } as never });
    }
    // Then the watch stays open, quiet, until the reflector stops.
    return new Promise((resolve) => signal!.addEventListener('abort', () => resolve({ kind: 'aborted', events: 0, reason: signal!.reason }), { once: true }));
  }

  private objects(): StoredObject[] {
    const items: StoredObject[] = [];
    for (let i = 0; i < N; i++) {
      const o: StoredObject = { metadata: { name: `cm-${i}`, namespace: 'ns', uid: `u${i}`, resourceVersion: String(i + 1) } };
      this.refs.push(new WeakRef(o));
      items.push(o);
    }
    this.refs.push(new WeakRef(items));
    return items;
  }
}

/** Takes the SET and keeps nothing of it (a sink that keeps no object, to see what the reflector keeps). */
class CountingSink implements ReflectorSink {
  sets = 0;
  async replace(items: StoredObject[]): Promise<void> {
    if (items.length === N) this.sets++;
  }
  async apply(): Promise<void> {}
}

async function heldAfterSync(watchList: boolean): Promise<number> {
  const client = new OnceListedClient(watchList);
  const sink = new CountingSink();
  const reflector = new Reflector(client, sink, { gvr: GVR, name: 'api:configmaps', clock: new FakeClock(), watchList, random: () => 0 });
  const ac = new AbortController();
  const run = reflector.run(ac.signal);
  try {
    await eventually(() => sink.sets === 1 && reflector.state === 'watching', { description: 'the state is in and the reflector watches', timeoutMs: 10_000 });
    // WeakRefs made in a job hold their targets until it ends.
    await new Promise<void>((r) => setImmediate(r));
    gc();
    return client.refs.filter((r) => r.deref() !== undefined).length;
  } finally {
    ac.abort();
    await run;
  }
}

describe("a watching reflector holds none of its list's objects", () => {
  it('after a LIST', async () => {
    assert.equal(await heldAfterSync(false), 0);
  });

  it("after a watch-list's initial events", async () => {
    assert.equal(await heldAfterSync(true), 0);
  });
});

describe('a consistency check holds none of its list while it waits for the next', () => {
  it('after a first sighting, asleep until its confirmation', async () => {
    const clock = new FakeClock();
    const client = new OnceListedClient(false);
    const reflector = new Reflector(client, new CountingSink(), { gvr: GVR, name: 'api:configmaps', clock, watchList: false });
    reflector.state = 'watching';
    const check = new ConsistencyCheck();
    const lister = new ConsistencyLister({
      client,
      clock,
      gvr: GVR,
      pageSize: 500,
      source: 'api:configmaps',
      reflector,
      held: () => [],
      check,
      periodMs: 60_000,
      confirmMs: 30_000,
    });
    lister.firstCheckMs = 1000;
    const ac = new AbortController();
    const run = lister.run(ac.signal);
    try {
      await clock.advance(1000);
      // Nothing held, N listed: a first sighting, and the lister sleeps until its confirmation.
      await eventually(() => check.pending('api:configmaps'), { description: 'the first check judged', timeoutMs: 10_000 });
      await new Promise<void>((r) => setImmediate(r));
      gc();
      assert.equal(lister.lists, 1);
      assert.equal(client.refs.filter((r) => r.deref() !== undefined).length, 0);
    } finally {
      ac.abort();
      await run;
    }
  });
});
