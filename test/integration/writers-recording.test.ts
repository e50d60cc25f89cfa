/**
 * The writers story from a recording: `kubeloop writers --record` during the demo's planted fight
 * (src/demo/writers.ts) writes the watched changes with their managers (format 4), and
 * `kubeloop writers --recording` prints the same fight from the file, with no cluster: the same
 * object, field and managers, every recorded second, and once at --at.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWriters } from '../../src/cli/writers';
import { Recording } from '../../src/core/recorder/reader';
import { FIGHT_ANNOTATION, FIGHTERS } from '../../src/demo/writers';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';

const never = new AbortController().signal;
const FIGHT_LINE = new RegExp(`^FIGHT configmaps:writers/contested metadata\\.annotations\\.${FIGHT_ANNOTATION.replace(/\./g, '\\.')}: `);

/** runWriters in-process; its lines as printed. */
function run(argv: string[], signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const done = runWriters(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), ...(signal ? { signal } : {}) });
  return { out, err, done };
}

describe('writers from a recording', () => {
  let tc: TestCluster;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-writers-rec-'));
    tc = await startTestCluster({ writers: true, objects: 50 });
  });
  after(async () => {
    await tc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a recording made during the fight shows the fight, with no cluster', async () => {
    const path = join(dir, 'writers.klr');
    const stop = new AbortController();
    const live = run(['--kubeconfig', tc.kubeconfig, '--namespace', 'writers', '--watch', 'configmaps', '--record', path], stop.signal);
    try {
      await eventually(() => live.out.some((l) => FIGHT_LINE.test(l)), { description: 'the live run flags the fight', timeoutMs: 60_000 });
    } finally {
      stop.abort();
    }
    assert.equal(await live.done, 0, live.err.join('\n'));
    const liveFight = live.out.find((l) => FIGHT_LINE.test(l))!;

    const r = await Recording.open(path, never);
    const { start, end } = r.range;
    r.close();
    const replay = run(['--recording', path]);
    assert.equal(await replay.done, 0, replay.err.join('\n'));
    const fights = replay.out.filter((l) => FIGHT_LINE.test(l));
    assert.equal(fights.length, 1, replay.out.join('\n'));
    // The same finding: object, field and the two managers (transfers may differ by when it was first seen).
    const managersOf = (l: string) => /: (\S+) <-> (\S+) /.exec(l)!.slice(1).sort();
    assert.deepEqual(managersOf(fights[0]!), [...FIGHTERS].sort());
    assert.deepEqual(managersOf(liveFight), [...FIGHTERS].sort());
    // A report per recorded second, as live, naming both fighters as managers.
    const reports = replay.out.filter((l) => l.startsWith('writers t='));
    assert.ok(reports.length >= Math.floor((end - start) / 1000) - 1, `${reports.length} reports over ${end - start} ms`);
    for (const m of FIGHTERS)
      assert.ok(
        replay.out.some((l) => l.trimStart().startsWith(`${m} `)),
        `manager ${m} in the report`,
      );

    // --at: one report, at that instant, in JSON: the fight is going on there.
    const at = new Date(end).toISOString();
    const once = run(['--recording', path, '--at', at, '--json']);
    assert.equal(await once.done, 0, once.err.join('\n'));
    const snaps = once.out.map((l) => JSON.parse(l) as { at: string; snapshot?: { fights: { key: string; path: string }[] } }).filter((o) => o.snapshot);
    assert.equal(snaps.length, 1);
    assert.equal(snaps[0]!.at, at);
    assert.ok(snaps[0]!.snapshot!.fights.some((f) => f.key === 'configmaps:writers/contested' && f.path === `metadata.annotations.${FIGHT_ANNOTATION}`));

    const bad = run(['--recording', path, '--at', '1999-01-01T00:00:00Z']);
    assert.equal(await bad.done, 1);
    assert.match(bad.err.join('\n'), /not an instant of the recording/);
  });
});
