import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { type WatchEvent } from '../../src/core/kube';
import { serverAndClient, status } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };
const setup = serverAndClient({ qps: 0 });
const ev = (type: string, name: string, rv: string) =>
  JSON.stringify({ type, object: { kind: 'Pod', metadata: { name, resourceVersion: rv, managedFields: [1] } } }) + '\n';

describe('watch', () => {
  it('a malformed event line ends the watch with an error that quotes none of the line (it may be a Secret)', async () => {
    const secretLine = '{"type":"ADDED","object":{"kind":"Secret","metadata":{"name":"db"},"data":{"password":"c3VwZXItc2VjcmV0LXZhbHVl"}},<html>\n';
    const { c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ev('ADDED', 'a', '11') + secretLine);
    });
    const end = await c.watch({ group: '', version: 'v1', resource: 'secrets' }, { resourceVersion: '10' }, () => {});
    assert.equal(end.kind, 'error');
    const msg = (end as { error: Error }).error.message;
    assert.match(msg, /^watch \/api\/v1\/secrets: malformed event \(parsing stopped at byte \d+ of \d+\)$/);
    for (let i = 0; i + 8 <= msg.length; i++) assert.ok(!secretLine.includes(msg.slice(i, i + 8)), `quotes the line: ${msg}`);
  });

  it('streams newline-delimited events in order, even when a line is split across chunks, until the server closes', async () => {
    const { s, c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const all = ev('ADDED', 'a', '11') + ev('MODIFIED', 'a', '12') + ev('BOOKMARK', '', '13') + ev('DELETED', 'a', '14');
      const cut = all.length / 2 + 3;
      res.write(all.slice(0, cut));
      // the rest once the client has taken the first chunk's whole event: two reads, a line cut across them
      void eventually(() => got.length >= 1, { description: 'the first event taken', timeoutMs: 5000 })
        .catch(() => false)
        .then(() => res.end(all.slice(cut)));
    });
    const got: WatchEvent[] = [];
    const end = await c.watch(pods, { resourceVersion: '10', allowWatchBookmarks: true, timeoutSeconds: 30, labelSelector: 'app=x' }, (e) => got.push(e));
    assert.deepEqual(end, { kind: 'closed', events: 4 });
    assert.deepEqual(
      got.map((e) => `${e.type}:${e.object.metadata.resourceVersion}`),
      ['ADDED:11', 'MODIFIED:12', 'BOOKMARK:13', 'DELETED:14'],
    );
    assert.equal(got[0].object.metadata.managedFields, undefined);
    const q = new URL(s.seen[0].url, 'http://x').searchParams;
    assert.deepEqual(
      [q.get('watch'), q.get('resourceVersion'), q.get('allowWatchBookmarks'), q.get('timeoutSeconds'), q.get('labelSelector')],
      ['1', '10', 'true', '30', 'app=x'],
    );
  });

  it('an ERROR event with a 410 Status ends the watch as expired (the caller relists)', async () => {
    const { c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ev('ADDED', 'a', '11'));
      res.write(
        JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (11)' } }) + '\n',
      );
    });
    const got: WatchEvent[] = [];
    const end = await c.watch(pods, { resourceVersion: '5' }, (e) => got.push(e));
    assert.equal(end.kind, 'expired');
    assert.equal(end.kind === 'expired' && end.error.message, 'too old resource version: 5 (11)');
    assert.equal(got.length, 1);
  });

  it('a 410 at open is expired too; a 403 is an error value (never a throw)', async () => {
    const { c } = await setup((req, res) =>
      req.url!.includes('resourceVersion=1') ? status(res, 410, 'Gone', 'gone') : status(res, 403, 'Forbidden', 'no watch for you'),
    );
    assert.equal((await c.watch(pods, { resourceVersion: '1' }, () => {})).kind, 'expired');
    const end = await c.watch(pods, { resourceVersion: '2' }, () => {});
    assert.ok(end.kind === 'error' && (end.error as any).status === 403);
  });

  it('abort ends the watch at once, closes the connection, and leaves no listener behind', async () => {
    const { s, c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ev('ADDED', 'a', '11'));
    });
    const ac = new AbortController();
    const got: WatchEvent[] = [];
    const p = c.watch(pods, {}, (e) => got.push(e), ac.signal);
    await eventually(() => got.length === 1, { description: 'got.length === 1' });
    ac.abort(new Error('stop'));
    const end = await p;
    assert.equal(end.kind, 'aborted');
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
    await eventually(() => s.openSockets.size === 0, { description: 's.openSockets.size === 0' });
  });

  it('a malformed line, or a throwing callback, ends the watch with an error value', async () => {
    const { c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ev('ADDED', 'a', '11') + '{"type":"ADDED","object":\n');
    });
    const end = await c.watch(pods, {}, () => {});
    assert.ok(end.kind === 'error' && /malformed/.test(end.error.message));
    const end2 = await c.watch(pods, {}, () => {
      throw new Error('consumer bug');
    });
    assert.ok(end2.kind === 'error' && end2.error.message === 'consumer bug');
  });

  it('a connection reset mid-stream is an error value', async () => {
    let taken = 0;
    const { c } = await setup((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ev('ADDED', 'a', '11'));
      // reset once the client has the event (bounded: then the count below fails)
      void eventually(() => taken === 1, { description: 'the event taken', timeoutMs: 5000 })
        .catch(() => false)
        .then(() => req.socket.destroy());
    });
    const end = await c.watch(pods, {}, () => void taken++);
    assert.equal(end.kind, 'error');
    assert.equal(end.events, 1);
  });
});
