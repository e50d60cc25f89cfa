import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pageTurn } from '../../src/core/kube/transport/turns';

describe('pageTurn: one page parsed per turn of the event loop', () => {
  it('grants one waiter per turn, in order: a turn scheduled from a grant runs before the grant after next', async () => {
    // A setImmediate queued by grant k runs in the turn after it, so with one grant per turn the
    // order is g1 g2 m1 g3 m2 g4 m3 ...; grants batched in one turn would give g1 g2 g3 ... m1 m2.
    const seen: string[] = [];
    const n = 6;
    await Promise.all(
      Array.from({ length: n }, (_, k) =>
        pageTurn().then(() => {
          seen.push(`g${k + 1}`);
          setImmediate(() => seen.push(`m${k + 1}`));
        }),
      ),
    );
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const want = ['g1'];
    for (let k = 2; k <= n; k++) want.push(`g${k}`, `m${k - 1}`);
    want.push(`m${n}`);
    assert.deepEqual(seen, want);
  });

  it('grants every waiter that was not aborted, in the order they asked; an aborted one rejects with its reason', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), async (aborts) => {
        const granted: number[] = [];
        const rejected: number[] = [];
        const acs = aborts.map(() => new AbortController());
        const all = aborts.map((_, i) =>
          pageTurn(acs[i]!.signal).then(
            () => void granted.push(i),
            (e: unknown) => {
              assert.equal((e as Error).message, `abort ${i}`);
              rejected.push(i);
            },
          ),
        );
        aborts.forEach((a, i) => a && acs[i]!.abort(new Error(`abort ${i}`)));
        await Promise.all(all);
        assert.deepEqual(
          granted,
          aborts.flatMap((a, i) => (a ? [] : [i])),
        );
        assert.deepEqual(
          rejected.sort((x, y) => x - y),
          aborts.flatMap((a, i) => (a ? [i] : [])),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('rejects at once when the signal is already aborted, and keeps granting the others', async () => {
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await assert.rejects(pageTurn(ac.signal), /gone/);
    await pageTurn(); // not stuck behind it
  });
});
