/**
 * The demo cluster answers reads in protobuf as kube-apiserver does, checked over its socket with
 * core's walker: for every built-in kind it serves in protobuf, a list, a get and a watch decode to
 * what its JSON answer holds, narrowed to the walker's field set; PartialObjectMetadata(List) in
 * protobuf for any type, custom resources included; custom resources' full objects in JSON when
 * JSON is acceptable too, a 406 when it is not.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import {
  decodeProtobuf,
  isProtobuf,
  PROTOBUF_ACCEPT,
  PROTOBUF_METADATA_ACCEPT,
  PROTOBUF_METADATA_LIST_ACCEPT,
  WatchFrameDecoder,
  type ProtobufWatchEvent,
} from '../../src/core/kube/protobuf';
import { planFor } from '../../src/core/kube/protobuf/decode';
import { warmMessages } from '../../src/demo/server/protobuf-forms';
import { F_INLINE, F_OMITEMPTY, F_REPEATED, fillZeros, K_MESSAGE, project, type MessagePlan } from '../../src/core/kube/protobuf/plan';

type Obj = Record<string, unknown>;

/** Every kind with a field set, by its collection's path. */
const KINDS: [path: string, apiVersion: string, kind: string][] = [
  ['/api/v1/pods', 'v1', 'Pod'],
  ['/api/v1/events', 'v1', 'Event'],
  ['/api/v1/nodes', 'v1', 'Node'],
  ['/api/v1/namespaces', 'v1', 'Namespace'],
  ['/api/v1/services', 'v1', 'Service'],
  ['/api/v1/configmaps', 'v1', 'ConfigMap'],
  ['/api/v1/secrets', 'v1', 'Secret'],
  ['/api/v1/persistentvolumes', 'v1', 'PersistentVolume'],
  ['/api/v1/persistentvolumeclaims', 'v1', 'PersistentVolumeClaim'],
  ['/api/v1/replicationcontrollers', 'v1', 'ReplicationController'],
  ['/apis/apps/v1/deployments', 'apps/v1', 'Deployment'],
  ['/apis/apps/v1/replicasets', 'apps/v1', 'ReplicaSet'],
  ['/apis/apps/v1/statefulsets', 'apps/v1', 'StatefulSet'],
  ['/apis/apps/v1/daemonsets', 'apps/v1', 'DaemonSet'],
  ['/apis/batch/v1/jobs', 'batch/v1', 'Job'],
  ['/apis/batch/v1/cronjobs', 'batch/v1', 'CronJob'],
  ['/apis/discovery.k8s.io/v1/endpointslices', 'discovery.k8s.io/v1', 'EndpointSlice'],
];

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

function get(base: string, path: string, accept: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(path, base), { headers: { accept } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A watch's events until `count` have come, in either encoding, then the stream is closed. */
function watchEvents(base: string, path: string, accept: string, count: number): Promise<{ contentType: string; events: { type: string; object: Obj }[] }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, base), { headers: { accept } }, (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      const events: { type: string; object: Obj }[] = [];
      const frames = new WatchFrameDecoder();
      let text = '';
      const done = () => {
        if (events.length < count) return;
        req.destroy();
        resolve({ contentType, events });
      };
      res.on('data', (c: Buffer) => {
        if (isProtobuf(contentType)) {
          const r = frames.push(c);
          if (!r.ok) return reject(r.error);
          events.push(...r.events.map((e: ProtobufWatchEvent) => ({ type: e.type, object: e.object })));
        } else {
          text += c.toString('utf8');
          const lines = text.split('\n');
          text = lines.pop()!;
          for (const l of lines) if (l.trim()) events.push(JSON.parse(l) as { type: string; object: Obj });
        }
        done();
      });
      res.on('end', () => resolve({ contentType, events })); // the server ended it early: the caller's count tells
      res.on('error', () => {});
    });
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
  });
}

function decoded(a: Answer): Obj {
  assert.equal(a.status, 200, a.body.toString('utf8').slice(0, 300));
  assert.ok(isProtobuf(a.contentType), `protobuf answer, got ${a.contentType}`);
  const d = decodeProtobuf(a.body);
  if (!d.ok) assert.fail(d.error.message);
  return d.value;
}

/**
 * The JSON answer narrowed to the walker's field set: what the protobuf answer must decode to.
 * The demo writes its JSON by hand, where kube-apiserver's went through Go structs and protobuf
 * storage: first made as Go's would be (goJson), or the two forms would differ where the demo's
 * JSON differs from kube-apiserver's, not where the protobuf does.
 */
