/**
 * The protobuf walker against real bytes: test/fixtures/protobuf holds objects of k8s.io/api encoded
 * by apimachinery's own protobuf serializer and framer and by encoding/json, as kube-apiserver
 * encodes them (scripts/protobuf-fixtures; regenerate with the command in
 * scripts/build-protobuf-fixtures.sh). What the walker yields of the protobuf must equal JSON.parse
 * of the JSON narrowed to the kind's field set, field for field and value for value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  decodeProtobuf,
  isProtobuf,
  MAX_FRAME_BYTES,
  PROTOBUF_MAGIC,
  ProtobufError,
  WatchFrameDecoder,
  type ProtobufWatchEvent,
} from '../../src/core/kube/protobuf';
import { hasFieldSet, planFor } from '../../src/core/kube/protobuf/decode';
import { compile, project } from '../../src/core/kube/protobuf/plan';
import { cachedStrings, Reader, utf8 } from '../../src/core/kube/protobuf/reader';
import { readMessage } from '../../src/core/kube/protobuf/walk';

setFlagsFromString('--expose-gc');

const DIR = path.join(__dirname, '../fixtures/protobuf');
const pb = (name: string) => new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.pb`)));
const json = (name: string) => JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;

/** The JSON form narrowed to the field set the walker reads for its kind: the walker's expected output. */
function expected(o: Record<string, unknown>): Record<string, unknown> {
  const plan = planFor(o.apiVersion as string, o.kind as string);
  assert.ok(plan, `a field set for ${String(o.apiVersion)}/${String(o.kind)}`);
  return { kind: o.kind, apiVersion: o.apiVersion, ...(project(o, plan) as object) };
}

function decoded(body: Uint8Array): Record<string, unknown> {
  const d = decodeProtobuf(body);
  if (!d.ok) assert.fail(d.error.message);
  return d.value;
}

const FIXTURES = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.pb') && f !== 'watch.pb')
  .map((f) => f.slice(0, -3))
  .sort();

