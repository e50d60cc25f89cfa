// Secrets reach a recording masked exactly as the YAML view masks them (one function), the
// last-applied annotation included; masking a masked Secret (a replay) changes nothing; the
// values appear neither in the file's bytes nor in its decompressed records.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { Recorder } from '../../src/core/recorder/recorder';
import { RecordingWriter } from '../../src/core/recorder/writer';
import { Recording } from '../../src/core/recorder/reader';
import { BLOCK_HEADER_BYTES } from '../../src/core/recorder/format';
import { LAST_APPLIED, redactObject } from '../../src/core/kube/objects/redact';
import { redactObject as yamlRedact } from '../../src/app/yaml/render';

const never = new AbortController().signal;
const VALUE = 'hunter2-planted-value';
const B64 = Buffer.from(VALUE).toString('base64');

/** The file's bytes and its blocks' decompressed payloads. */
function bytesOf(path: string): { raw: Buffer; plain: string } {
  const raw = readFileSync(path);
  let plain = '';
  for (let off = 0; off < raw.length;) {
    const n = raw.readUInt32LE(off + 8);
    plain += inflateRawSync(raw.subarray(off + BLOCK_HEADER_BYTES, off + BLOCK_HEADER_BYTES + n)).toString('utf8');
    off += BLOCK_HEADER_BYTES + n;
  }
  return { raw, plain };
}

describe('recorder masking', () => {
  it('writes Secrets masked as the YAML view shows them, and never their values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const path = join(dir, 'r.klr');
    let rec: Recorder | undefined;
    const w = new RecordingWriter({ path, snapshot: Recorder.snapshotOf(() => rec) });
    await w.open(never);
    rec = new Recorder(w);
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default', annotations: { [LAST_APPLIED]: `{"data":{"password":"${B64}"}}` }, managedFields: [{ manager: 'kubectl' }] },
      data: { password: B64 },
      stringData: { token: VALUE },
    };
    const type = { group: '', resource: 'secrets' };
    rec.replace('api:secrets', type, [secret]);
    rec.apply('api:secrets', type, 'MODIFIED', { ...secret, data: { password: B64, more: B64 } });
    await w.close(never);
    assert.equal(yamlRedact, redactObject, 'the YAML view and the recorder share one function');
    const { raw, plain } = bytesOf(path);
    for (const hay of [raw.toString('latin1'), plain]) {
      assert.ok(!hay.includes(VALUE) && !hay.includes(B64), 'a Secret value was written');
    }
    assert.ok(plain.includes('<masked: 21 bytes>'));
    const r = await Recording.open(path, never);
    const got = (await r.objectsAt(Infinity, never)).get('secrets/default/s')!;
    r.close();
    const masked = redactObject(type, { ...secret, data: { password: B64, more: B64 } });
    // managedFields in their recorded form (managed.ts): the manager, never a value.
    assert.deepEqual(got, { ...masked, metadata: { ...(masked.metadata as object), managedFields: [{ manager: 'kubectl' }] } });
    assert.deepEqual(redactObject(type, got), masked, 'masking is idempotent');
    rmSync(dir, { recursive: true });
  });

  it('writes keyframes masked, though it holds the objects as delivered (no masked copy per key)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'klr-'));
    const path = join(dir, 'r.klr');
    let rec: Recorder | undefined;
    // A keyframe due at every flush with a change: the held Secret is written by the keyframe path.
    const w = new RecordingWriter({ path, snapshot: Recorder.snapshotOf(() => rec), keyframeChanges: 1, keyframeChangesPerObject: 0 });
    await w.open(never);
    rec = new Recorder(w);
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default', managedFields: [{ manager: 'kubectl' }] },
      data: { password: B64 },
    };
    const delivered = structuredClone(secret);
    const type = { group: '', resource: 'secrets' };
    rec.replace('api:secrets', type, [secret]);
    await w.flush(never);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', managedFields: [{ manager: 'm' }] }, data: { a: '1' } };
    rec.apply('api:configmaps', { group: '', resource: 'configmaps' }, 'ADDED', cm);
    await w.flush(never);
    await w.close(never);
    assert.ok(w.stats.keyframes >= 2, `a keyframe holding the Secret was written (${w.stats.keyframes} keyframes)`);
    assert.deepEqual(secret, delivered, 'the delivered object is never changed');
    const { raw, plain } = bytesOf(path);
    for (const hay of [raw.toString('latin1'), plain]) assert.ok(!hay.includes(B64) && !hay.includes(VALUE), 'a Secret value was written');
    const r = await Recording.open(path, never);
    const at = await r.objectsAt(Infinity, never);
    r.close();
    const masked = redactObject(type, secret);
    assert.deepEqual(at.get('secrets/default/s'), { ...masked, metadata: { ...(masked.metadata as object), managedFields: [{ manager: 'kubectl' }] } });
    assert.deepEqual(at.get('configmaps/default/c'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', managedFields: [{ manager: 'm' }] },
      data: { a: '1' },
    });
    rmSync(dir, { recursive: true });
  });
});
