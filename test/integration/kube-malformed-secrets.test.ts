/**
 * A body that is not JSON never has its bytes quoted into the error (it may be a Secret list): the
 * demo cluster's `malformed` fault on secrets, through every path a list takes (pages walked by the
 * I/O thread, pages on the calling thread, one unpaged GET), over a real socket.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeTransportError } from '../../src/core/kube';
import { demo, type Fixture } from './loader-helpers';

const secrets = { group: '', version: 'v1', resource: 'secrets' };
const NS = 'vault';

describe('malformed JSON answers on secrets', () => {
  let fx: Fixture;
  const values: string[] = [];
  before(async () => {
    fx = await demo(0);
    fx.cluster.store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < 40; i++) {
      const data = { username: Buffer.from(`admin-${i}`).toString('base64'), password: Buffer.from(`s3cr3t-value-${i}-${'x'.repeat(i)}`).toString('base64') };
      values.push(data.username, data.password);
      fx.cluster.store.create('', 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}`, namespace: NS }, type: 'Opaque', data });
    }
  });
  after(async () => {
    await fx.stop();
  });

  /** The message must hold no run of 8 characters that also occurs in the body (after its "GET path: "). */
  const assertQuotesNothing = (e: unknown, body: string) => {
    assert.ok(e instanceof KubeTransportError && e.kind === 'malformed', `expected a malformed error, got ${String(e)}`);
    const text = e.message.replace(/^GET \S+: /, '');
    for (const v of values) assert.ok(!e.message.includes(v), `a secret value is in the message: ${e.message}`);
    for (let i = 0; i + 8 <= text.length; i++)
      assert.ok(!body.includes(text.slice(i, i + 8)), `the message quotes the body ("${text.slice(i, i + 8)}"): ${e.message}`);
    // metadata-only lists are asked for in protobuf: the demo cuts a protobuf body as it cuts JSON
    assert.match(text, /^response is not valid (JSON|Kubernetes protobuf) \(/);
  };

  for (const [what, opts, stream] of [
    ['paged, pages walked by the I/O thread', { limit: 10 }, true],
    ['paged metadata-only, on the calling thread', { limit: 10, metadataOnly: true }, false],
    ['one unpaged list', {}, false],
  ] as const) {
    it(`${what}: a clear error that quotes no byte of the response`, async () => {
      const c = await fx.client();
      const id = fx.cluster.faults.add({ kind: 'malformed', resource: 'secrets', verb: 'list' });
      try {
        // The bytes the client gets, as a plain HTTP client sees them.
        const q = new URLSearchParams(
          Object.entries(opts)
            .filter(([k]) => k === 'limit')
            .map(([k, v]) => [k, String(v)]),
        );
        const raw = await (await fetch(`${fx.cluster.url}/api/v1/namespaces/${NS}/secrets?${q}`)).text();
        assert.throws(() => JSON.parse(raw), /Unexpected token '<', \.\.\."/, 'the fault makes V8 quote the input');
        const before = c.transport.stats.streamedPages;
        await assert.rejects(c.list(secrets, { namespace: NS, ...opts }), (e: unknown) => (assertQuotesNothing(e, raw), true));
        assert.equal(c.transport.stats.requests > 0, true);
        if (stream) assert.ok(c.transport.listStreams, 'the I/O thread walks this list');
        else assert.equal(c.transport.stats.streamedPages, before);
      } finally {
        fx.cluster.faults.remove(id);
      }
    });
  }
});
