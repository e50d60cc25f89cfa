/**
 * The walker's managers plans (protobuf/managedFields.ts, what a recording sync loop asks for):
 * managedFields read from apimachinery's protobuf bytes (test/fixtures/protobuf, Go-encoded with
 * the managedFields of kube-controller-manager, kube-scheduler and the kubelet's status entries)
 * equal the compact form (kube/objects/managers.ts) of the same objects' JSON, field for field;
 * everything else the walker yields is what it yields without managers; without managers, no
 * managedFields at all. FieldsV1 sets the fixtures do not have (deep, escaped keys, empty, odd
 * whitespace, a manager left empty) are checked against the JSON side by property.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeProtobuf, MAX_FRAME_BYTES, ProtobufError, WatchFrameDecoder } from '../../src/core/kube/protobuf';
import { FIELDS_DEPTH, readCompactEntry } from '../../src/core/kube/protobuf/managedFields';
import { Reader } from '../../src/core/kube/protobuf/reader';
import { rfc3339 } from '../../src/core/kube/protobuf/walk';
import { compactManagedFields, MANAGERS_FIELD_DEPTH } from '../../src/core/kube/objects/managers';
import { shareUnchanged } from '../../src/core/kube/objects/share';
import { planFor } from '../../src/core/kube/protobuf/decode';
import { compactItem } from '../../src/core/kube/listwatch/list';

type Obj = Record<string, unknown>;

const DIR = path.join(__dirname, '../fixtures/protobuf');
const pb = (name: string) => new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.pb`)));
const json = (name: string) => JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as unknown;

/** The objects of a decoded body or a parsed JSON one: a list's items, else the object itself. */
const objectsOf = (o: Obj): Obj[] => (Array.isArray(o.items) ? (o.items as Obj[]) : [o]);
const managersOf = (o: Obj) => (o.metadata as Obj | undefined)?.managedFields;
const withoutManagers = (o: Obj): Obj => {
  const { managedFields: _m, ...metadata } = (o.metadata ?? {}) as Obj;
  return { ...o, metadata };
};

function decoded(body: Uint8Array, managers: boolean): Obj {
  const d = decodeProtobuf(body, managers);
  if (!d.ok) assert.fail(d.error.message);
  return d.value;
}

/** The fixtures whose JSON has managedFields (lists of every kind, a pod, PartialObjectMetadata). */
const WITH_MANAGERS = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.pb') && f !== 'watch.pb')
  .map((f) => f.slice(0, -3))
  .filter((n) => objectsOf(json(n) as Obj).some((o) => managersOf(o) !== undefined))
  .sort();

