// A paged list keeps no page's objects once they are taken: while it waits for the next page, what
// the caller dropped can be collected. (An async function's suspended frame keeps the values of
// its locals: a page held there through the wait for the next one survives the young generation's
// collections and is promoted, and with many lists in flight at once that was most of the GC work
// of a load.) Checked over a real socket, on the I/O thread's stream and on the calling thread,
// with and without pipelining, by WeakRefs to the taken objects and a full collection mid-list.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeClient, type KubeObject } from '../../src/core/kube';
import { contextFor, pagedPodList, startServer, type TestServer } from './kube-helpers';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const pods = { group: '', version: 'v1', resource: 'pods' };
const LIMIT = 50;
const N = 5 * LIMIT;

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

/** A paged pod list whose third page is answered only once `release` is called. */
async function gatedServer() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const pages = pagedPodList(N);
  const s = await startServer((req, res) => {
    const cont = new URL(req.url!, 'http://x').searchParams.get('continue');
    if (cont && Number(cont) >= 2 * LIMIT) void gate.then(() => pages(req, res));
    else pages(req, res);
  });
  servers.push(s);
  return { s, release };
}

/** Lists every pod, dropping each page as the loader does; returns how many of the second page's objects were still alive while the third was awaited. */
async function aliveWhileWaiting(ioThread: boolean, pipeline: boolean): Promise<{ alive: number; total: number; listed: number }> {
  const { s, release } = await gatedServer();
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0, ioThread });
  clients.push(c);
  const sink: KubeObject[] = [];
  let listed = 0;
  let probe: Promise<number> | undefined;
  const r = c.list(
    pods,
    { limit: LIMIT, pipeline },
    {
      sink,
      onPage: (page) => {
        listed += page.items;
        if (page.index === 1) {
          const refs = sink.slice(sink.length - page.items).map((o) => new WeakRef(o));
          // A later macrotask: the list has taken this page and waits for the next (held by the server).
          probe = new Promise((resolve) =>
            setImmediate(() => {
              gc();
              resolve(refs.filter((w) => w.deref() !== undefined).length);
              release();
            }),
          );
        }
        sink.length = 0; // the caller keeps nothing of the page
      },
    },
  );
  await r;
  assert.ok(probe, 'the second page was taken');
  return { alive: await probe, total: LIMIT, listed };
}

describe('paged list memory', () => {
  for (const ioThread of [true, false]) {
    for (const pipeline of [true, false]) {
      it(`holds no taken page while it waits for the next (${ioThread ? 'I/O thread' : 'calling thread'}, pipeline ${pipeline})`, async () => {
        const { alive, total, listed } = await aliveWhileWaiting(ioThread, pipeline);
        assert.equal(listed, N, 'every object listed');
        assert.equal(alive, 0, `${alive} of the ${total} objects of a taken page were still alive while the list waited for the next page`);
      });
    }
  }
});
