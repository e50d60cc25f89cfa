/**
 * Custom-resource lists: kube-apiserver encodes them unstructured (a Go map, keys sorted: apiVersion,
 * items, kind, metadata), so their continue token comes after the items. They are still walked by
 * the I/O thread page after page (the token read from the body's tail), with exact results, against
 * a CRD on the demo cluster over a real socket.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { continueFromHead } from '../../src/core/kube';
import { demo, type Fixture } from './loader-helpers';

const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const N = 250;

describe('custom-resource lists (items before metadata)', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(0, { crds: [{ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }] });
    for (let i = 0; i < N; i++) {
      fx.cluster.store.create('example.com', 'widgets', {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: `w-${String(i).padStart(3, '0')}`, namespace: 'default' },
        spec: { size: i },
      });
    }
  });
  after(async () => {
    await fx.stop();
  });

  it('the demo cluster orders list keys as kube-apiserver does: typed lists metadata first, custom resources sorted', async () => {
    const cr = await (await fetch(`${fx.cluster.url}/apis/example.com/v1/namespaces/default/widgets?limit=3`)).text();
    assert.deepEqual(Object.keys(JSON.parse(cr)), ['apiVersion', 'items', 'kind', 'metadata']);
    assert.deepEqual(Object.keys(JSON.parse(cr).metadata), ['continue', 'remainingItemCount', 'resourceVersion']);
    assert.equal(continueFromHead(cr.slice(0, 200)), undefined, 'the head cannot tell the token of an items-first list');
    const typed = await (await fetch(`${fx.cluster.url}/api/v1/namespaces?limit=2`)).text();
    assert.deepEqual(Object.keys(JSON.parse(typed)), ['kind', 'apiVersion', 'metadata', 'items']);
  });

  it('every page is walked by the I/O thread (token from the tail), with every object exactly once', async () => {
    const c = await fx.client();
    assert.ok(c.transport.listStreams);
    const before = c.transport.stats.streamedPages;
    const r = await c.list(widgets, { limit: 20 });
    assert.equal(r.pages, Math.ceil(N / 20));
    assert.equal(c.transport.stats.streamedPages - before, r.pages, 'no page fell back to the calling thread');
    const names = r.items.map((o) => o.metadata.name);
    assert.equal(new Set(names).size, N);
    assert.deepEqual(names, [...names].sort());
    assert.equal(r.items[0].kind, 'Widget');
  });

  it('the same list without the I/O thread (sequential on the calling thread) is exact too', async () => {
    const c = await fx.client({ ioThread: false });
    const r = await c.list(widgets, { limit: 20 });
    assert.equal(r.items.length, N);
    assert.equal(new Set(r.items.map((o) => o.metadata.uid)).size, N);
  });
});
