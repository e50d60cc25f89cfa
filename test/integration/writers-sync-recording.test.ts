/**
 * Who wrote each version, in a recording the sync loop made: `kubeloop sync --record` during the
 * demo's planted fight (src/demo/writers.ts) keeps the fight's managers (the loop's watches keep
 * managedFields in their compact form while recording), so `kubeloop writers --recording` names the
 * fight's object, field and two managers from the file, not "(unknown)".
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSync } from '../../src/cli/sync';
import { runWriters } from '../../src/cli/writers';
import { FIGHT_ANNOTATION, FIGHTERS } from '../../src/demo/writers';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';

const FIGHT_LINE = new RegExp(`^FIGHT configmaps:writers/contested metadata\\.annotations\\.${FIGHT_ANNOTATION.replace(/\./g, '\\.')}: `);

/** `kubeloop writers --recording FILE` in-process: its exit code and lines. */
async function replay(path: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWriters(['--recording', path], { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

describe('writers from a sync loop recording', () => {
  let tc: TestCluster;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-sync-writers-'));
    tc = await startTestCluster({ writers: true, objects: 50 });
  });
  after(async () => {
    await tc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubeloop sync --record keeps the managers: kubeloop writers --recording names the fight', async () => {
    const path = join(dir, 'sync.klr');
    const stop = new AbortController();
    const err: string[] = [];
    const sync = runSync(['--kubeconfig', tc.kubeconfig, '--namespace', 'writers', '--watch', 'configmaps', '--record', path], {
      stdout: () => {},
      stderr: (l) => err.push(l),
      signal: stop.signal,
    });
    try {
      // The recording is read while the loop writes it (flushed every second) until it shows the fight.
      await eventually(async () => existsSync(path) && (await replay(path)).out.some((l) => FIGHT_LINE.test(l)), {
        description: 'the sync loop recording shows the fight',
        timeoutMs: 90_000,
      });
    } finally {
      stop.abort();
    }
    assert.equal(await sync, 0, err.join('\n'));

    const r = await replay(path);
    assert.equal(r.code, 0, r.err.join('\n'));
    const fights = r.out.filter((l) => FIGHT_LINE.test(l));
    assert.equal(fights.length, 1, r.out.join('\n'));
    const managers = /: (\S+) <-> (\S+) /.exec(fights[0]!)!.slice(1).sort();
    assert.deepEqual(managers, [...FIGHTERS].sort());
    for (const m of FIGHTERS)
      assert.ok(
        r.out.some((l) => l.trimStart().startsWith(`${m} `)),
        `manager ${m} in the report:\n${r.out.join('\n')}`,
      );
  });
});
