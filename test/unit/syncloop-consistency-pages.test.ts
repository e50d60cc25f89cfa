/**
 * The consistency check compares its list page by page as the pages are read, and holds no list
 * whole: a real KubeClient lists from a real HTTP server on loopback, which notes, as each page is
 * asked for, how many listed items the check has already compared with what the source holds.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { KubeClient } from '../../src/core/kube/client';
import { Reflector, type ReflectorSink } from '../../src/core/syncloop/sources/reflector';
import { ConsistencyCheck, ConsistencyLister, type HeldObjects } from '../../src/core/syncloop/sources/consistency';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { eventually } from '../support/eventually';
import { contextFor, startServer, type TestServer } from './kube-helpers';

const GVR = { group: '', version: 'v1', resource: 'configmaps' };
const PAGE = 500;
const PAGES = 12;
const N = PAGE * PAGES;
const meta = (i: number, rv: number) => ({ name: `cm-${i}`, namespace: 'ns', uid: `uid-${i}`, resourceVersion: String(rv) });

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const idle: ReflectorSink = { replace: async () => undefined, apply: async () => undefined };

describe('the consistency check lists in pages and compares each as it comes', () => {
  it('has compared every earlier page when the next is asked for, and finds what the watch missed', async () => {
    let gets = 0;
    /** For each page asked for (by its index), how many listed items had been compared then. */
    const comparedWhenAsked: number[] = [];
    const server = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const k = Number(url.searchParams.get('continue') || '0');
      comparedWhenAsked[k] = gets;
      const items = Array.from({ length: PAGE }, (_, j) => {
        const i = k * PAGE + j;
        return { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: meta(i, i === 7 ? 90_000 : 1000 + i) };
      });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          apiVersion: 'meta.k8s.io/v1',
          kind: 'PartialObjectMetadataList',
          metadata: { resourceVersion: '100000', continue: k + 1 < PAGES ? String(k + 1) : '' },
          items,
        }),
      );
    });
    servers.push(server);
    const client = await KubeClient.connect(contextFor(server.url), { qps: 0 });
    // Held: every listed object but the last (a missed ADD), and uid-7 older than listed (a missed MODIFY).
    const held = new Map<string, StoredObject>();
    for (let i = 0; i < N - 1; i++) held.set(`uid-${i}`, { metadata: meta(i, 1000 + i) });
    const lookup: HeldObjects = {
      get: (uid) => {
        gets++;
        return held.get(uid);
      },
      values: () => held.values(),
    };
    const clock = new FakeClock();
    const reflector = new Reflector(client, idle, { gvr: GVR, name: 'api:configmaps', clock, watchList: false });
    reflector.state = 'watching';
    const missed: string[][] = [];
    const lister = new ConsistencyLister({
      client,
      clock,
      gvr: GVR,
      pageSize: PAGE,
      source: 'api:configmaps',
      reflector,
      held: () => lookup,
      check: new ConsistencyCheck(),
      periodMs: 60_000,
      confirmMs: 1000,
      onMissed: (m) => missed.push(m),
    });
    lister.firstCheckMs = 1000;
    const ac = new AbortController();
    const run = lister.run(ac.signal);
    try {
      await clock.advance(1000);
      await eventually(() => lister.lists === 1 && lister.opts.check.pending('api:configmaps'), { description: 'the first list compared', timeoutMs: 20_000 });
      assert.equal(comparedWhenAsked.length, PAGES);
      // Page k may be asked for as soon as page k-1's continue token shows (prefetch): by then every
      // page before k-1 has been compared, item by item.
      for (let k = 2; k < PAGES; k++) assert.ok(comparedWhenAsked[k]! >= (k - 1) * PAGE, `page ${k} asked for after ${comparedWhenAsked[k]} comparisons`);
      await clock.advance(1000);
      await eventually(() => missed.length === 1, { description: 'the confirmation', timeoutMs: 20_000 });
      assert.deepEqual([...missed[0]!].sort(), [`+uid-${N - 1}@${1000 + N - 1}`, '~uid-7@90000']);
    } finally {
      ac.abort();
      await run;
      client.close();
    }
  });
});