function expected(o: Obj, items = true): Obj {
  const plan = planFor(o.apiVersion as string, o.kind as string);
  assert.ok(plan, `a field set for ${String(o.apiVersion)}/${String(o.kind)}`);
  const out: Obj = { kind: o.kind, apiVersion: o.apiVersion, ...goJson(project(o, plan) as Obj, plan) };
  if (items && String(o.kind).endsWith('List') && !Array.isArray(out.items)) out.items = [];
  return out;
}

/**
 * A JSON object as kube-apiserver would write it after its protobuf storage: a field without
 * omitempty that the demo left out has Go's zero value; an empty list in one (a nil slice after
 * the round trip) is null. Recursive over the plan's messages.
 */
function goJson(o: Obj, plan: MessagePlan): Obj {
  fillZeros(plan, o);
  const fields = (p: MessagePlan): MessagePlan['fields'] => p.fields.flatMap((f) => (f.flags & F_INLINE ? fields(f.sub!) : [f]));
  for (const f of fields(plan)) {
    const v = o[f.name];
    if (f.flags & F_REPEATED && !(f.flags & F_OMITEMPTY) && Array.isArray(v) && v.length === 0) o[f.name] = null;
    if (f.kind !== K_MESSAGE || v === null || v === undefined) continue;
    if (f.flags & F_REPEATED) for (const x of v as Obj[]) goJson(x, f.sub!);
    else goJson(v as Obj, f.sub!);
  }
  return o;
}

function json(a: Answer): Obj {
  assert.equal(a.status, 200, a.body.toString('utf8').slice(0, 300));
  assert.match(a.contentType, /^application\/json/);
  return JSON.parse(a.body.toString('utf8')) as Obj;
}

