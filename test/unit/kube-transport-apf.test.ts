/**
 * The transport as a reader of API Priority and Fairness: the flow schema and priority level UIDs
 * the server names on its answers are kept (the last seen), and every 429 is counted with its
 * Retry-After, whichever thread sent the request. Real node:http servers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { eventually } from '../support/eventually';
import { json, pagedPodList, serverAndClient, status } from './kube-helpers';

const serve = serverAndClient({ qps: 0 });
const PF = (fs: string, pl: string) => ({ 'X-Kubernetes-PF-FlowSchema-UID': fs, 'X-Kubernetes-PF-PriorityLevel-UID': pl });

describe('transport: API Priority and Fairness headers and 429s', () => {
  it('keeps the flow schema and priority level of the last answer that named them', async () => {
    let n = 0;
    const { c } = await serve((_q, res) => {
      n++;
      if (n === 1) return json(res, { ok: 1 }, PF('fs-1', 'pl-1'));
      if (n === 2) return json(res, { ok: 2 }); // APF exempt path: no headers; the last seen stays
      return status(res, 404, 'NotFound', 'no', PF('fs-2', 'pl-2')); // an error answer names them too
    });
    assert.equal(c.transport.stats.flowControl, undefined, 'none before any answer');
    await c.transport.getJson({ path: '/api' });
    assert.deepEqual(c.transport.stats.flowControl, { flowSchemaUID: 'fs-1', priorityLevelUID: 'pl-1' });
    await c.transport.getJson({ path: '/apis' });
    assert.deepEqual(c.transport.stats.flowControl, { flowSchemaUID: 'fs-1', priorityLevelUID: 'pl-1' });
    await assert.rejects(c.transport.getJson({ path: '/nope' }));
    assert.deepEqual(c.transport.stats.flowControl, { flowSchemaUID: 'fs-2', priorityLevelUID: 'pl-2' });
  });

  it('counts every 429 and sums its Retry-After (retried ones too)', async () => {
    let n = 0;
    const clock = new FakeClock();
    const { c } = await serve(
      (_q, res) => (++n <= 2 ? status(res, 429, 'TooManyRequests', 'queue full', { 'retry-after': '3', ...PF('f', 'p') }) : json(res, {})),
      {
        clock,
      },
    );
    const p = c.transport.getJson({ path: '/api/v1/pods' });
    for (let i = 1; i <= 2; i++) {
      await eventually(() => clock.pendingTimers() === 1, { description: `the Retry-After wait of 429 #${i}` });
      await clock.advance(3000);
    }
    await p;
    assert.deepEqual([c.transport.stats.throttled, c.transport.stats.retryAfterSeconds], [2, 6]);
    // 503 is not a throttle
    n = 10;
    const { c: other } = await serve((_q, res) => (++n === 11 ? status(res, 503, 'ServiceUnavailable', 'busy', { 'retry-after': '0' }) : json(res, {})));
    await other.transport.getJson({ path: '/api' });
    assert.equal(other.transport.stats.throttled, 0);
  });

  it("counts a 429 of a list page fetched by the I/O thread once, and the list's retry succeeds", async () => {
    const { c } = await serve(
      pagedPodList(25, (k) => (k === 1 ? 'throttle' : 'none')),
      { ioThread: true },
    );
    const r = await c.list({ group: '', version: 'v1', resource: 'pods' }, { limit: 10 }, {});
    assert.equal(r.items.length, 25);
    assert.ok(c.transport.stats.streamedPages > 0, 'the pages came through the I/O thread');
    assert.equal(c.transport.stats.throttled, 1);
  });
});
