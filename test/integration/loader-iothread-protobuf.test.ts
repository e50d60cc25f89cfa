/**
 * The loader's full-object lists are walked by the I/O thread, and since issue 41 they ask for
 * protobuf there as on the calling thread: on the demo cluster, which answers protobuf as
 * kube-apiserver does, the loader's rows of every built-in kind with a field set are the rows the
 * same load gives from JSON pages (protobuf: false), every page walked by the thread either way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterLoader, type LoadTaskResult } from '../../src/core/loader';
import type { KubeClient, KubeObject } from '../../src/core/kube';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { computeObjectView } from '../../src/core/rows/objectView';
import { demo, type Fixture } from './loader-helpers';

/** The built-in types whose kinds have a field set (protobuf/ask.ts), as the loader's include names them. */
const TYPES: [include: string, kind: string][] = [
  ['pods', 'Pod'],
  ['events', 'Event'],
  ['nodes', 'Node'],
  ['namespaces', 'Namespace'],
  ['services', 'Service'],
  ['persistentvolumes', 'PersistentVolume'],
  ['persistentvolumeclaims', 'PersistentVolumeClaim'],
  ['replicationcontrollers', 'ReplicationController'],
  ['deployments.apps', 'Deployment'],
  ['replicasets.apps', 'ReplicaSet'],
  ['statefulsets.apps', 'StatefulSet'],
  ['daemonsets.apps', 'DaemonSet'],
  ['jobs.batch', 'Job'],
  ['cronjobs.batch', 'CronJob'],
  ['endpointslices.discovery.k8s.io', 'EndpointSlice'],
];
const PAGE = 25;

const typeOf = (r: LoadTaskResult) => (r.task.gvr.group ? `${r.task.gvr.resource}.${r.task.gvr.group}` : r.task.gvr.resource);
const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

async function load(client: KubeClient) {
  const before = client.transport.stats.streamedPages;
  const { summary, results } = await new ClusterLoader(client, { include: TYPES.map(([t]) => t), pageSize: PAGE, concurrency: 4 }).load();
  assert.equal(summary.outcome, 'ok');
  const byType = new Map<string, { rows: Map<string, unknown>; bytes: number; pages: number }>();
  for (const r of results) {
    const kind = TYPES.find(([t]) => t === typeOf(r))![1];
    const rows = new Map<string, unknown>();
    for (const o of r.items)
      rows.set(keyOf(o), computeObjectView(keyOf(o), { ...o, kind } as StoredObject, { group: r.task.gvr.group, resource: r.task.gvr.resource }));
    byType.set(typeOf(r), { rows, bytes: r.bytes, pages: r.pages });
  }
  const pages = results.reduce((n, r) => n + r.pages, 0);
  return { byType, results, pages, streamed: client.transport.stats.streamedPages - before };
}

describe('the loader on the I/O thread: protobuf pages give the rows JSON pages give', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(1500);
  });
  after(async () => {
    await fx.stop();
  });

  it('every built-in kind with a field set: the same rows; every page walked by the thread; protobuf pages smaller', async () => {
    const pb = await load(await fx.client());
    const js = await load(await fx.client({ protobuf: false }));
    assert.deepEqual([...pb.byType.keys()].sort(), TYPES.map(([t]) => t).sort(), 'every type loaded');
    assert.equal(pb.streamed, pb.pages, 'the I/O thread walked every protobuf page');
    assert.equal(js.streamed, js.pages, 'and every JSON page');
    for (const [type] of TYPES) {
      const p = pb.byType.get(type)!;
      const j = js.byType.get(type)!;
      assert.ok(p.rows.size > 0, `${type}: objects loaded`);
      assert.deepStrictEqual(p.rows, j.rows, `${type}: rows`);
      assert.equal(p.pages, j.pages, `${type}: pages`);
      assert.ok(p.bytes < j.bytes, `${type}: protobuf pages smaller (${p.bytes} vs ${j.bytes} bytes)`);
    }
    // Decoded by the walker: each pod narrowed to its field set.
    const spec = (o: KubeObject) => (o as unknown as { spec: Record<string, unknown> }).spec;
    const pods = (x: typeof pb) => x.results.find((r) => typeOf(r) === 'pods')!.items;
    assert.ok(pods(js).some((o) => spec(o).dnsPolicy !== undefined));
    assert.ok(pods(pb).every((o) => spec(o).dnsPolicy === undefined && spec(o).containers !== undefined));
  });
});
