/**
 * The recorder's files on a shared machine: it renames and deletes only files that carry a
 * recording's own header (segments.ts), creates them owner-only (0600), and a write the kernel
 * takes only part of is an error, never a block silently cut. Reading a recording from someone
 * else inflates boundedly: per block and per read.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runExport } from '../../src/cli/export';
import { Recorder } from '../../src/core/recorder/recorder';
import { Recording } from '../../src/core/recorder/reader';
import type { Obj } from '../../src/core/recorder/records';
import { isRecordingFile } from '../../src/core/recorder/segments';
import { BlockKind, InflateLimitError, MAX_BLOCK_INFLATED, decodeBlockText, encodeBlock, encodePayload, inflateBudget } from '../../src/core/recorder/format';
import { FORMAT_VERSION } from '../../src/core/recorder/records';
import { RecordingWriter } from '../../src/core/recorder/writer';

const never = new AbortController().signal;
const PODS = { group: '', resource: 'pods' };
const pod = (name: string, v: string): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { v } } });

function tempDir(): { dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), 'klr-files-'));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

async function record(path: string, opts: { maxBytes?: number; changes?: number } = {}) {
  let now = 1_700_000_000_000;
  let rec: Recorder | undefined;
  const writer = new RecordingWriter({
    path,
    now: () => now,
    snapshot: Recorder.snapshotOf(() => rec),
    segments: 4,
    ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}),
  });
  await writer.open(never);
  rec = new Recorder(writer, { now: () => now });
  for (let i = 0; i < (opts.changes ?? 10); i++) {
    now += 1000;
    rec.apply('api', PODS, 'ADDED', pod(`p${i % 20}`, `${i}-${Math.random().toString(36)}`));
    if (i % 5 === 0) await writer.flush(never);
  }
  await writer.close(never);
  return writer;
}

describe('recorder files', () => {
  it('creates every segment 0600 whatever the umask allows', async () => {
    using t = tempDir();
    const path = join(t.dir, 'r.klr');
    const w = await record(path, { maxBytes: 20_000, changes: 600 });
    assert.equal(w.failed, undefined);
    assert.ok(existsSync(`${path}.1`), 'rotated at least once');
    for (const p of [path, `${path}.1`]) assert.equal(statSync(p).mode & 0o777, 0o600, p);
  });

  it('kubeloop export creates its output 0600 too', async () => {
    using t = tempDir();
    const path = join(t.dir, 'r.klr');
    await record(path);
    for (const format of ['jsonl', 'trace']) {
      const out = join(t.dir, `out.${format}`);
      assert.equal(await runExport([path, out, '--format', format]), 0);
      assert.ok(statSync(out).size > 0);
      assert.equal(statSync(out).mode & 0o777, 0o600, out);
    }
  });

  it('a file at FILE that is not a recording is refused, untouched; so is a link, and its target is not written', async () => {
    using t = tempDir();
    const path = join(t.dir, 'notes.klr');
    writeFileSync(path, 'my notes\n');
    await assert.rejects(record(path), /notes\.klr exists and is not a KubeLoop recording: not replacing it/);
    assert.equal(readFileSync(path, 'utf8'), 'my notes\n');
    assert.ok(!existsSync(`${path}.1`), 'not renamed away');

    const target = join(t.dir, 'target');
    writeFileSync(target, 'precious\n');
    const link = join(t.dir, 'link.klr');
    symlinkSync(target, link);
    await assert.rejects(record(link), /link\.klr exists and is not a KubeLoop recording/);
    assert.equal(readFileSync(target, 'utf8'), 'precious\n');
  });

  it('a file that is not a recording where an older part would go is refused before anything moves', async () => {
    using t = tempDir();
    const path = join(t.dir, 'r.klr');
    await record(path);
    writeFileSync(`${path}.3`, 'not mine\n');
    // Recording anew rotates: FILE -> FILE.1 ... and FILE.3 is the oldest slot (deleted by the old rule).
    await assert.rejects(record(path), /r\.klr\.3 is not a KubeLoop recording but is where an older part of .* goes/);
    assert.equal(readFileSync(`${path}.3`, 'utf8'), 'not mine\n');
    assert.ok(await isRecordingFile(path), 'the recording there is left where it was');
    assert.ok(!existsSync(`${path}.1`));
  });

  it('files beyond the segment slots are deleted only when they are recordings', async () => {
    using t = tempDir();
    const path = join(t.dir, 'r.klr');
    await record(path);
    await record(`${path}.6`); // an old part from a run with more segments: the writer's to delete
    writeFileSync(`${path}.5`, 'not mine\n');
    const w = await record(path);
    assert.equal(w.failed, undefined);
    assert.ok(!existsSync(`${path}.6`), 'an old recording part beyond the bound is deleted');
    assert.equal(readFileSync(`${path}.5`, 'utf8'), 'not mine\n');
    assert.ok(await isRecordingFile(`${path}.1`));
    const r = await Recording.open(path, never);
    assert.equal(r.headers.length, 2);
    r.close();
  });

  it('a write the kernel takes only part of (a file size limit) fails the writer, naming the error', async () => {
    using t = tempDir();
    const path = join(t.dir, 'r.klr');
    // `ulimit -f 16`: writes stop at 16 KiB. The header and first keyframe fit; the one data block
    // written at close, incompressible, crosses the limit: write(2) takes part of it, then EFBIG.
    const script = join(t.dir, 'child.ts');
    writeFileSync(
      script,
      `import { RecordingWriter } from ${JSON.stringify(resolve('src/core/recorder/writer.ts'))};
const never = new AbortController().signal;
void (async () => {
const w = new RecordingWriter({ path: ${JSON.stringify(path)}, snapshot: () => [] });
await w.open(never);
const noise = (n: number) => Array.from({ length: n }, () => Math.random().toString(36).slice(2)).join('');
for (let i = 0; i < 4; i++) w.delta(Date.now(), 'A', 'configmaps/default/c' + i, 1, JSON.stringify({ data: { x: noise(1500) } }));
await w.close(never);
process.stdout.write(JSON.stringify({ failed: w.failed?.message ?? null }));
})();
`,
    );
    const out = await new Promise<string>((done, fail) => {
      const child = spawn('bash', ['-c', `ulimit -f 16; exec "${process.execPath}" --import tsx "${script}"`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', fail);
      child.on('close', (code) => (code === 0 ? done(stdout) : fail(new Error(`child exited ${code}: ${stderr}`))));
    });
    const { failed } = JSON.parse(out) as { failed: string | null };
    assert.ok(statSync(path).size === 16 * 1024, `the file stopped at the limit (${statSync(path).size} bytes)`);
    assert.match(String(failed), /EFBIG|short write/);
  });
});

describe('reading a recording from someone else: bounded inflation', () => {
  it('a block that inflates past 64 MiB (a DEFLATE bomb) is refused with a clear error, by objectsAt, records and export', async () => {
    using t = tempDir();
    const path = join(t.dir, 'bomb.klr');
    const header = await encodeBlock(BlockKind.Header, [{ k: 'H', version: FORMAT_VERSION, startedAt: 1, t: 1, segment: 0 }]);
    // A keyframe of blanks: 65 MiB inflated from about 65 KB (JSON-wise it would even parse: no records).
    const bomb = await encodePayload(BlockKind.KeyframeEnd, Buffer.alloc(MAX_BLOCK_INFLATED + 1024 * 1024, ' '), 1, 1, 9);
    assert.ok(bomb.length < 200 * 1024, `${bomb.length} bytes`);
    writeFileSync(path, Buffer.concat([header, bomb]));
    const r = await Recording.open(path, never);
    try {
      await assert.rejects(r.objectsAt(Infinity, never), (e: Error) => {
        assert.ok(e instanceof InflateLimitError, String(e));
        assert.match(e.message, /recording block at byte \d+ inflates to more than 64 MiB .*: not a block KubeLoop writes, refused/);
        return true;
      });
      await assert.rejects(
        (async () => {
          for await (const _ of r.records(never)) void _;
        })(),
        InflateLimitError,
      );
    } finally {
      r.close();
    }
    assert.equal(await runExport([path, join(t.dir, 'out.jsonl'), '--format', 'jsonl']), 1);
  });

  it('the blocks of one read share a budget: past it, the read is refused, having inflated no more than the budget', async () => {
    const block = await encodePayload(BlockKind.Packed, Buffer.alloc(600, 'x'), 1, 1);
    const budget = inflateBudget(1000);
    assert.equal((await decodeBlockText(block, 0, budget)).length, 600);
    assert.equal(budget.left, 400);
    await assert.rejects(decodeBlockText(block, 0, budget), /this read of the recording inflates to more than 1000 bytes: refused at the block at byte 0/);
    assert.equal((await decodeBlockText(block, 0)).length, 600, 'without a budget: only the per-block bound');
  });
});