describe('protobuf walker: managedFields in their compact form, when asked', () => {
  it('keeps as many levels as the compact form', () => {
    assert.equal(FIELDS_DEPTH, MANAGERS_FIELD_DEPTH);
  });

  it('has fixtures with several managers and status subresource entries', () => {
    assert.ok(WITH_MANAGERS.length >= 15, WITH_MANAGERS.join(', '));
    const pod = managersOf(json('pod') as Obj) as Obj[];
    assert.deepEqual(pod.map((m) => m.manager).sort(), ['kube-controller-manager', 'kube-scheduler', 'kubelet']);
    assert.ok(pod.some((m) => m.subresource === 'status'));
  });

  for (const name of WITH_MANAGERS) {
    it(`${name}: the compact managers from protobuf equal those from JSON; the rest is unchanged`, () => {
      const body = pb(name);
      const want = objectsOf(json(name) as Obj);
      const got = objectsOf(decoded(body, true));
      const plain = objectsOf(decoded(body, false));
      assert.equal(got.length, want.length);
      for (let i = 0; i < want.length; i++) {
        // undefined for an item without managedFields: none then from protobuf either
        const expected = compactManagedFields(managersOf(want[i]!));
        assert.deepEqual(managersOf(got[i]!), expected, `${name}[${i}]`);
        assert.equal(managersOf(plain[i]!), undefined, `${name}[${i}]: no managers unless asked`);
        assert.deepEqual(withoutManagers(got[i]!), plain[i], `${name}[${i}]: the same object otherwise`);
      }
    });
  }

  it('only a managers plan reads managedFields: the plans the loop uses when not recording skip them by length', () => {
    const managedFieldsOf = (managers: boolean, apiVersion: string, kind: string) => {
      const plan = planFor(apiVersion, kind, managers)!;
      const meta = plan.fields.find((f) => f.name === 'metadata')!.sub!;
      return meta.byNumber[17];
    };
    for (const [apiVersion, kind] of [
      ['v1', 'Pod'],
      ['meta.k8s.io/v1', 'PartialObjectMetadata'],
      ['apps/v1', 'Deployment'],
    ] as const) {
      assert.equal(managedFieldsOf(false, apiVersion, kind), undefined, `${apiVersion}/${kind} without managers`);
      assert.equal(managedFieldsOf(true, apiVersion, kind)?.name, 'managedFields', `${apiVersion}/${kind} with managers`);
    }
  });

  it('entries with the same bytes share one set, which shareUnchanged leaves as it is; compactItem does not compact them again', () => {
    const [a, b] = [decoded(pb('pod'), true), decoded(pb('pod'), true)];
    const setsOf = (o: Obj) => (managersOf(o) as Obj[]).map((e) => e.fieldsV1);
    setsOf(a).forEach((set, i) => assert.equal(setsOf(b)[i], set, `entry ${i}: one object for the same bytes`));
    const before = JSON.stringify(a);
    const next = shareUnchanged(a, b);
    assert.equal(JSON.stringify(next), before);
    assert.equal(JSON.stringify(decoded(pb('pod'), true)), before, 'the shared sets were not changed');
    const walked = decoded(pb('pod'), true);
    const entries = managersOf(walked);
    const kept = compactItem(walked, false, 'compact', false, true) as unknown as Obj;
    assert.equal(managersOf(kept), entries, 'compactItem keeps what the walker made compact');
  });

  it('a watch stream: each event keeps its compact managers, whatever the chunking', () => {
    const stream = pb('watch');
    const want = (json('watch') as { type: string; object: Obj }[]).map((e) => compactManagedFields(managersOf(e.object)));
    for (const size of [stream.length, 7, 1]) {
      const d = new WatchFrameDecoder(MAX_FRAME_BYTES, true);
      const got: unknown[] = [];
      for (let at = 0; at < stream.length; at += size) {
        const r = d.push(stream.subarray(at, at + size));
        if (!r.ok) assert.fail(r.error.message);
        for (const e of r.events) got.push(managersOf(e.object));
      }
      assert.equal(d.end(), undefined);
      assert.deepEqual(got, want, `chunks of ${size}`);
    }
    const plain = new WatchFrameDecoder(MAX_FRAME_BYTES).push(stream);
    if (!plain.ok) assert.fail(plain.error.message);
    assert.ok(plain.events.every((e) => managersOf(e.object) === undefined));
  });
});

/** A hand-written protobuf ManagedFieldsEntry, as gogo's Marshal writes one (every string, empty or not). */
function entryBytes(e: { manager: string; operation: string; time?: number; fieldsV1?: string; subresource: string }): Uint8Array {
  const out: number[] = [];
  const varint = (n: number) => {
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
  };
  const bytes = (field: number, b: Uint8Array | number[]) => {
    varint((field << 3) | 2);
    varint(b.length);
    out.push(...b);
  };
  const str = (field: number, s: string) => bytes(field, Buffer.from(s, 'utf8'));
  str(1, e.manager);
  str(2, e.operation);
  str(3, 'v1');
  if (e.time !== undefined) {
    const t: number[] = [];
    if (e.time > 0) {
      t.push(0x08);
      let n = e.time;
      while (n > 0x7f) {
        t.push((n & 0x7f) | 0x80);
        n = Math.floor(n / 128);
      }
      t.push(n);
    }
    bytes(4, t);
  }
  str(6, 'FieldsV1');
  if (e.fieldsV1 !== undefined) bytes(7, [0x0a, ...lengthOf(Buffer.byteLength(e.fieldsV1)), ...Buffer.from(e.fieldsV1, 'utf8')]);
  str(8, e.subresource);
  return Uint8Array.from(out);
}

