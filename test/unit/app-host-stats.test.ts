// The extension host's stats sampler (KUBELOOP_STATS_FILE): event-loop lateness per window, memory,
// object count, one JSON line a second; driven by FakeClock, written to a real file.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock, type Clock } from '../../src/core/clock';
import { HostStats, hostStatsFromEnv, PROBE_MS, WINDOW_MS, type HostSample } from '../../src/app/stats/hostStats';

/**
 * FakeClock plus a stall: `stall(ms)` moves the time the sampler reads by `ms` while no timer runs,
 * as a busy event loop does; the probe that was due fires that much late at the next advance.
 */
class StallClock implements Clock {
  private readonly fake = new FakeClock();
  private skew = 0;
  now = () => this.fake.now() + this.skew;
  setTimer = (ms: number, fn: () => void) => this.fake.setTimer(ms, fn);
  sleep = (ms: number, signal?: AbortSignal) => this.fake.sleep(ms, signal);
  advance = (ms: number) => this.fake.advance(ms);
  pendingTimers = () => this.fake.pendingTimers();
  stall(ms: number): void {
    this.skew += ms;
  }
}

async function stall(clock: StallClock, ms: number): Promise<void> {
  clock.stall(ms);
  await clock.advance(PROBE_MS);
}

function tempFile(): { file: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-stats-'));
  return { file: join(dir, 'stats.jsonl'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

const lines = (file: string): HostSample[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as HostSample)
    : [];

describe('HostStats', () => {
  it('writes one line per window: lateness of the probe, memory and the object count', async () => {
    const t = tempFile();
    const clock = new StallClock();
    let objects = 7;
    let events = 2;
    const stats = new HostStats({
      file: t.file,
      clock,
      objects: () => objects,
      treeItems: () => 40,
      treeEvents: () => events,
      wallNow: () => 1234,
      memory: () => ({ rss: 300 * 2 ** 20, heapUsed: 90 * 2 ** 20 }),
    });
    try {
      // A free loop: every probe on time.
      await clock.advance(WINDOW_MS);
      // Then one stall of 120 ms: the probe due in it fires 120 ms late.
      objects = 9;
      events = 5;
      await clock.advance(500);
      await stall(clock, 120);
      await clock.advance(WINDOW_MS - 500 - PROBE_MS);
      const got = lines(t.file);
      assert.equal(got.length, 2);
      assert.deepEqual(
        { ...got[0], probes: got[0]!.probes > 0 },
        { t: 1234, elP50Ms: 0, elP99Ms: 0, elMaxMs: 0, probes: true, late50: 0, rssMB: 300, heapUsedMB: 90, objects: 7, treeItems: 40, treeEvents: 2 },
      );
      assert.ok(got[0]!.probes >= WINDOW_MS / PROBE_MS - 1, `${got[0]!.probes} probes in a free second`);
      assert.equal(got[1]!.objects, 9);
      assert.equal(got[1]!.treeEvents, 5, 'the tree events fired so far, read at the window');
      assert.ok(got[1]!.elMaxMs >= 110 && got[1]!.elMaxMs <= 121, `max lateness ${got[1]!.elMaxMs} ms`);
      assert.equal(got[1]!.elP50Ms, 0);
      assert.equal(got[1]!.late50, 1, 'one probe was at least 50 ms late');
    } finally {
      stats.stop();
      t.done();
    }
  });

  it('counts a stall that starts right after a window closed (nothing is lost at the boundary)', async () => {
    const t = tempFile();
    const clock = new StallClock();
    const stats = new HostStats({ file: t.file, clock, objects: () => 0 });
    try {
      await clock.advance(WINDOW_MS); // first window written, the probe keeps its schedule
      await stall(clock, 200);
      await clock.advance(WINDOW_MS - PROBE_MS);
      const got = lines(t.file);
      assert.equal(got.length, 2);
      assert.ok(got[1]!.elMaxMs >= 190, `the stall after the boundary shows: ${JSON.stringify(got[1])}`);
    } finally {
      stats.stop();
      t.done();
    }
  });

  it('is off unless the environment names a file; stop and the signal end every timer', async () => {
    const clock = new StallClock();
    assert.equal(hostStatsFromEnv({}, { clock, objects: () => 0 }), undefined);
    assert.equal(clock.pendingTimers(), 0);
    const t = tempFile();
    const ac = new AbortController();
    const stats = hostStatsFromEnv({ KUBELOOP_STATS_FILE: t.file }, { clock, objects: () => 0, signal: ac.signal })!;
    try {
      assert.ok(stats.running);
      assert.equal(clock.pendingTimers(), 2);
      ac.abort();
      assert.equal(stats.running, false);
      assert.equal(clock.pendingTimers(), 0);
      await clock.advance(5 * WINDOW_MS);
      assert.deepEqual(lines(t.file), []);
    } finally {
      t.done();
    }
  });

  it('a file it cannot write stops the sampler instead of throwing into the host', async () => {
    const clock = new StallClock();
    const stats = new HostStats({ file: join(tmpdir(), 'kubeloop-no-such-dir', 'x', 'stats.jsonl'), clock, objects: () => 0 });
    await clock.advance(WINDOW_MS);
    assert.equal(stats.running, false);
    assert.equal(clock.pendingTimers(), 0);
  });
});
