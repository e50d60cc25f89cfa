// The extension host's heap profiles (KUBELOOP_HEAP_PROFILE_DIR): V8's sampling heap profiler in
// this very process (node:inspector), written as .heapprofile files the bench compares; real timers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAP_PROFILE_DIR_ENV, HEAP_PROFILE_GARBAGE_ENV, heapProfilesFromEnv } from '../../src/app/stats/heapProfiles';
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

let promoted: unknown[] = [];
function allocateThenDrop(): void {
  for (let i = 0; i < 20_000; i++) promoted.push({ i, s: `old-${i}`.repeat(4) });
}
/** Young garbage enough for several scavenges: what survives them (promoted) moves to the old generation. */
function scavenge(): number {
  let n = 0;
  for (let i = 0; i < 200; i++) n += new Array(20_000).fill(i).length;
  return n;
}

/** One profile written after `act`, with or without the garbage of major collections. */
async function profileAfter(garbage: boolean, act: () => void): Promise<Node> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-heap-'));
  const p = heapProfilesFromEnv({ [HEAP_PROFILE_DIR_ENV]: dir, ...(garbage ? { [HEAP_PROFILE_GARBAGE_ENV]: '1' } : {}) }, { everyMs: 300 });
  try {
    assert.ok(p);
    await new Promise((r) => setTimeout(r, 50)); // the profiler started
    act();
    const files = await eventually(() => (readdirSync(dir).length >= 2 ? readdirSync(dir).sort() : undefined), {
      description: 'two heap profiles',
      timeoutMs: 30_000,
    });
    return (JSON.parse(readFileSync(join(dir, files.at(-1)!), 'utf8')) as { head: Node }).head;
  } finally {
    p?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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

  it('with KUBELOOP_HEAP_PROFILE_GARBAGE=1 also keep what reached the old generation and a major GC freed', async () => {
    const promoteThenDrop = () => {
      allocateThenDrop();
      scavenge();
      scavenge();
      promoted = []; // dead now: only a major collection frees it (the profile's own, before it is written)
    };
    const withGarbage = liveBytesOf(await profileAfter(true, promoteThenDrop), 'allocateThenDrop');
    const without = liveBytesOf(await profileAfter(false, promoteThenDrop), 'allocateThenDrop');
    assert.ok(withGarbage > 500_000, `with the garbage: ${withGarbage} bytes`);
    assert.ok(without < withGarbage / 4, `without it: ${without} bytes (with: ${withGarbage})`);
  });
});