describe('protobuf walker: real apimachinery bytes', () => {
  it('has a fixture for every kind with a field set, and its list', () => {
    const kinds = new Set(FIXTURES.map((n) => `${json(n).apiVersion as string}/${json(n).kind as string}`));
    for (const k of ['v1/PodList', 'v1/EventList', 'v1/NodeList', 'v1/NamespaceList', 'v1/ServiceList', 'v1/ConfigMapList', 'v1/SecretList'])
      assert.ok(kinds.has(k), k);
    for (const k of [
      'v1/PersistentVolumeList',
      'v1/PersistentVolumeClaimList',
      'v1/ReplicationControllerList',
      'apps/v1/DeploymentList',
      'apps/v1/ReplicaSetList',
    ])
      assert.ok(kinds.has(k), k);
    for (const k of ['apps/v1/StatefulSetList', 'apps/v1/DaemonSetList', 'batch/v1/JobList', 'batch/v1/CronJobList', 'discovery.k8s.io/v1/EndpointSliceList'])
      assert.ok(kinds.has(k), k);
    for (const k of ['meta.k8s.io/v1/PartialObjectMetadataList', 'meta.k8s.io/v1/PartialObjectMetadata', 'v1/Status', 'v1/Pod']) assert.ok(kinds.has(k), k);
    for (const k of [
      'v1/ServiceAccountList',
      'v1/EndpointsList',
      'v1/ResourceQuotaList',
      'rbac.authorization.k8s.io/v1/RoleList',
      'rbac.authorization.k8s.io/v1/RoleBindingList',
      'rbac.authorization.k8s.io/v1/ClusterRoleList',
      'rbac.authorization.k8s.io/v1/ClusterRoleBindingList',
      'coordination.k8s.io/v1/LeaseList',
      'events.k8s.io/v1/EventList',
      'networking.k8s.io/v1/IngressList',
      'networking.k8s.io/v1/NetworkPolicyList',
      'policy/v1/PodDisruptionBudgetList',
      'autoscaling/v2/HorizontalPodAutoscalerList',
      'apps/v1/ControllerRevisionList',
    ])
      assert.ok(kinds.has(k), k);
    for (const k of [
      'v1/LimitRangeList',
      'storage.k8s.io/v1/StorageClassList',
      'storage.k8s.io/v1/CSIDriverList',
      'scheduling.k8s.io/v1/PriorityClassList',
      'node.k8s.io/v1/RuntimeClassList',
      'networking.k8s.io/v1/IngressClassList',
      'admissionregistration.k8s.io/v1/ValidatingWebhookConfigurationList',
      'admissionregistration.k8s.io/v1/MutatingWebhookConfigurationList',
    ])
      assert.ok(kinds.has(k), k);
  });

  for (const name of FIXTURES) {
    it(`${name}: equals JSON.parse of the same object, narrowed to the field set`, () => {
      assert.deepStrictEqual(decoded(pb(name)), expected(json(name)));
    });
  }

  it('keeps what the tree and the loop read of a pod, and not managedFields', () => {
    const pod = decoded(pb('pod')) as {
      metadata: Record<string, unknown>;
      spec: Record<string, unknown>;
      status: { containerStatuses: { state: unknown; lastState: unknown; restartCount: number }[] };
    };
    assert.equal(pod.metadata.managedFields, undefined);
    assert.equal(pod.metadata.name, 'web-5d8f9c7b6-00007');
    assert.deepEqual(pod.metadata.labels, { app: 'web', 'pod-template-hash': '5d8f9c7b6' });
    assert.equal(pod.metadata.creationTimestamp, '2026-03-14T15:09:26Z');
    assert.equal(pod.spec.volumes, undefined, 'volumes are skipped');
    assert.deepEqual(pod.status.containerStatuses[0]!.state, { running: { startedAt: '2026-03-14T15:09:30Z' } });
    assert.equal((pod.status.containerStatuses[0]!.lastState as { terminated: { exitCode: number } }).terminated.exitCode, 137);
    assert.equal(pod.status.containerStatuses[0]!.restartCount, 1);
  });

  it("a Secret's values and a ConfigMap's data are skipped by length: in no decoded object, not in the string cache", () => {
    const body = pb('secretlist');
    // The fixture carries them (data as bytes, stringData as text), so the searches below can find them.
    const planted = ['planted-secret-value-0451', 'planted-string-data-0452'];
    const text = Buffer.from(body).toString('latin1');
    for (const v of planted) assert.ok(text.includes(v), `the fixture holds ${v}`);
    const forms = [...planted, ...planted.map((v) => Buffer.from(v).toString('base64')), 'tls.key', 'password'];
    const found = (what: string) => forms.filter((v) => what.includes(v));
    const secret = decoded(body);
    assert.deepEqual(found(JSON.stringify(secret)), [], 'the decoded list');
    assert.deepEqual(found(cachedStrings().join('\n')), [], "the walker's string cache");
    assert.deepEqual(
      (secret.items as { type: string; data?: unknown }[]).map((s) => [s.type, s.data]),
      [['kubernetes.io/tls', undefined]],
    );
    const cm = decoded(pb('configmaplist')) as { items: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(cm.items[0]!).sort(), ['immutable', 'metadata']);
    // The same bytes read whole do reach both: the searches can fail.
    const whole = decodeWithPlan(body, compile('core.v1.SecretList', { items: { stringData: true } }));
    assert.equal(whole, 'read');
    assert.deepEqual(found(cachedStrings().join('\n')), ['planted-string-data-0452', 'password']);
  });

  it('reads values as JSON.parse does: a key "__proto__" is a key, int64 above 2^53 rounds alike, negatives, MicroTime, zero Time', () => {
    const pod = decoded(pb('pod-edge')) as {
      metadata: { labels: Record<string, string>; generation: number; deletionGracePeriodSeconds: number };
      spec: { activeDeadlineSeconds: number };
      status: { initContainerStatuses: { restartCount: number; state: { terminated: { exitCode: number } } }[]; conditions: { lastProbeTime: unknown }[] };
    };
    assert.ok(Object.prototype.hasOwnProperty.call(pod.metadata.labels, '__proto__'));
    assert.equal(Object.getPrototypeOf(pod.metadata.labels), Object.prototype);
    assert.equal(pod.metadata.generation, JSON.parse('9007199254740993'));
    assert.equal(pod.metadata.deletionGracePeriodSeconds, 0, 'a set pointer to zero is written');
    assert.equal(pod.spec.activeDeadlineSeconds, -5);
    assert.equal(pod.status.initContainerStatuses[0]!.state.terminated.exitCode, -1);
    assert.equal(pod.status.initContainerStatuses[0]!.restartCount, 2147483647);
    assert.equal(pod.status.conditions[1]!.lastProbeTime, null);
    const events = decoded(pb('eventlist')) as { items: { eventTime: unknown; series?: { lastObservedTime: string } }[] };
    assert.equal(events.items[0]!.eventTime, null);
    assert.equal(events.items[1]!.eventTime, '2026-03-14T15:10:00.123456Z');
    assert.equal(events.items[1]!.series!.lastObservedTime, '2026-03-14T15:11:00.000005Z');
  });

  it('never reads managedFields: garbage inside them does not matter, while a plan that keeps them sees it', () => {
    const body = pb('pod');
    const marker = Buffer.from('{"f:status":{"f:conditions":{".":{},"k:{');
    const at = Buffer.from(body).indexOf(marker);
    assert.ok(at > 0, 'the fixture holds managedFields');
    const broken = body.slice();
    broken.fill(0x7b, at, at + marker.length); // "{{{{...": not JSON any more
    assert.deepStrictEqual(decoded(broken), decoded(body));
    // The same bytes through a plan that keeps managedFields fail: the garbage is where we think.
    const reread = decodeWithPlan(broken, compile('core.v1.Pod', { metadata: true }));
    assert.match(reread, /FieldsV1 .* does not hold JSON/);
  });

  it('a kind without a field set, a body without the magic, an empty one: error values that say which', () => {
    const cases: [Uint8Array, RegExp][] = [
      [Uint8Array.from(Buffer.from('{"kind":"PodList"}')), /not a Kubernetes protobuf body/],
      [PROTOBUF_MAGIC, /empty body/],
      [envelope('storage.k8s.io/v1', 'CSINodeList'), /no protobuf field set for storage.k8s.io\/v1\/CSINodeList: ask for it in JSON/],
      [Uint8Array.from([...PROTOBUF_MAGIC, 0x12, 0x05, 0x01]), /truncated/],
    ];
    // A Pod whose metadata (field 1, a message) comes as a varint: named, not misread.
    const wrongWire = envelope('v1', 'Pod', [0x08, 0x01]);
    cases.push([wrongWire, /core\.v1\.Pod\.metadata \(field 1\): wire type 0, expected 2/]);
    assert.equal(hasFieldSet('storage.k8s.io/v1', 'CSINodeList'), false);
    assert.equal(hasFieldSet('v1', 'PodList'), true);
    for (const [body, message] of cases) {
      const d = decodeProtobuf(body);
      assert.equal(d.ok, false);
      if (!d.ok) {
        assert.ok(d.error instanceof ProtobufError);
        assert.match(d.error.message, message);
      }
    }
  });

  it('a body names its own kind: typeMeta bytes changed in place after a decode read as the new kind', () => {
    // decode.ts keeps the last typeMeta's bytes to skip decoding the same names again: a copy, not
    // a view of the body (a Buffer's slice is a view), or the change below would go unseen.
    const body = Buffer.from(pb('pod'));
    assert.equal(decoded(body).kind, 'Pod');
    const at = body.indexOf('Pod', 4, 'latin1');
    body.write('Pox', at, 'latin1');
    const d = decodeProtobuf(body);
    assert.equal(d.ok, false);
    if (!d.ok) assert.match(d.error.message, /no protobuf field set for v1\/Pox/);
    body.write('Pod', at, 'latin1');
    assert.deepStrictEqual(decoded(body), expected(json('pod')));
    assert.deepStrictEqual(decoded(pb('status')), expected(json('status')));
    assert.deepStrictEqual(decoded(body), expected(json('pod')));
  });

  it('a body cut anywhere inside its object is an error value, never a throw or a half object', () => {
    for (const name of ['pod', 'podlist', 'eventlist', 'partialobjectmetadatalist']) {
      const body = pb(name);
      const [rawStart, rawEnd] = rawRange(body);
      const rawTag = rawStart - varintLength(rawEnd - rawStart) - 1;
      for (let n = 0; n < body.length; n++) {
        const d = decodeProtobuf(body.subarray(0, n));
        if (!d.ok) assert.ok(d.error instanceof ProtobufError);
        // The envelope states the object's length: any cut from its tag to its last byte is caught.
        // (A cut between the envelope's own fields is valid protobuf of a shorter envelope.)
        if (n > rawTag && n < rawEnd) assert.equal(d.ok, false, `${name} cut at ${n} decoded`);
      }
    }
  });

  it('any single corrupted byte is a value or an error, never a throw or a hang', () => {
    const body = pb('pod-edge');
    for (let i = 4; i < body.length; i++) {
      for (const v of [0x00, 0x07, 0x80, 0xff]) {
        const b = body.slice();
        b[i] = v;
        const d = decodeProtobuf(b);
        assert.ok(d.ok || d.error instanceof ProtobufError);
      }
    }
  });

  it('keeps no body alive once its decode returns', async () => {
    const gc = runInNewContext('gc') as () => void; // --expose-gc, set below at load
    let body: Uint8Array | undefined = pb('podlist');
    const ref = new WeakRef(body);
    assert.ok(decodeProtobuf(body).ok);
    body = undefined;
    await new Promise((r) => setImmediate(r)); // a WeakRef's target is kept to the end of the job
    gc();
    assert.equal(ref.deref(), undefined);
  });

  it('isProtobuf reads the media type, not its parameters', () => {
    assert.equal(isProtobuf('application/vnd.kubernetes.protobuf'), true);
    assert.equal(isProtobuf('application/vnd.kubernetes.protobuf;stream=watch'), true);
    assert.equal(isProtobuf(['Application/Vnd.Kubernetes.Protobuf ; as=PartialObjectMetadataList']), true);
    assert.equal(isProtobuf('application/json'), false);
    assert.equal(isProtobuf(undefined), false);
  });
});

