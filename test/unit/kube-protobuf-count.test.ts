/**
 * A list read for its count (Reading 'count': what `kubeloop load` reads of a page): the list's
 * metadata as the field set gives it, and one empty object per item, each item's own fields
 * bounds-checked and skipped unread. Checked on real apimachinery bytes (test/fixtures/protobuf)
 * against the same bodies read for rows, and on bodies built here where a fixture cannot say it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeProtobuf, PROTOBUF_MAGIC, ProtobufError } from '../../src/core/kube/protobuf';
import { cachedStrings } from '../../src/core/kube/protobuf/reader';

const DIR = path.join(__dirname, '../fixtures/protobuf');
const pb = (name: string) => new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.pb`)));

function read(body: Uint8Array, reading: 'rows' | 'count'): Record<string, unknown> {
  const d = decodeProtobuf(body, reading);
  if (!d.ok) assert.fail(d.error.message);
  return d.value;
}

/** A length-delimited field: tag, length (one byte: these bodies are small), bytes. */
const field = (num: number, bytes: number[]) => {
  assert.ok(bytes.length < 0x80);
  return [(num << 3) | 2, bytes.length, ...bytes];
};
const text = (s: string) => [...Buffer.from(s)];

/** A body with an envelope naming apiVersion and kind around the list `raw`. */
function envelope(apiVersion: string, kind: string, raw: number[]): Uint8Array {
  const typeMeta = [...field(1, text(apiVersion)), ...field(2, text(kind))];
  const rawField = raw.length < 0x80 ? [0x12, raw.length] : [0x12, (raw.length & 0x7f) | 0x80, raw.length >> 7];
  return Uint8Array.from([...PROTOBUF_MAGIC, ...field(1, typeMeta), ...rawField, ...raw]);
}

/** An item: metadata { name }, and a spec of opaque bytes. */
const item = (name: string) => field(2, [...field(1, field(1, text(name))), ...field(2, [0x08, 0x01])]);

const LISTS = fs
  .readdirSync(DIR)
  .filter((f) => /list(-empty)?\.pb$/.test(f))
  .map((f) => f.slice(0, -3));

describe('protobuf: a list read for its count', () => {
  it('every list fixture: the same kind, metadata and number of items as read for rows, each item an empty object', () => {
    assert.ok(LISTS.length >= 30, `list fixtures: ${LISTS.length}`);
    for (const name of LISTS) {
      const rows = read(pb(name), 'rows');
      const counted = read(pb(name), 'count');
      const items = rows.items as unknown[];
      assert.equal(counted.kind, rows.kind, name);
      assert.equal(counted.apiVersion, rows.apiVersion, name);
      assert.deepStrictEqual(counted.metadata, rows.metadata, name);
      assert.deepStrictEqual(
        counted.items,
        items.map(() => ({})),
        name,
      );
    }
  });

  it('a body that is no list is read as for rows', () => {
    for (const name of ['pod', 'status', 'partialobjectmetadata']) assert.deepStrictEqual(read(pb(name), 'count'), read(pb(name), 'rows'), name);
  });

  it("decodes nothing of an item: none of its strings is made, the list's continue token is", () => {
    const names = ['count-only-7f3a-never-decoded-0', 'count-only-7f3a-never-decoded-1', 'count-only-7f3a-never-decoded-2'];
    const body = envelope('v1', 'PodList', [...field(1, field(3, text('count-only-7f3a-token'))), ...names.flatMap(item)]);
    const counted = read(body, 'count');
    assert.equal((counted.items as unknown[]).length, 3);
    assert.equal((counted.metadata as { continue: string }).continue, 'count-only-7f3a-token');
    assert.deepStrictEqual(
      cachedStrings().filter((s) => s.startsWith('count-only-7f3a-never')),
      [],
    );
    // the same body read for rows does decode them: the check above can see a decoded name
    const rows = read(body, 'rows');
    assert.deepStrictEqual(
      (rows.items as { metadata: { name: string } }[]).map((o) => o.metadata.name),
      names,
    );
    assert.equal(cachedStrings().filter((s) => s.startsWith('count-only-7f3a-never')).length, 3);
  });

  it('a list of a kind the walker does not have is an error value, as for rows (the caller asked JSON for it)', () => {
    const body = envelope('storage.k8s.io/v1', 'CSINodeList', [...field(1, []), ...item('a'), ...item('b')]);
    for (const reading of ['rows', 'count'] as const) {
      const d = decodeProtobuf(body, reading);
      assert.equal(d.ok, false, reading);
      if (!d.ok) assert.match(d.error.message, /no protobuf field set for storage.k8s.io\/v1\/CSINodeList/);
    }
  });

  it('an item whose own field overruns it, or a list cut inside an item, is an error value, as for rows', () => {
    // item 2's metadata claims 9 bytes where its item holds 3
    const overrun = envelope('v1', 'PodList', [...item('a'), 0x12, 0x05, 0x0a, 0x09, 0x0a, 0x01, 0x61]);
    const whole = envelope('v1', 'PodList', [...item('a'), ...item('b')]);
    for (const body of [overrun, whole.subarray(0, whole.length - 3)]) {
      for (const reading of ['rows', 'count'] as const) {
        const d = decodeProtobuf(body, reading);
        assert.equal(d.ok, false, reading);
        if (!d.ok) assert.ok(d.error instanceof ProtobufError);
      }
    }
  });
});
