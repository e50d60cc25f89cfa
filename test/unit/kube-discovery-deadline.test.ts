/**
 * Discovery's overall deadline (discovery.ts), against a real legacy-discovery server on loopback,
 * on a FakeClock: group versions that never answer cannot hold discovery past it; each is a failure
 * that names the overall deadline, and what answered in time is kept, so its types still load.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { FakeClock } from '../../src/core/clock';
import { KubeClient, listableResources, type Discovery } from '../../src/core/kube';
import { contextFor, json, startServer, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const OVERALL_MS = 10_000;
const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

/** Legacy discovery: the core group and groups g0..g{n-1} (v1 each); `hangs(i)`: group gi never answers. */
function legacy(n: number, hangs: (i: number) => boolean, hung: http.ServerResponse[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/api') return json(res, { kind: 'APIVersions', versions: ['v1'] });
    if (path === '/apis') {
      const groups = Array.from({ length: n }, (_, i) => ({
        name: `g${i}`,
        versions: [{ groupVersion: `g${i}/v1`, version: 'v1' }],
        preferredVersion: { groupVersion: `g${i}/v1`, version: 'v1' },
      }));
      return json(res, { kind: 'APIGroupList', groups });
    }
    const m = /^\/apis\/g(\d+)\/v1$/.exec(path);
    if (m && hangs(Number(m[1]))) return void hung.push(res);
    const kind = path === '/api/v1' ? 'Pod' : `Thing${m?.[1]}`;
    json(res, {
      kind: 'APIResourceList',
      groupVersion: path.slice(path.indexOf('/', 1) + 1),
      resources: [{ name: `${kind.toLowerCase()}s`, kind, namespaced: true, verbs: ['list', 'watch'] }],
    });
  };
}

describe('discovery: overall deadline', () => {
  it('group versions still unanswered at the overall deadline are failures naming it; the rest is discovered', async () => {
    const hung: http.ServerResponse[] = [];
    const s = await startServer(legacy(40, (i) => i >= 10, hung));
    servers.push(s);
    const clock = new FakeClock();
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0, clock, discoveryTimeoutMs: 0, discoveryOverallTimeoutMs: OVERALL_MS });
    clients.push(c);
    let d: Discovery | undefined;
    let failed: unknown;
    c.discover({ legacyOnly: true }).then(
      (x) => (d = x),
      (e: unknown) => (failed = e),
    );
    // every answering group version answered, and the pool's 8 lanes held by hung ones
    await eventually(() => hung.length === 8, { description: 'eight hung group-version requests in flight' });
    await clock.advance(OVERALL_MS);
    await eventually(() => d !== undefined || failed !== undefined, { description: 'discovery to end at its overall deadline' });
    assert.equal(failed, undefined);
    const groups = new Set(listableResources(d!).map((r) => r.group));
    assert.deepEqual(groups, new Set(['', ...Array.from({ length: 10 }, (_, i) => `g${i}`)]));
    assert.equal(d!.failures.length, 30);
    for (const f of d!.failures)
      assert.match(f.message, new RegExp(`^GET /apis/${f.groupVersion}: not answered before discovery's overall deadline of ${OVERALL_MS} ms$`));
    assert.equal(s.seen.length, 2 + 1 + 10 + 8, 'no request sent after the deadline');
    await eventually(() => hung.every((r) => r.destroyed || r.socket === null || r.socket.destroyed), { description: 'the hung requests abandoned' });
  });
});
