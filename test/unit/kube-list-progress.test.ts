/**
 * A paged list ends however the server answers (pageProgress.ts): a continue token given twice, or
 * a long run of pages without items, fails the list 'noProgress' on both threads, against real HTTP
 * servers on loopback. Each server gives up (ends the list) after a few hundred pages, so that the
 * code before the check existed ends (wrongly, with what it gathered) too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { KubeTransportError } from '../../src/core/kube';
import { MAX_EMPTY_PAGES } from '../../src/core/kube/listwatch/pageProgress';
import { json, serverAndClient } from './kube-helpers';

const pods = { group: '', version: 'v1', resource: 'pods' };
const GIVE_UP = 300;
const serve = serverAndClient({ qps: 0, retry: { maxBackoffRetries: 0 } });
const setup = (handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, ioThread: boolean) => serve(handler, { ioThread });

/** A list whose page after `token` is `page(n, token)`; after GIVE_UP requests, the last page. */
function lister(page: (n: number, token: string) => { items: number; next: string }) {
  let n = 0;
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const token = new URL(req.url!, 'http://x').searchParams.get('continue') ?? '';
    const p = page(n, token);
    const next = ++n >= GIVE_UP ? '' : p.next;
    json(res, {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '5', continue: next || undefined },
      items: Array.from({ length: p.items }, (_, i) => ({ metadata: { name: `p${n}-${i}`, namespace: 'ns' } })),
    });
  };
}

const noProgress = (re: RegExp) => (e: unknown) => e instanceof KubeTransportError && e.kind === 'noProgress' && re.test(e.message);

for (const ioThread of [true, false]) {
  const where = ioThread ? 'I/O thread' : 'calling thread';
  describe(`paged list progress (${where})`, () => {
    it('a continue token the server gave before ends the list noProgress, at the page that repeats it', async () => {
      // tokens a, b, c, then b again: the cycle b -> c -> b would go on for ever
      const cycle = ['a', 'b', 'c', 'b'];
      const { s, c } = await setup(
        lister((n) => ({ items: 2, next: cycle[n % 4] })),
        ioThread,
      );
      await assert.rejects(c.list(pods, { limit: 2 }), noProgress(/^GET \/api\/v1\/pods: continue token repeated at page 4 /));
      assert.ok(s.seen.length <= 4 + 3, `${s.seen.length} requests`); // a few pages may have been requested ahead
    });

    it(`more than ${MAX_EMPTY_PAGES} pages in a row without items end the list noProgress`, async () => {
      const { s, c } = await setup(
        lister((n) => ({ items: 0, next: `t${n}` })),
        ioThread,
      );
      await assert.rejects(c.list(pods, { limit: 2 }), noProgress(new RegExp(`: ${MAX_EMPTY_PAGES + 1} pages in a row without items`)));
      assert.ok(s.seen.length <= MAX_EMPTY_PAGES + 2 + 3, `${s.seen.length} requests`);
    });

    it('empty pages between full ones, and distinct tokens, load as before', async () => {
      const { c } = await setup(
        lister((n) => (n >= 40 ? { items: 1, next: '' } : { items: n % 10 === 9 ? 1 : 0, next: `t${n}` })),
        ioThread,
      );
      const r = await c.list(pods, { limit: 2 });
      assert.equal(r.items.length, 5);
      assert.equal(r.pages, 41);
    });
  });
}