function lengthOf(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** The entry's JSON form as kube-apiserver writes it (omitempty strings left out; a zero time as null). */
function entryJson(e: { manager: string; operation: string; time?: number; fieldsV1?: string; subresource: string }): Obj {
  const o: Obj = { apiVersion: 'v1', fieldsType: 'FieldsV1' };
  if (e.manager) o.manager = e.manager;
  if (e.operation) o.operation = e.operation;
  if (e.time !== undefined) o.time = e.time > 0 ? rfc3339(e.time) : null;
  if (e.fieldsV1 !== undefined) o.fieldsV1 = JSON.parse(e.fieldsV1);
  if (e.subresource) o.subresource = e.subresource;
  return o;
}

const read = (b: Uint8Array) => readCompactEntry(new Reader(b), b.length, rfc3339);

/** A FieldsV1 set: keys as structured-merge-diff writes them, nested at any depth. */
const setArb: fc.Arbitrary<Obj> = fc.letrec<{ set: Obj }>((tie) => ({
  set: fc.dictionary(
    fc.oneof(
      fc.constantFrom('.', 'f:metadata', 'f:spec', 'f:status', 'f:replicas', 'f:annotations'),
      fc.string().map((s) => `f:${s}`),
      fc.record({ name: fc.string(), port: fc.integer() }).map((k) => `k:${JSON.stringify(k)}`),
      fc.string().map((s) => `v:${JSON.stringify(s)}`),
    ),
    fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant({}), tie('set')),
    { maxKeys: 4 },
  ),
})).set;

describe('protobuf walker: a ManagedFieldsEntry read by hand equals compactManagedFields of its JSON', () => {
  it('for any manager, operation, time, subresource and FieldsV1 set (pretty-printed or not)', () => {
    fc.assert(
      fc.property(
        fc.record({
          manager: fc.oneof(fc.constant(''), fc.constantFrom('kubectl', 'fight-a', 'kube-controller-manager'), fc.string()),
          operation: fc.constantFrom('', 'Update', 'Apply'),
          time: fc.option(fc.integer({ min: 0, max: 4_000_000_000 }), { nil: undefined }),
          subresource: fc.constantFrom('', 'status', 'scale'),
          set: fc.option(setArb, { nil: undefined }),
          indent: fc.constantFrom(undefined, 1, '\t'),
        }),
        ({ set, indent, ...e }) => {
          const entry = { ...e, ...(set !== undefined ? { fieldsV1: JSON.stringify(set, undefined, indent) } : {}) };
          assert.deepEqual(read(entryBytes(entry)), compactManagedFields([entryJson(entry)])?.[0]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a FieldsV1 of null holds no set; one that is not JSON is a ProtobufError', () => {
    assert.deepEqual(read(entryBytes({ manager: 'm', operation: 'Update', fieldsV1: 'null', subresource: '' })), { manager: 'm', operation: 'Update' });
    for (const bad of ['{"f:a":{}', '{"f:a":}', '{"f:a" {}}', '{"f:a":{}}x', '{"f:a":{"f:b":{"f:c":{"f:d":[}}}}'])
      assert.throws(() => read(entryBytes({ manager: 'm', operation: '', fieldsV1: bad, subresource: '' })), ProtobufError, bad);
  });

  it('a field of the wrong wire type is a ProtobufError, not a misread', () => {
    assert.throws(() => read(Uint8Array.of(0x08, 0x01)), /ManagedFieldsEntry field 1: wire type 0/);
  });
});
