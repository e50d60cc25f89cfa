/**
 * The reflector's LIST deadline (listProgressTimeoutMs), against a real HTTP server on loopback,
 * timers on a FakeClock: a LIST that never answers is given up and retried after the backoff, so
 * the reflector does not stay 'listing'; a slow list whose pages keep coming is not cut, however
 * long it takes in all.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { FakeClock } from '../../src/core/clock';
import { KubeClient } from '../../src/core/kube';
import { LIST_PROGRESS_TIMEOUT_MS, Reflector, REFLECTOR_BACKOFF_MAX_MS, type ReflectorSink } from '../../src/core/syncloop/sources/reflector';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { contextFor, json, startServer, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };
const servers: TestServer[] = [];
const clients: KubeClient[] = [];
const stops: AbortController[] = [];
after(async () => {
  stops.forEach((s) => s.abort());
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

class Sink implements ReflectorSink {
  sets: string[] = [];
  async replace(items: StoredObject[], rv: string): Promise<void> {
    this.sets.push(`${items.map((i) => i.metadata.name).join(',')}@${rv}`);
  }
  async apply(): Promise<void> {}
}

const pod = (name: string) => ({ metadata: { name, namespace: 'ns', uid: `u-${name}`, resourceVersion: '7' } });

/** Lists: `answer(n, req, res)` for the n-th LIST (0-based); every watch is held open, empty. */
async function setup(answer: (n: number, req: http.IncomingMessage, res: http.ServerResponse) => void, watchList = false) {
  let lists = 0;
  const s = await startServer((req, res) => {
    if (new URL(req.url!, 'http://x').searchParams.get('watch')) return void res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
    answer(lists++, req, res);
  });
  servers.push(s);
  const clock = new FakeClock();
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0, clock });
  clients.push(c);
  const sink = new Sink();
  const r = new Reflector(c, sink, { gvr: pods, name: 'pods', clock, watchList, random: () => 0, pageSize: 1 });
  const stop = new AbortController();
  stops.push(stop);
  void r.run(stop.signal);
  return { s, r, sink, clock, lists: () => lists };
}

describe('reflector: LIST deadline', () => {
  it('a LIST that never answers is given up after the deadline and retried; the reflector then watches', async () => {
    const { r, sink, clock, lists } = await setup((n, _req, res) => {
      if (n > 0) json(res, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [pod('a')] });
      // the first LIST: never answered
    });
    await eventually(() => lists() === 1, { description: 'the first LIST sent' });
    assert.equal(r.state, 'listing');
    await clock.advance(LIST_PROGRESS_TIMEOUT_MS);
    await eventually(() => r.state === 'backoff', { description: 'the LIST given up' });
    assert.equal(r.lastError, `list pods: no page within ${LIST_PROGRESS_TIMEOUT_MS} ms`);
    await clock.advance(REFLECTOR_BACKOFF_MAX_MS);
    await eventually(() => r.state === 'watching', { description: 'listed again, then watching' });
    assert.deepEqual(sink.sets, ['a@7']);
    assert.equal(lists(), 2);
  });

  it('a slow list whose pages keep coming (each within the deadline, all far past it) is not cut', async () => {
    const held: (() => void)[] = [];
    const pages = ['a', 'b', 'c', 'd'];
    const { r, sink, clock, lists } = await setup((n, req, res) => {
      const token = new URL(req.url!, 'http://x').searchParams.get('continue');
      const i = token ? Number(token) : 0;
      const next = i + 1 < pages.length ? String(i + 1) : undefined;
      held.push(() => json(res, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7', continue: next }, items: [pod(pages[i])] }));
      void n;
    });
    for (let i = 0; i < pages.length; i++) {
      await eventually(() => held.length === i + 1, { description: `page ${i + 1} requested` });
      await clock.advance(LIST_PROGRESS_TIMEOUT_MS * 0.75);
      held[i]();
    }
    await eventually(() => r.state === 'watching', { description: 'the whole list taken, then watching' });
    assert.deepEqual(sink.sets, ['a,b,c,d@7']);
    assert.equal(lists(), 4, 'one LIST, four pages, no retry');
    assert.equal(r.stats.errors, 0);
  });

  it('a watch-list that sends no initial event within the deadline falls back to LIST', async () => {
    const { r, sink, clock, s } = await setup(
      (_n, _req, res) => json(res, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [pod('a')] }),
      true,
    );
    await eventually(() => s.seen.some((q) => q.url.includes('sendInitialEvents=true')), { description: 'the watch-list opened' });
    assert.equal(r.state, 'listing');
    await clock.advance(LIST_PROGRESS_TIMEOUT_MS);
    await eventually(() => r.state === 'watching', { description: 'fell back to LIST, then watching' });
    assert.equal(r.stats.watchListFallbacks, 1);
    assert.equal(r.lastError, `watch-list pods: no initial event within ${LIST_PROGRESS_TIMEOUT_MS} ms`);
    assert.deepEqual(sink.sets, ['a@7']);
  });
});
