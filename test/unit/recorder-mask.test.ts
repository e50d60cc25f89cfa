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
import { LAST_APPLIED, redactObject } from '../../src/core/kube/redact';
import { redactObject as yamlRedact } from '../../src/app/yaml/render';

const never = new AbortController().signal;
const VALUE = 'hunter2-planted-value';
const B64 = Buffer.from(VALUE).toString('base64');

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
    const raw = readFileSync(path);
    let plain = '';
    for (let off = 0; off < raw.length;) {
      const n = raw.readUInt32LE(off + 8);
      plain += inflateRawSync(raw.subarray(off + BLOCK_HEADER_BYTES, off + BLOCK_HEADER_BYTES + n)).toString('utf8');
      off += BLOCK_HEADER_BYTES + n;
    }
    for (const hay of [raw.toString('latin1'), plain]) {
      assert.ok(!hay.includes(VALUE) && !hay.includes(B64), 'a Secret value was written');
    }
    assert.ok(plain.includes('<masked: 21 bytes>'));
    const r = await Recording.open(path, never);
    const got = (await r.objectsAt(Infinity, never)).get('secrets/default/s')!;
    r.close();
    assert.deepEqual(got, redactObject(type, { ...secret, data: { password: B64, more: B64 } }));
    assert.deepEqual(redactObject(type, got), got, 'masking is idempotent');
    rmSync(dir, { recursive: true });
  });
});
