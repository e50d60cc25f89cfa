// An object's YAML document against a real HTTP server (FakeClock for the deadline and the
// transport's timers): answered within one deadline, whatever the server does, and saying why not.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeClock } from '../../src/core/clock';
import type { KubeClient } from '../../src/core/kube/client';
import type { Logger } from '../../src/app/logger';
import { fetchObjectYaml, type YamlFetchDeps } from '../../src/app/yaml/fetch';
import type { ObjectAddress } from '../../src/app/yaml/address';
import { eventually } from '../support/eventually';
import { json, serverAndClient } from './kube-helpers';

const CM: ObjectAddress = { context: 'test', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', name: 'html-annotated' };
const TIMEOUT_MS = 30_000;

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { trace: () => {}, debug: () => {}, info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m), warnings };
}

/** A server whose every request is held open, never answered; the client shares the test's clock. */
async function hungServer(connect: ReturnType<typeof serverAndClient>, clock: FakeClock) {
  const held: ServerResponse[] = [];
  const { s, c } = await connect((_req: IncomingMessage, res: ServerResponse) => void held.push(res), { clock, ioThread: false });
  return { s, c };
}

function deps(client: () => Promise<KubeClient | undefined>, clock: FakeClock, log: Logger): YamlFetchDeps {
  return { client, timeoutMs: TIMEOUT_MS, clock, log };
}

describe('fetchObjectYaml', () => {
  const connect = serverAndClient({});

  it('a GET the API server never answers: the document says so at the deadline, retries included, and the socket is closed', async () => {
    const clock = new FakeClock();
    const { s, c } = await hungServer(connect, clock);
    const log = capture();
    let doc: string | undefined;
    const p = fetchObjectYaml(
      CM,
      deps(() => Promise.resolve(c), clock, log),
      new AbortController().signal,
    ).then((d) => (doc = d));
    await eventually(() => s.seen.length === 1, { description: 'the GET at the server' });
    await clock.advance(TIMEOUT_MS - 1);
    assert.equal(doc, undefined, 'still waiting before the deadline');
    await clock.advance(1);
    await p;
    assert.match(doc!, /^# Could not fetch .*html-annotated from context "test":/);
    assert.match(doc!, /did not answer in time: GET \/api\/v1\/namespaces\/default\/configmaps\/html-annotated: no answer within 30 s/);
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0]!, /^yaml: GET \/api\/v1\/namespaces\/default\/configmaps\/html-annotated failed: .*no answer within 30 s/);
    await eventually(() => s.closedSockets >= 1, { description: 'the GET socket closed' });
    assert.equal(clock.pendingTimers(), 0, 'no timer outlives the fetch');
  });

  it('a connection that never opens: the document says which step had no answer', async () => {
    const clock = new FakeClock();
    const log = capture();
    let doc: string | undefined;
    const p = fetchObjectYaml(
      CM,
      deps(() => new Promise<never>(() => {}), clock, log),
      new AbortController().signal,
    ).then((d) => (doc = d));
    await clock.advance(TIMEOUT_MS);
    await p;
    assert.match(doc!, /connecting to context "test": no answer within 30 s/);
    assert.match(log.warnings[0]!, /^yaml: connecting to context "test" failed/);
  });

  it("the editor's cancel ends the GET at once", async () => {
    const clock = new FakeClock();
    const { s, c } = await hungServer(connect, clock);
    const ac = new AbortController();
    const p = fetchObjectYaml(
      CM,
      deps(() => Promise.resolve(c), clock, capture()),
      ac.signal,
    );
    await eventually(() => s.seen.length === 1, { description: 'the GET at the server' });
    ac.abort(new Error('cancelled'));
    assert.match(await p, /cancelled/);
    await eventually(() => s.closedSockets >= 1, { description: 'the GET socket closed' });
  });

  it('an answered GET renders the object', async () => {
    const { c } = await connect((_req, res) =>
      json(res, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'html-annotated', namespace: 'default', resourceVersion: '7' }, data: { a: 'b' } }),
    );
    const doc = await fetchObjectYaml(
      CM,
      deps(() => Promise.resolve(c), new FakeClock(), capture()),
      new AbortController().signal,
    );
    assert.match(doc, /kind: ConfigMap/);
    assert.match(doc, /a: b/);
  });

  it('no client for the context: the document says to select it', async () => {
    const doc = await fetchObjectYaml(
      CM,
      deps(() => Promise.resolve(undefined), new FakeClock(), capture()),
      new AbortController().signal,
    );
    assert.match(doc, /not connected to this context now/);
  });
});