describe('utf8: the walker strings', () => {
  // utf8 keeps recent short ASCII strings by a hash of their bytes: whatever shares a slot, and
  // whatever the buffer held before, each read is the text of its own bytes.
  it('reads the text of its own bytes among thousands that share cache slots, repeated, in Buffers and plain arrays', () => {
    // 10,000 strings of one length, read twice over: more than there are slots, so many share one.
    const same = Array.from({ length: 10_000 }, (_, i) => `web-5d8f9c7b6-${String(i).padStart(5, '0')}`);
    const text = fc.oneof(
      fc.stringMatching(/^[a-z0-9./-]{0,48}$/),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom(...same.slice(0, 50), 'True', 'False', 'Running', 'IfNotPresent'),
    );
    const check = (texts: string[], plain: boolean) => {
      const bytes = Buffer.from(texts.join(''));
      const b = plain ? new Uint8Array(bytes) : bytes;
      let at = 0;
      for (const t of texts) {
        const n = Buffer.byteLength(t);
        assert.equal(utf8(b, at, at + n), t);
        at += n;
      }
    };
    check([...same, ...same], false);
    check([...same].reverse(), true);
    fc.assert(fc.property(fc.array(text, { minLength: 500, maxLength: 3000 }), fc.boolean(), check), { numRuns: 40 });
  });

  it('strings of one length that differ only in bytes the slot is not chosen by read as their own text', () => {
    // The slot comes from eight of a string's bytes: these 20-byte strings share all eight and one slot.
    const texts = ['abc', 'abd', 'xbc', 'abc'].map((m) => `ab${m}ab-0123456789xyz`);
    for (const t of [...texts, ...texts]) assert.equal(utf8(Buffer.from(t), 0, t.length), t);
  });

  it("invalid UTF-8 in a short string reads as U+FFFD, as Go's JSON encoder writes it; the same bytes made valid read right", () => {
    const b = Buffer.from([0x61, 0xff, 0x62, 0x61, 0x62, 0x63]);
    assert.equal(utf8(b, 0, 3), 'a\ufffdb');
    assert.equal(utf8(new Uint8Array(b), 0, 3), 'a\ufffdb');
    b[1] = 0x62;
    assert.equal(utf8(b, 0, 3), 'abb');
    assert.equal(utf8(b, 3, 6), 'abc');
    // Longer: one char per byte with an invalid one among them (U+FFFD), then the bytes made valid.
    const long = Buffer.from('web-5d8f9c7b6-x2x4k', 'latin1');
    long[7] = 0xff;
    assert.equal(utf8(long, 0, long.length), 'web-5d8\ufffd9c7b6-x2x4k');
    long[7] = 0x66;
    assert.equal(utf8(long, 0, long.length), 'web-5d8f9c7b6-x2x4k');
    assert.equal(utf8(long, 0, long.length), 'web-5d8f9c7b6-x2x4k');
  });
});

