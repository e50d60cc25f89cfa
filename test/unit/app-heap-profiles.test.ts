// The extension host's heap profiles (KUBELOOP_HEAP_PROFILE_DIR): V8's sampling heap profiler in
// this very process (node:inspector), written as .heapprofile files the bench compares; real timers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAP_PROFILE_DIR_ENV, heapProfilesFromEnv } from '../../src/app/stats/heapProfiles';
import { eventually } from '../support/eventually';

interface Node {
  callFrame: { functionName: string };
  selfSize: number;
  children: Node[];
}
/** Bytes still alive that a function of this name allocated (self sizes under its frames). */
function liveBytesOf(n: Node, name: string, inside = false): number {
  const here = inside || n.callFrame.functionName === name;
  return (here ? n.selfSize : 0) + n.children.reduce((a, c) => a + liveBytesOf(c, name, here), 0);
}

const kept: unknown[] = [];
function allocateAndKeep(): void {
  for (let i = 0; i < 20_000; i++) kept.push({ i, s: `held-${i}`.repeat(4) });
}

describe('heap profiles', () => {
  it('are off unless the environment names a folder', () => {
    assert.equal(heapProfilesFromEnv({}), undefined);
  });

  it('write what is still alive after a GC, by the function that allocated it; stop ends them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-heap-'));
    const p = heapProfilesFromEnv({ [HEAP_PROFILE_DIR_ENV]: dir }, { everyMs: 200 });
    try {
      assert.ok(p);
      await new Promise((r) => setTimeout(r, 50)); // the profiler started
      allocateAndKeep();
      const files = await eventually(() => (readdirSync(dir).length >= 2 ? readdirSync(dir).sort() : undefined), {
        description: 'two heap profiles',
        timeoutMs: 30_000,
      });
      assert.match(files[0]!, /^host-heap-\d+\.heapprofile$/);
      const last = JSON.parse(readFileSync(join(dir, files.at(-1)!), 'utf8')) as { head: Node };
      // ~20,000 objects of ~100 bytes and their strings: kept, so sampled (one sample per ~32 KiB).
      assert.ok(liveBytesOf(last.head, 'allocateAndKeep') > 500_000, `allocateAndKeep: ${liveBytesOf(last.head, 'allocateAndKeep')} bytes`);
      p.stop();
      const n = readdirSync(dir).length;
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(readdirSync(dir).length, n, 'nothing written after stop');
    } finally {
      p?.stop();
      kept.length = 0;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
