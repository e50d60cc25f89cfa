/**
 * `kubeloop load --no-protobuf`: by default the lists KubeLoop reads, on its own thread and on the
 * I/O thread (full objects' pages), ask for protobuf and the demo cluster answers it, as
 * kube-apiserver does; with the flag no request asks for it and no answer is protobuf, and the
 * counts are the same. Seen on the wire: a recording
 * reverse proxy in front of the demo cluster (plain HTTP on loopback) notes every request's Accept
 * and every answer's Content-Type.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { ClusterLoader } from '../../src/core/loader';
import { parseSyncArgs } from '../../src/cli/syncArgs';
import { demo, type Fixture } from './loader-helpers';
import { capture } from '../support/capture';
import { PROTOBUF, wireProxy, type Seen } from '../support/wireProxy';

describe('kubeloop load --no-protobuf', () => {
  let fx: Fixture;
  let proxy: Awaited<ReturnType<typeof wireProxy>>;
  let kubeconfig: string;
  before(async () => {
    fx = await demo(600);
    proxy = await wireProxy(fx.cluster.url);
    kubeconfig = join(fx.dir, 'via-proxy');
    assert.ok(fx.cluster.url.startsWith('http://'), 'the demo cluster serves plain HTTP here');
    writeFileSync(kubeconfig, readFileSync(fx.kubeconfig, 'utf8').split(fx.cluster.url).join(proxy.url));
  });
  after(async () => {
    http.globalAgent.destroy();
    await proxy.close();
    await fx.stop();
  });

  /** One load through the proxy (metadata-only unless `full`): what it printed, and what crossed the wire. */
  async function load(extra: string[], full = false) {
    proxy.seen.length = 0;
    const c = capture();
    const mode = full ? ['--page-size', '20'] : ['--metadata-only'];
    const code = await runLoad(['--kubeconfig', kubeconfig, ...mode, '--json', '--no-discovery-cache', ...extra], c.io);
    assert.equal(code, 0, c.err);
    const j = JSON.parse(c.out) as {
      objects: number;
      transport: { streamedPages: number };
      types: { group: string; resource: string; namespace: string | null; count: number; pages: number }[];
    };
    const counts = j.types.map((t) => `${t.group}/${t.resource} ${t.namespace ?? ''}: ${t.count}`).sort();
    const pages = j.types.reduce((n, t) => n + t.pages, 0);
    return { objects: j.objects, counts, pages, streamedPages: j.transport.streamedPages, seen: [...proxy.seen] };
  }

  it('asks for protobuf by default and never with the flag; the counts are equal', async () => {
    const def = await load([]);
    assert.ok(
      def.seen.some((s) => s.accept.startsWith(PROTOBUF) && s.contentType.startsWith(PROTOBUF)),
      'protobuf asked and answered by default',
    );
    const off = await load(['--no-protobuf']);
    assert.ok(off.seen.length > 10, `requests seen: ${off.seen.length}`);
    const asked = off.seen.filter((s) => s.accept.includes(PROTOBUF) || s.contentType.startsWith(PROTOBUF));
    assert.deepEqual(asked, [], 'no request asks for protobuf, no answer is protobuf');
    assert.equal(off.objects, def.objects);
    assert.ok(def.objects > 500, `objects: ${def.objects}`);
    assert.deepEqual(off.counts, def.counts);
  });

  it("full objects: the I/O thread's pages are asked and answered in protobuf by default, never with the flag; the counts are equal", async () => {
    const lists = (seen: Seen[]) => seen.filter((s) => /[?&]limit=/.test(s.url));
    const pods = (seen: Seen[]) => lists(seen).filter((s) => s.url.startsWith('/api/v1/pods?'));
    const def = await load([], true);
    // Every page was walked by the I/O thread (none was left to the calling thread): the full
    // objects' and the metadata-only lists' of the kinds the walker does not read (next test), on
    // the lanes' warmed connections.
    assert.equal(def.streamedPages, def.pages);
    assert.equal(lists(def.seen).length, def.pages);
    assert.ok(pods(def.seen).length >= 3, `pod pages: ${pods(def.seen).length}`);
    for (const s of pods(def.seen)) {
      assert.ok(s.accept.startsWith(PROTOBUF) && s.contentType.startsWith(PROTOBUF), `${s.url}: asked ${s.accept}, answered ${s.contentType}`);
    }
    const off = await load(['--no-protobuf'], true);
    assert.equal(off.streamedPages, off.pages);
    assert.equal(off.pages, def.pages);
    const asked = off.seen.filter((s) => s.accept.includes(PROTOBUF) || s.contentType.startsWith(PROTOBUF));
    assert.deepEqual(asked, [], 'no request asks for protobuf, no answer is protobuf');
    assert.equal(off.objects, def.objects);
    assert.deepEqual(off.counts, def.counts);
  });

  it('full objects: a kind the walker does not read (custom resources) is counted from its metadata-only list in protobuf; the report is what full objects give', async () => {
    const def = await load([], true);
    const lists = def.seen.filter((s) => /[?&]limit=/.test(s.url));
    const crds = (await (await fx.client()).list({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' })).items;
    assert.ok(crds.length >= 2, `CRDs: ${crds.length}`);
    for (const crd of crds) {
      const group = (crd as unknown as { spec: { group: string } }).spec.group;
      const own = lists.filter((s) => s.url.startsWith(`/apis/${group}/`));
      assert.ok(own.length > 0, `no list of ${group}`);
      for (const s of own) {
        assert.ok(s.accept.startsWith(`${PROTOBUF};as=PartialObjectMetadataList`), `${s.url}: asked ${s.accept}`);
        assert.ok(s.contentType.startsWith(PROTOBUF), `${s.url}: answered ${s.contentType}`);
      }
    }
    // The kinds the walker reads stay full objects.
    for (const s of lists.filter((l) => l.url.startsWith('/api/v1/pods?'))) assert.equal(s.accept.includes('as=PartialObjectMetadata'), false, s.accept);
    // What a load of full objects counts, type by type, with its pages: the same report.
    const loader = new ClusterLoader(await fx.client(), { pageSize: 20, concurrency: 4 });
    const full = await loader.load();
    const want = full.results.map((r) => `${r.task.gvr.group}/${r.task.gvr.resource} ${r.task.namespace ?? ''}: ${r.count}`).sort();
    assert.deepEqual(def.counts, want);
    assert.equal(
      def.pages,
      full.results.reduce((n, r) => n + r.pages, 0),
    );
    assert.equal(def.objects, full.summary.objects);
  });

  it('kubeloop sync takes the flag too', () => {
    const f = parseSyncArgs(['--no-protobuf']);
    assert.ok(typeof f === 'object' && 'namespaces' in f && f.noProtobuf === true, JSON.stringify(f));
    const d = parseSyncArgs([]);
    assert.ok(typeof d === 'object' && 'namespaces' in d && d.noProtobuf === undefined);
  });
});
