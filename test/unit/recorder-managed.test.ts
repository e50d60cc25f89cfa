// What a recording keeps for the writers model and for Relations: managedFields in their recorded
// form (manager, operation, time, subresource, field sets cut at three levels; never fieldsV1
// whole), every Event whole whatever it is about, and a recording of the format before (3, made
// by the recorder of commit 0cb1fd6) still opens.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recorder } from '../../src/core/recorder/recorder';
import { RecordingWriter } from '../../src/core/recorder/writer';
import { Recording } from '../../src/core/recorder/reader';
import { compactManagedFields } from '../../src/core/kube/objects/managers';
import { replayRecording } from '../../src/core/recorder/replay';
import { FORMAT_VERSION, type Obj } from '../../src/core/recorder/records';

const never = new AbortController().signal;
const CONFIGMAPS = { group: '', resource: 'configmaps' };
const EVENTS = { group: '', resource: 'events' };

const kubeletStatus = {
  manager: 'kubelet',
  operation: 'Update',
  apiVersion: 'v1',
  time: '2026-01-02T03:04:05Z',
  fieldsType: 'FieldsV1',
  subresource: 'status',
  fieldsV1: {
    'f:status': {
      'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:lastTransitionTime': {} } },
      'f:containerStatuses': {},
      'f:phase': {},
    },
  },
};

async function record(fn: (rec: Recorder, advance: (ms: number) => void) => void): Promise<{ path: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'klr-mf-'));
  const path = join(dir, 'r.klr');
  let now = 1_700_000_000_000;
  let rec: Recorder | undefined;
  const w = new RecordingWriter({ path, now: () => now, snapshot: Recorder.snapshotOf(() => rec) });
  await w.open(never);
  rec = new Recorder(w, { now: () => now });
  fn(rec, (ms) => (now += ms));
  await w.close(never);
  return { path, dir };
}

describe('recorded managedFields and Events', () => {
  it("keeps each entry's manager, operation, time and subresource, and its field set cut at three levels", () => {
    assert.deepEqual(compactManagedFields([kubeletStatus, { operation: 'Apply' }]), [
      {
        manager: 'kubelet',
        operation: 'Update',
        time: '2026-01-02T03:04:05Z',
        subresource: 'status',
        fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': {} }, 'f:containerStatuses': {}, 'f:phase': {} } },
      },
    ]);
    assert.equal(compactManagedFields([]), undefined);
    assert.equal(compactManagedFields(undefined), undefined);
  });

  it("writes every version's managers (format 4), so who wrote each change reads back", async () => {
    const fight = (manager: string, value: string, time: string): Obj => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'contested',
        namespace: 'w',
        annotations: { 'demo.kubeloop.dev/owner': value },
        managedFields: [
          {
            manager,
            operation: 'Update',
            apiVersion: 'v1',
            time,
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:demo.kubeloop.dev/owner': {} } } },
          },
        ],
      },
    });
    const { path, dir } = await record((rec, advance) => {
      rec.apply('configmaps', CONFIGMAPS, 'ADDED', fight('a', 'a', '2026-01-02T03:04:05Z'));
      advance(1000);
      rec.apply('configmaps', CONFIGMAPS, 'MODIFIED', fight('b', 'b', '2026-01-02T03:04:06Z'));
    });
    const r = await Recording.open(path, never);
    try {
      assert.equal(r.header.version, FORMAT_VERSION);
      assert.equal(FORMAT_VERSION, 4);
      const h = await r.historyOf('configmaps/w/contested', never);
      const managers = h.map((c) =>
        ((c.after!.metadata as Obj).managedFields as { manager: string; time: string; fieldsV1: Obj }[]).map((e) => [e.manager, e.time]),
      );
      assert.deepEqual(managers, [[['a', '2026-01-02T03:04:05Z']], [['b', '2026-01-02T03:04:06Z']]]);
      const e = ((h[1]!.after!.metadata as Obj).managedFields as Obj[])[0]!;
      assert.deepEqual(e.fieldsV1, { 'f:metadata': { 'f:annotations': { 'f:demo.kubeloop.dev/owner': {} } } });
      assert.equal('fieldsType' in e || 'apiVersion' in e, false);
    } finally {
      r.close();
      rmSync(dir, { recursive: true });
    }
  });

  it('a replay puts objects without the recorded managedFields (the store writes its own)', async () => {
    const cm = (v: string): Obj => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'w', managedFields: [{ manager: 'm', operation: 'Update', time: '2026-01-02T03:04:05Z', fieldsV1: { 'f:data': {} } }] },
      data: { v },
    });
    const { path, dir } = await record((rec, advance) => {
      rec.replace('configmaps', CONFIGMAPS, [cm('1')]);
      advance(10);
      rec.apply('configmaps', CONFIGMAPS, 'MODIFIED', cm('2'));
    });
    const r = await Recording.open(path, never);
    const put: Obj[] = [];
    try {
      const replay = replayRecording(r, { put: (_g, _r, _ns, o) => put.push(o), remove: () => undefined }, never, { speed: 1e6 });
      await replay.done;
    } finally {
      r.close();
      rmSync(dir, { recursive: true });
    }
    assert.ok(put.length >= 2, `${put.length} objects put`);
    assert.equal((put.at(-1)!.data as { v: string }).v, '2');
    for (const o of put) assert.equal('managedFields' in (o.metadata as Obj), false, JSON.stringify(o));
  });

  it('keeps an Event about a Deployment or a custom resource whole', async () => {
    const ev = (name: string, kind: string, apiVersion: string): Obj => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'shop', uid: `u-${name}` },
      involvedObject: { kind, apiVersion, name: 'cart', namespace: 'shop', uid: `u-${kind}` },
      reason: 'Degraded',
      message: `${kind} cart is degraded`,
      type: 'Warning',
      count: 3,
      source: { component: 'shop-operator' },
      lastTimestamp: '2026-01-02T03:04:05Z',
    });
    const dep = ev('cart.1', 'Deployment', 'apps/v1');
    const cr = ev('cart.2', 'Cart', 'shop.example.com/v1');
    const { path, dir } = await record((rec) => rec.replace('events', EVENTS, [dep, cr]));
    const r = await Recording.open(path, never);
    try {
      const at = await r.objectsAt(Infinity, never);
      assert.deepEqual(at.get('events/shop/cart.1'), dep);
      assert.deepEqual(at.get('events/shop/cart.2'), cr);
    } finally {
      r.close();
      rmSync(dir, { recursive: true });
    }
  });

  it('opens a recording of format 3 (made by the recorder before managedFields were kept)', async () => {
    const r = await Recording.open(join(__dirname, '../fixtures/recordings/v3.klr'), never);
    try {
      assert.equal(r.header.version, 3);
      const at = await r.objectsAt(Infinity, never);
      assert.deepEqual(at.get('deployments.apps/old/api')!.spec, { replicas: 2 });
      assert.equal((at.get('events/old/api.1') as { reason?: string }).reason, 'ScalingReplicaSet');
      assert.equal((at.get('replicasets.apps/old/api-1')!.metadata as { ownerReferences: unknown[] }).ownerReferences.length, 1);
    } finally {
      r.close();
    }
  });
});