describe('protobuf watch frames: real framed stream', () => {
  const stream = pb('watch');
  const want = (json('watch') as unknown as { type: string; object: Record<string, unknown> }[]).map((e) => ({ type: e.type, object: expected(e.object) }));

  function feed(chunks: Uint8Array[], d = new WatchFrameDecoder()): ProtobufWatchEvent[] {
    const out: ProtobufWatchEvent[] = [];
    for (const c of chunks) {
      const r = d.push(c);
      if (!r.ok) assert.fail(r.error.message);
      out.push(...r.events);
    }
    assert.equal(d.end(), undefined);
    return out;
  }

  it('yields every event in order, equal to its JSON, in one chunk', () => {
    assert.deepStrictEqual(feed([stream]), want);
    assert.deepEqual(
      want.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'],
    );
  });

  it('yields the same events whatever the chunking: split at every byte, and byte by byte', () => {
    const whole = JSON.stringify(feed([stream]));
    for (let cut = 1; cut < stream.length; cut++) {
      assert.equal(JSON.stringify(feed([stream.subarray(0, cut), stream.subarray(cut)])), whole, `split at ${cut}`);
    }
    assert.equal(JSON.stringify(feed(Array.from(stream, (_, i) => stream.subarray(i, i + 1)))), whole);
  });

  it('events read in place from a chunk hold none of its bytes: the chunk overwritten after push changes nothing', () => {
    const chunk = Buffer.from(stream);
    const events = feed([chunk.subarray(0, 700), chunk.subarray(700)]); // the first frame spans both
    chunk.fill(0);
    assert.deepStrictEqual(events, want);
  });

  it('refuses a frame over the limit as soon as its length is read, and stays failed', () => {
    const d = new WatchFrameDecoder(1000);
    const first = d.push(stream.subarray(0, 4 + 1)); // the first frame is larger than 1000 bytes
    assert.equal(first.ok, false);
    if (!first.ok) assert.match(first.error.message, /watch event frame 1 is \d+ bytes, over the limit of 1000 bytes/);
    const again = d.push(stream.subarray(5));
    assert.equal(again.ok, false);
    assert.ok(d.end() instanceof ProtobufError);
    assert.equal(MAX_FRAME_BYTES, 16 * 1024 * 1024);
  });

  it('end() names a stream that stopped inside a frame', () => {
    const d = new WatchFrameDecoder();
    const r = d.push(stream.subarray(0, 100));
    assert.ok(r.ok);
    assert.match(d.end()?.message ?? '', /watch stream ended inside frame 1: 96 bytes of a frame of \d+ bytes/);
  });

  it('a frame that is not a WatchEvent is an error naming the frame', () => {
    const d = new WatchFrameDecoder();
    const r = d.push(Uint8Array.of(0, 0, 0, 2, 0x0a, 0x00));
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /watch event frame 1 has no type/);
  });
});

function varintLength(n: number): number {
  let k = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    k++;
  }
  return k;
}

/** [start, end) of the envelope's raw object (field 2 after the typeMeta field 1). */
function rawRange(body: Uint8Array): [number, number] {
  const r = new Reader(body, 4);
  assert.equal(r.tag(), 0x0a);
  const typeMeta = r.length();
  r.pos += typeMeta;
  assert.equal(r.tag(), 0x12);
  const n = r.length();
  return [r.pos, r.pos + n];
}

/** A body with an envelope naming apiVersion and kind around `raw` (empty by default). */
function envelope(apiVersion: string, kind: string, raw: number[] = []): Uint8Array {
  const av = Buffer.from(apiVersion);
  const k = Buffer.from(kind);
  const typeMeta = [0x0a, av.length, ...av, 0x12, k.length, ...k];
  return Uint8Array.from([...PROTOBUF_MAGIC, 0x0a, typeMeta.length, ...typeMeta, 0x12, raw.length, ...raw]);
}

function decodeWithPlan(body: Uint8Array, plan: ReturnType<typeof compile>): string {
  const [start, end] = rawRange(body);
  try {
    readMessage(new Reader(body, start, end), end, plan, {});
    return 'read';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
