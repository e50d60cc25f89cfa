/**
 * Where objects enter the sync loop, the reflector narrows them once (asStoredObject): a listed
 * item or a watched object without a name or uid (nothing a real API server stores) is skipped,
 * with a warning for the watch event, and everything else goes on. Driven by a scripted
 * ListWatchClient, as the other reflector unit tests.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { KubeObject as WireObject } from '../../src/core/kube/objects/types';
import type { ListResult } from '../../src/core/kube/listwatch/list';
import type { WatchEnd, WatchEvent, WatchOptions } from '../../src/core/kube/listwatch/watch';
import { Reflector, type ListWatchClient, type ReflectorSink } from '../../src/core/syncloop/sources/reflector';
import type { StoredObject } from '../../src/core/kube/objects/types';

const GVR = { group: '', version: 'v1', resource: 'pods' };
const pod = (name: string, uid: string | undefined, rv: string): WireObject => ({
  metadata: { name, namespace: 'ns', ...(uid ? { uid } : {}), resourceVersion: rv },
});

class OneShotClient implements ListWatchClient {
  watches = 0;
  constructor(
    private readonly items: WireObject[],
    private readonly events: WatchEvent[],
  ) {}
  async list(): Promise<ListResult> {
    return { items: this.items, resourceVersion: '50', pages: 1, retries: 0, bytes: 0, fellBackToFullList: false };
  }
  watch(_gvr: unknown, _opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd> {
    if (this.watches++ === 0) {
      // the first watch is a watch-list: refuse it, so the reflector lists, then watches these events
      return Promise.resolve({ kind: 'closed', events: 0 });
    }
    if (this.watches === 2) for (const e of this.events) onEvent(e);
    return new Promise((resolve) => signal!.addEventListener('abort', () => resolve({ kind: 'aborted', events: 0, reason: signal!.reason }), { once: true }));
  }
}

class RecordingSink implements ReflectorSink {
  log: string[] = [];
  async replace(items: StoredObject[], rv: string): Promise<void> {
    this.log.push(`SET ${items.map((i) => `${i.metadata.name}/${i.metadata.uid}`).join(',')} @${rv}`);
  }
  async apply(type: string, obj: StoredObject): Promise<void> {
    this.log.push(`${type} ${obj.metadata.name}/${obj.metadata.uid}@${obj.metadata.resourceVersion}`);
  }
}

describe('Reflector: objects are narrowed where they enter the loop', () => {
  it('skips a listed item and a watched object without a name or uid, warns for the event, keeps the rest', async () => {
    const clock = new FakeClock();
    const client = new OneShotClient(
      [pod('a', 'ua', '1'), pod('no-uid', undefined, '2'), pod('', 'u-nameless', '3')],
      [
        { type: 'ADDED', object: pod('b', 'ub', '51') },
        { type: 'MODIFIED', object: pod('no-uid', undefined, '52') },
        { type: 'MODIFIED', object: pod('a', 'ua', '53') },
      ],
    );
    const sink = new RecordingSink();
    const warned: string[] = [];
    const r = new Reflector(client, sink, {
      gvr: GVR,
      name: 'api',
      clock,
      random: () => 0,
      logger: { info: () => undefined, warn: (l) => warned.push(l), error: (l) => warned.push(`E ${l}`) },
    });
    const ac = new AbortController();
    const run = r.run(ac.signal);
    for (let i = 0; i < 100 && sink.log.length < 3; i++) await clock.advance(0);
    assert.deepEqual(sink.log, ['SET a/ua @50', 'ADDED b/ub@51', 'MODIFIED a/ua@53']);
    assert.deepEqual(
      warned.filter((l) => l.includes('without a name or uid')),
      ['Reflector skipped a watch event without a name or uid reflector="api" type="MODIFIED"'],
    );
    ac.abort();
    await run;
  });
});