describe('demo cluster: protobuf answers, read by the walker', () => {
  let c: DemoCluster;
  before(async () => {
    c = await startDemoCluster({ objects: 300, crds: [{ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }] });
    c.store.create(
      'example.com',
      'widgets',
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default', labels: { a: 'b' } }, spec: { size: 3 } },
      { manager: 'test' },
    );
  });
  after(() => c.stop());

  for (const [path, apiVersion, kind] of KINDS) {
    it(`${apiVersion}/${kind}: list, get and watch in protobuf equal the JSON answers narrowed to the field set`, async () => {
      const rv = (json(await get(c.url, `${path}?limit=1`, 'application/json')).metadata as Obj).resourceVersion as string;
      const at = `resourceVersion=${rv}&resourceVersionMatch=Exact`;
      const j = json(await get(c.url, `${path}?${at}`, 'application/json'));
      const p = decoded(await get(c.url, `${path}?${at}`, PROTOBUF_ACCEPT));
      assert.ok((j.items as unknown[]).length > 0, `the demo has ${kind} objects`);
      assert.deepStrictEqual(p, expected(j));
      assert.equal(p.kind, `${kind}List`);

      const first = (j.items as Obj[])[0]!;
      const meta = first.metadata as { name: string; namespace?: string };
      const one = meta.namespace ? path.replace(/\/([^/]+)$/, `/namespaces/${meta.namespace}/$1/${meta.name}`) : `${path}/${meta.name}`;
      assert.deepStrictEqual(decoded(await get(c.url, one, PROTOBUF_ACCEPT)), expected(json(await get(c.url, one, 'application/json'))));

      const n = (j.items as unknown[]).length;
      const w = `${path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
      const [jw, pw] = await Promise.all([watchEvents(c.url, w, 'application/json', n + 1), watchEvents(c.url, w, PROTOBUF_ACCEPT, n + 1)]);
      assert.equal(pw.contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
      // A bookmark is the kind with only metadata set: protobuf carries its other fields' zero values.
      const same = (e: { type: string; object: Obj }) => (e.type === 'BOOKMARK' ? { type: e.type, metadata: e.object.metadata } : e);
      assert.deepStrictEqual(
        pw.events.map(same),
        jw.events.map((e) => same({ type: e.type, object: expected(e.object) })),
      );
      assert.equal(pw.events[n]!.type, 'BOOKMARK');
    });
  }

  it('PartialObjectMetadataList and PartialObjectMetadata in protobuf, for a built-in kind and a custom resource', async () => {
    for (const path of ['/api/v1/pods', '/apis/example.com/v1/widgets']) {
      const jsonAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
      const rv = (json(await get(c.url, `${path}?limit=1`, 'application/json')).metadata as Obj).resourceVersion as string;
      const at = `resourceVersion=${rv}&resourceVersionMatch=Exact`;
      const j = json(await get(c.url, `${path}?${at}`, jsonAccept));
      const p = decoded(await get(c.url, `${path}?${at}`, PROTOBUF_METADATA_LIST_ACCEPT));
      assert.equal(p.kind, 'PartialObjectMetadataList');
      assert.ok((p.items as unknown[]).length > 0);
      // the JSON items carry kind and apiVersion; a protobuf list's items never do
      const items = (j.items as Obj[])
        .map((o) => ({ ...expected(o), kind: undefined, apiVersion: undefined }))
        .map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
      assert.deepStrictEqual(p, { ...expected(j, false), items });
      const w = `${path}?watch=1`;
      const n = (j.items as unknown[]).length;
      const pw = await watchEvents(c.url, w, PROTOBUF_METADATA_ACCEPT, n);
      assert.ok(pw.events.every((e) => e.object.kind === 'PartialObjectMetadata' && e.type === 'ADDED'));
      assert.deepStrictEqual(pw.events.map((e) => (e.object.metadata as Obj).name).sort(), (j.items as Obj[]).map((o) => (o.metadata as Obj).name).sort());
    }
  });

  it("a custom resource's full objects: JSON when JSON is acceptable too, 406 when only protobuf is", async () => {
    const path = '/apis/example.com/v1/widgets';
    const a = await get(c.url, path, PROTOBUF_ACCEPT);
    assert.equal(a.status, 200);
    assert.match(a.contentType, /^application\/json/);
    assert.equal((JSON.parse(a.body.toString('utf8')) as Obj).kind, 'WidgetList');
    const refused = await get(c.url, path, 'application/vnd.kubernetes.protobuf');
    assert.equal(refused.status, 406);
    assert.equal((JSON.parse(refused.body.toString('utf8')) as Obj).reason, 'NotAcceptable');
  });

  it('a watch from a compacted resourceVersion ends with a protobuf ERROR event carrying the 410 Status', async () => {
    const small = await startDemoCluster({ objects: 0, historySize: 2 });
    try {
      for (let i = 0; i < 5; i++)
        small.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c-${i}`, namespace: 'default' } }, { manager: 'test' });
      const pw = await watchEvents(small.url, '/api/v1/configmaps?watch=1&resourceVersion=1', PROTOBUF_ACCEPT, 1);
      assert.equal(pw.events[0]!.type, 'ERROR');
      assert.equal(pw.events[0]!.object.kind, 'Status');
      assert.equal(pw.events[0]!.object.code, 410);
      assert.equal(pw.events[0]!.object.reason, 'Expired');
    } finally {
      await small.stop();
    }
  });
});

describe('demo cluster: big answers share the event loop', () => {
  let c: DemoCluster;
  before(async () => {
    c = await startDemoCluster({ objects: 3200, kubelet: false, bigNamespace: { name: 'big', pods: 3000 } });
  });
  after(() => c.stop());

  it('encodes a big first list a slice at a time, other work running between slices', async () => {
    const items = c.store.list('', 'pods', undefined).items;
    assert.ok(items.length >= 3000);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await warmMessages('v1', 'Pod', items);
    counting = false;
    // thousands of pods take far more than one slice (10 ms) to encode, on any machine
    assert.ok(turns > 1, `the loop turned ${turns} times while 3000 pods were encoded`);
    const a = await get(c.url, '/api/v1/namespaces/big/pods', PROTOBUF_ACCEPT);
    assert.equal((decoded(a).items as unknown[]).length, 3000);
  });

  it("a watch-list's initial events are written as the client reads them: over 16 MiB of them are not cut", async () => {
    const path = '/api/v1/namespaces/big/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
    const bytes = c.store.list('', 'pods', 'big').items.reduce((n, o) => n + JSON.stringify(o).length, 0);
    assert.ok(bytes > 16 * 1024 * 1024, `the initial events are ${bytes} bytes`);
    for (const accept of ['application/json', PROTOBUF_ACCEPT]) {
      const w = await watchEvents(c.url, path, accept, 3001);
      assert.equal(w.events.filter((e) => e.type === 'ADDED').length, 3000, accept);
      assert.equal(w.events[3000]!.type, 'BOOKMARK');
    }
  });
});
