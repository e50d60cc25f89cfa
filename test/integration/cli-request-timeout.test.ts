/**
 * `kubeloop load --request-timeout` against the demo cluster over a real socket: a list that never
 * answers is given up at the deadline (and its retries), that type fails naming it, and the rest of
 * the load finishes; without the flag the same list would wait for the task timeout.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLoad } from '../../src/cli/load';
import { demo, type Fixture } from './loader-helpers';
import { capture } from '../support/capture';

describe('kubeloop load --request-timeout', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(300);
  });
  after(async () => {
    await fx.stop();
  });

  it('a LIST that never answers fails at the deadline; the other types load', { timeout: 120_000 }, async () => {
    const id = fx.cluster.faults.add({ kind: 'hang', verb: 'list', resource: 'configmaps' });
    try {
      const c = capture();
      const code = await runLoad(
        [
          '--kubeconfig',
          fx.kubeconfig,
          '--json',
          '--include',
          'configmaps,serviceaccounts',
          '--request-timeout',
          '300ms',
          '--timeout',
          '0',
          '--no-discovery-cache',
        ],
        c.io,
      );
      assert.equal(code, 2, c.err);
      const j = JSON.parse(c.out.trim()) as { failed: { resource: string; message: string }[]; types: { resource: string; outcome: string }[] };
      assert.deepEqual(
        j.failed.map((f) => f.resource),
        ['configmaps'],
      );
      assert.match(j.failed[0].message, /no complete response within 300 ms/);
      assert.ok(j.types.some((t) => t.resource === 'serviceaccounts' && t.outcome === 'ok'));
    } finally {
      fx.cluster.faults.remove(id);
    }
  });
});
